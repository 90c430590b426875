"""Paper A's methods, each registered: LS (Algorithm 1), LS* (Algorithm 2), DecSubLight*
(Algorithm 3), RFE1/RFE2 (Section 5.2), enumeration, the MINLP (4) by a global solver and the
Ipopt relax-and-round baseline. :func:`solve_fs_kernel` runs any of them with multistart."""

from .evaluator import Evaluator, alpha_subproblem
from .multistart import solve_fs_kernel

__all__ = ["Evaluator", "alpha_subproblem", "solve_fs_kernel"]
