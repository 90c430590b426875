"""Native solvers for kernel duals (paper A eq. (3) and its kin): libsvm today, one SMO engine.

:func:`solve_svm_dual` solves the SVM dual on a precomputed kernel and returns a
:class:`~sparsekm.solvers.Result` certified by weak duality (:func:`svm_duality`).
"""

from .certificate import optimal_intercept, svm_duality
from .svm_dual import decision_function, dual_objective, primal_objective, solve_svm_dual

__all__ = ["decision_function", "dual_objective", "optimal_intercept", "primal_objective",
           "solve_svm_dual", "svm_duality"]
