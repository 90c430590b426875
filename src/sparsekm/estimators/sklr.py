"""scikit-learn estimator for sparse kernel logistic regression (paper C)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from sparsekm import declare
from sparsekm.declare import ParamError

from .base import BinaryClassifierMixin, set_result_attributes
from .declared import declared_estimator, resolved

__all__ = ["SparseKernelLogisticRegression"]


@dataclass(frozen=True)
class WarmStart:
    """The estimator's own parameter (scikit-learn's warm_start)."""

    warm_start: bool = declare.field(False, "Start from the previous ``alpha_`` when refitting "
                                     "on as many samples.")


@declared_estimator("solve", "sklr", own=WarmStart)
class SparseKernelLogisticRegression(BinaryClassifierMixin, ClassifierMixin, BaseEstimator):
    """Binary kernel logistic regression with dual sparsity (paper C, dual (22), SMO).

    Training solves min 1/2 a'Qa + C sum G(a_i / C) - lam sum a_i, y'a = 0,
    gamma_bound <= a <= C - gamma_bound (``method``: smo2, the second-order working set (31)-
    (35), smo1 the maximal violating pair, or conic); training points whose a_i stays at the
    lower bound are dropped from the model (Section 5.1), the rest are ``support_``. Scale the
    features to [0, 1] first (``make_pipeline(MinMaxScaler(), ...)``), as the paper. The
    parameters are those of ``sparsekm solve sklr``.

    Attributes
    ----------
    classes_ : the two labels (``classes_[1]`` is the positive class); support_ : indices of
    the training points kept (a_i above gamma_bound); support_vectors_ : those points;
    n_support_ : number kept per class; dual_coef_ : (1, n_SV) a_i y_i of the kept points;
    intercept_ : (1,) b of f(x) = sum a_i y_i k(x_i, x) + b, P(y = classes_[1] | x) =
    1 / (1 + exp(-f(x))) (eq. (3)); alpha_ : all dual variables; objective_ : the value of
    (22a), lower_bound_, gap_, status_; n_iter_; result_ : the full Result.
    """

    def fit(self, X: Any, y: Any) -> SparseKernelLogisticRegression:
        """Solve the dual (22) on (X, y)."""
        from sparsekm.algorithms.sklr import solve_sklr
        from sparsekm.models.sklr.problem import SKLRProblem

        call, own = resolved(self)
        X, ypm = self._binary_targets(X, y)
        ratio = call.own["lam_ratio"]
        try:
            lam = {} if ratio is None else {"lam": ratio * call.problem["C"]}
            problem = call.build(SKLRProblem, X, ypm, **lam)
        except ParamError as exc:
            raise call.error(exc) from None
        options = dict(call.options)
        if own.get("warm_start") and getattr(self, "alpha_", None) is not None \
                and self.alpha_.shape[0] == X.shape[0] and "alpha0" in call.entry.params:
            options["alpha0"] = self.alpha_
        res = solve_sklr(problem, call.choice, call.solver_plan(), **options)
        self.result_ = res
        self.kernel_spec_ = problem.kernel
        self.alpha_ = np.asarray(res.alpha, dtype=float)
        sv = np.asarray(res.support, dtype=np.intp)
        self.support_ = sv
        self.support_vectors_ = X[sv]
        self.dual_coef_ = (self.alpha_ * ypm)[sv][None, :]
        self.intercept_ = np.array([float(res.b)])
        self.n_support_ = np.array([int((ypm[sv] < 0).sum()), int((ypm[sv] > 0).sum())],
                                   dtype=np.int32)
        set_result_attributes(self, res)
        self.n_iter_ = res.extra.get("iterations")
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """f(x) = sum_{i in support_} a_i y_i k(x_i, x) + b (positive: ``classes_[1]``)."""
        check_is_fitted(self, "support_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        if self.support_.size == 0:
            return np.full(X.shape[0], self.intercept_[0])
        return self.kernel_spec_(X, self.support_vectors_) @ self.dual_coef_[0] + self.intercept_[0]

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities from eq. (3): columns follow ``classes_``."""
        from scipy.special import expit

        f = self.decision_function(X)
        return np.column_stack([expit(-f), expit(f)])

    def predict_log_proba(self, X: Any) -> np.ndarray:
        """log of :meth:`predict_proba` (computed stably)."""
        from scipy.special import log_expit

        f = self.decision_function(X)
        return np.column_stack([log_expit(-f), log_expit(f)])

    def predict(self, X: Any) -> np.ndarray:
        """The more probable class."""
        d = self.decision_function(X)
        return np.where(d > 0, self.classes_[1], self.classes_[0])

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
