"""scikit-learn estimator for paper E: min-max feature weighting of the Gaussian-kernel SVM."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from sparsekm.declare import ParamError

from .base import BinaryClassifierMixin, set_result_attributes
from .declared import declared_estimator, resolved

__all__ = ["MinMaxFeatureWeightingSVC"]


@declared_estimator("solve", "minmax-fs", exclude=("outer_folds",))
class MinMaxFeatureWeightingSVC(BinaryClassifierMixin, ClassifierMixin, SelectorMixin,
                                BaseEstimator):
    """SVM with the anisotropic Gaussian kernel (13) whose weights gamma solve (14) (paper E).

    ``fit`` runs Algorithm 1 on the training rows: ``cv_folds``-fold CV of the plain SVM over
    the (C, gamma) grid of Section 4.2 (skipped for the coordinates given as ``C`` /
    ``gamma0``), then (14) from that NO-FS start by ``method``, then the SVM (10) at the found
    gamma. Paper E scales every feature to [-1, 1] first: put
    ``MinMaxScaler(feature_range=(-1, 1))`` before this estimator in a Pipeline. The
    parameters are those of ``sparsekm solve minmax-fs``.

    Attributes
    ----------
    feature_weights_ : gamma; ranking_ : features by decreasing gamma_j; support_ : the
    selected features; C_, gamma0_ : the penalty used and the start (from the CV when not
    given); objective_ : value of (14) at ``feature_weights_``; alpha_, intercept_ : the SVM
    at ``feature_weights_``; result_ : the method's Result (KKT residual of (20) in
    ``result_.extra["kkt"]``).
    """

    def fit(self, X: Any, y: Any) -> MinMaxFeatureWeightingSVC:
        """Algorithm 1 on (X, y): gamma, then the SVM at gamma."""
        from sparsekm.algorithms.minmax_fs.algorithm1 import Start, algorithm1
        from sparsekm.algorithms.minmax_fs.common import selected_features
        from sparsekm.algorithms.minmax_fs.outer_folds import ranking

        call, _ = resolved(self)
        X, ypm = self._binary_targets(X, y)
        options = dict(call.options)
        C, gamma0 = call.own["C"], options.pop("gamma0", None)
        smallest = int(min((ypm > 0).sum(), (ypm < 0).sum()))
        folds = min(call.own["cv_folds"], smallest)
        if folds < 2:        # too few rows of a class for any CV: the defaults
            C = 1.0 if C is None else C
            gamma0 = 1.0 / X.shape[1] if gamma0 is None else gamma0
        start = Start(C=C, gamma0=gamma0, folds=max(folds, 2), seed=call.opts.seed,
                      tie=call.own["cv_tie"], starts=call.own["starts"])
        try:
            res = algorithm1(X, ypm, C2=call.problem["C2"], p=call.problem["p"],
                             method=call.choice, plan=call.solver_plan(), start=start,
                             method_options=options)
        except ParamError as exc:
            raise call.error(exc) from None
        gamma = np.asarray(res.gamma, dtype=float)
        self.result_ = res
        self.feature_weights_ = gamma
        self.ranking_ = ranking(gamma)
        mask = np.zeros(X.shape[1], dtype=bool)
        mask[selected_features(gamma)] = True
        self.support_ = mask
        self.C_ = float(res.extra["C"])
        self.gamma0_ = res.extra["cv"]["gamma"] if gamma0 is None or np.ndim(gamma0) == 0 \
            else np.asarray(gamma0, dtype=float)
        set_result_attributes(self, res)
        self.alpha_ = np.asarray(res.alpha, dtype=float)
        self.intercept_ = float(res.b)
        sv = np.flatnonzero(self.alpha_ > 0)
        self.support_vectors_ = X[sv]
        self.dual_coef_ = (self.alpha_ * ypm)[sv]
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """``sum_i alpha_i y_i K_gamma(x_i, x) + b`` (positive means ``classes_[1]``)."""
        from sparsekm.kernels import anisotropic_rbf_kernel

        check_is_fitted(self, "feature_weights_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        g = self.feature_weights_
        act = g > 0
        if not self.dual_coef_.size:
            return np.full(X.shape[0], self.intercept_)
        if not act.any():
            return np.full(X.shape[0], self.dual_coef_.sum() + self.intercept_)
        Kt = anisotropic_rbf_kernel(X[:, act], self.support_vectors_[:, act], weights=g[act])
        return Kt @ self.dual_coef_ + self.intercept_

    def predict(self, X: Any) -> np.ndarray:
        """Predicted labels."""
        d = self.decision_function(X)
        return np.where(d > 0, self.classes_[1], self.classes_[0])

    def get_support(self, k: int | None = None, indices: bool = False) -> np.ndarray:
        """Mask (or ``indices``) of the selected features; ``k``: the top-k by gamma_j."""
        if isinstance(k, bool | np.bool_):     # scikit-learn's positional get_support(True)
            k, indices = None, bool(k)
        if k is None:
            return super().get_support(indices=indices)
        check_is_fitted(self, "ranking_")
        if not 1 <= int(k) <= self.ranking_.size:
            raise ValueError(f"k={k}: choose 1 <= k <= {self.ranking_.size} features")
        top = np.sort(self.ranking_[:int(k)])
        if indices:
            return top
        mask = np.zeros(self.ranking_.size, dtype=bool)
        mask[top] = True
        return mask

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "support_")
        return self.support_

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
