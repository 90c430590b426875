"""Declarations of paper E's options shared by its models and its methods
(:mod:`sparsekm.declare`): each option name is declared once for minmax-fs, here,
in :mod:`sparsekm.algorithms.minmax_fs.specs` (methods only) or, when one module alone takes
it, beside its function."""

from __future__ import annotations

from sparsekm.declare import Spec

__all__ = ["BOX", "GAMMA", "GAMMA0", "OBJECTIVE", "OBJECTIVES", "START"]

OBJECTIVES = ("printed", "reduced")

GAMMA0 = Spec("Start gamma_j = gamma0 for every feature j (Algorithm 1's NO-FS start; given, "
              "it skips Algorithm 1's CV); none: 1/n. In Python also one weight per feature.",
              ge=0, flag="--gamma0")
GAMMA = Spec("The fixed feature weights gamma of the kernel (13): a number for every feature "
             "or one weight per feature; none: 1/n.", ge=0)
BOX = Spec("Keep the redundant 0 <= alpha <= C of (20d), as the paper recommends.")
OBJECTIVE = Spec("printed: (18a) / (20a) as printed; reduced: 1/2 a'Ga + C e'lambdaC, equal on "
                 "(18b) / (20b) without the unbounded bilinear terms (far tighter relaxations "
                 "for a global solver).", choices=OBJECTIVES)
START = Spec("Initial values of the lower-level variables (a dict of alpha, nu, lambda0, "
             "lambdaC, e.g. lower_level(problem, gamma0).point(): Algorithm 1's step 2); "
             "none: the solver's.")
