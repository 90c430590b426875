"""Paper A's models: the problem (4), the MINLP (4) and beta-subproblem (5) as Pyomo models,
and the set functions F, H of Section 4.2."""

from .minlp import fs_kernel_beta_subproblem, fs_kernel_minlp
from .problem import SENSES, FSKernelProblem, decision_values, random_masks
from .setfun import SetFunctions

__all__ = ["SENSES", "FSKernelProblem", "SetFunctions", "decision_values",
           "fs_kernel_beta_subproblem", "fs_kernel_minlp", "random_masks"]
