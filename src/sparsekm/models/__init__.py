"""Declarative optimization models (Pyomo / CVXPY builders)."""

# paper D (linear FS-SVM): BigMP (6), CoP (7), CoP(K) (16), SR-DLMP(K) (21), SVM (1), EN-SVM
from .fs_linear import (  # noqa: F401
    FSLinearResult,
    bigm_model,
    cop_model,
    enumerate_supports,
    estimate_big_m,
    solve_fs_model,
    solve_svm,
    sr_dlmp_model,
    svm_model,
)
