"""Declarative optimization models (Pyomo / CVXPY builders)."""

# paper A (kernel FS-SVM): MINLP (4), its relaxation, beta-subproblem (5)
from .fs_kernel import fs_kernel_beta_subproblem, fs_kernel_minlp  # noqa: F401

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
