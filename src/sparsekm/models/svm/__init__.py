"""The soft-margin SVM, shared by every paper: primal (paper D (1)) and dual (paper A (3))."""

from .dual import svm_dual_model, svm_dual_problem
from .primal import margin_block, svm_objective, svm_primal_model, svm_qp
from .problem import SVMProblem

__all__ = ["SVMProblem", "margin_block", "svm_dual_model", "svm_dual_problem",
           "svm_objective", "svm_primal_model", "svm_qp"]
