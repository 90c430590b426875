"""scikit-learn estimator for kernel-SVM feature selection with a hard cardinality (Paper A)."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from sparsekm.declare import ParamError

from .base import BinaryClassifierMixin, set_result_attributes
from .declared import declared_estimator, resolved

__all__ = ["CardinalityKernelSVC"]


@declared_estimator("solve", "fs-kernel")
class CardinalityKernelSVC(BinaryClassifierMixin, ClassifierMixin, SelectorMixin,
                           BaseEstimator):
    """Nonlinear SVM using exactly ``B`` input features (Paper A, MINLP (4)).

    The mask ``beta`` (``sum beta = B``) is chosen by ``method`` (``sparsekm methods
    fs-kernel``) and the SVM dual (3) is then trained on the masked kernel ``k_beta``; the
    parameters are those of ``sparsekm solve fs-kernel`` (``sense="margin"``, the default,
    maximizes the dual optimum over masks: ``upper_bound_``).

    Attributes
    ----------
    support_ : ndarray of bool (n,), the mask ``beta``; alpha_, intercept_ : the SVM dual
    variables and bias on the selected features; kernel_spec_ : the validated kernel;
    objective_ : ``min_alpha`` of the dual (3) at ``support_``; upper_bound_ (margin sense) or
    lower_bound_ (paper sense), gap_, status_; result_ : the full Result (per-start
    objectives and times in ``result_.extra["starts"]``); classes_ : the two labels.
    """

    def fit(self, X: Any, y: Any) -> CardinalityKernelSVC:
        """Select ``B`` features and train the SVM on them."""
        from sparsekm.algorithms.fs_kernel import solve_fs_kernel
        from sparsekm.models.fs_kernel import FSKernelProblem
        from sparsekm.run.fs_kernel import with_workers

        call, _ = resolved(self)
        X, ypm = self._binary_targets(X, y)
        try:
            problem = call.build(FSKernelProblem, X, ypm)
            options, plan = with_workers(call, call.solver_plan())
        except ParamError as exc:
            raise call.error(exc) from None
        res = solve_fs_kernel(problem, call.choice, plan, starts=call.own["starts"],
                              **options)
        self.result_ = res
        self.kernel_spec_ = problem.spec
        self.support_ = res.values["beta"].copy()
        self.alpha_ = np.asarray(res.values["alpha"], dtype=float)
        self.intercept_ = float(res.values["b"])
        set_result_attributes(self, res)
        sv = np.flatnonzero(self.alpha_ > 0)
        self.support_vectors_ = X[sv]
        self.dual_coef_ = (self.alpha_ * ypm)[sv]
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """``sum_i alpha_i y^i k_beta(x^i, x) + b`` (positive means ``classes_[1]``)."""
        from sparsekm.models.fs_kernel import decision_values

        check_is_fitted(self, "support_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return decision_values(self.kernel_spec_, self.support_,
                               self.support_vectors_, self.dual_coef_, self.intercept_, X)

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "support_")
        return self.support_
