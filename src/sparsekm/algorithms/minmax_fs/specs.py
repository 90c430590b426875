"""Declarations of paper E's method options used by more than one method
(:mod:`sparsekm.declare`): each option name is declared once for minmax-fs, here, in
:mod:`sparsekm.models.minmax_fs.specs` (shared with the models) or, when one module alone
takes it, beside its method."""

from __future__ import annotations

from sparsekm.declare import Spec, with_
from sparsekm.specs import TOL as SHARED_TOL

__all__ = ["SVM_TOL", "TOL"]

TOL = with_(SHARED_TOL, help="Stopping tolerance: fast's relative projected gradient and "
            "decrease of (14) (1e-8 matches Ipopt's objective), ipopt's Ipopt tol on (20).")
SVM_TOL = Spec("KKT tolerance of the SVM dual (12) solved at each gamma (the value function's "
               "Danskin gradient needs it tight).", gt=0, lt=1)
