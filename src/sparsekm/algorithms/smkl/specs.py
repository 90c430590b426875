"""Declarations of paper B's method options used by more than one method
(:mod:`sparsekm.declare`): each option name is declared once for smkl, here, in
:mod:`sparsekm.models.smkl.specs` (shared with the relaxations) or, when one module alone
takes it, beside its method."""

from __future__ import annotations

from sparsekm import registry
from sparsekm.declare import Spec
from sparsekm.registry import Part

__all__ = ["INIT", "INITS", "MASTERS", "STARTS", "SVM_DUALS"]

INITS = ("ranking", "random")  # besides a registered smkl relaxation's name

STARTS = Spec("ABR starts (Algorithm 1), the best kept: abr's ranked single kernels (init "
              "ranking, then seeded random ones) or seeded random k0-sparse betas (Section "
              "3.3); exact's random starts at the root.", ge=1, flag="--starts")
INIT = Spec("ABR's first start: ranking (the best single kernels by (4)), random (Section "
            "3.3) or a registered smkl relaxation (its k0 largest weights); random starts "
            "fill up to starts.",
            choices=lambda: (*INITS, *registry.names("smkl", "relaxation")), flag="--init")

# the parts of paper B's methods (registry.uses_solvers)
SVM_DUALS = Part("SVM duals (7)", (), default="sparsekm SMO (libsvm for cold starts)")
MASTERS = Part("(4) on a support by cutting planes (master QPs)", ("relax_solver", "solver"),
               classes=("QP",), framework="cvxpy")
