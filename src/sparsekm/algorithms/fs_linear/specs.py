"""Declarations of paper D's method options used by more than one method
(:mod:`sparsekm.declare`): each option name is declared once for fs-linear, here or (when one
module alone takes it) beside its method."""

from __future__ import annotations

from typing import Any

from sparsekm.declare import Spec
from sparsekm.models.fs_linear import COP_FORMS
from sparsekm.registry import Part

__all__ = ["COP_FORM", "K_EXCESS", "MIQPS", "NATIVE_SVM", "RANKING", "RELAX", "RHO",
           "STRATEGIES", "STRATEGY", "SVM_QP", "cop_classes"]

STRATEGIES = ("local-search", "kernel-search")

STRATEGY = Spec("Upper-bounding strategy of Algorithms 3 and 4: local-search (Algorithm 1) "
                "or kernel-search (Algorithm 2).", choices=STRATEGIES, flag="--strategy")
K_EXCESS = Spec("Local Search excess k: CoP(K) (16) on the B + k best-ranked features "
                "(Algorithm 1; clipped to n - B).", ge=0, flag="--k")
RHO = Spec("Kernel Search bucket size rho: features per bucket (Algorithm 2).", ge=1,
           flag="--rho")
COP_FORM = Spec("Form of the CoP (7) / CoP(K) (16) models: bilinear (the paper's u_j w_j = 0, "
                "a MINLP) or perspective (the cones w_j^2 <= W_j (1 - u_j), a MISOCP).",
                choices=COP_FORMS, flag="--cop-form")
RANKING = Spec("Ranking vector u (n values, the most promising feature smallest) used instead "
               "of DSCoP (13)'s u* (Algorithms 3 and 4 pass theirs; default: solve DSCoP).")


def cop_classes(options: dict[str, Any]) -> tuple[str, ...]:
    """The class of the CoP (7) / CoP(K) (16) models a method solves, by its ``cop_form``."""
    return ("MINLP",) if options.get("cop_form", "bilinear") == "bilinear" else ("MISOCP",)


# the parts of paper D's methods and who solves them (registry.uses_solvers)
MIQPS = Part("CoP(K) (16) subproblems", ("solver",), classes=cop_classes)
RELAX = Part("DSCoP (13) ranking", ("relax_solver",), classes=("SOCP",), framework="cvxpy")
SVM_QP = Part("SVMs (1) on a support", ("qp_solver",), classes=("QP",), framework="matrix")
NATIVE_SVM = Part("SVMs (1) on a support", ("qp_solver",), default="sparsekm linear-svm ipm")
