"""scikit-learn estimator for paper E: min-max feature weighting of the Gaussian-kernel SVM."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .base import BinaryClassifierMixin, check_solvers, method_kwargs

__all__ = ["MinMaxFeatureWeightingSVC"]


class MinMaxFeatureWeightingSVC(BinaryClassifierMixin, ClassifierMixin, SelectorMixin,
                                BaseEstimator):
    """SVM with the anisotropic Gaussian kernel (13) whose weights gamma solve (14) (paper E).

    ``fit`` runs Algorithm 1 on the training rows: ``cv``-fold CV of the plain SVM over the
    (C, gamma) grid of Section 4.2 (skipped for the coordinates given as ``C`` / ``gamma0``),
    then (14) from that NO-FS start by ``method``, then the SVM (10) at the found gamma.
    Paper E scales every feature to [-1, 1] first: put
    ``MinMaxScaler(feature_range=(-1, 1))`` before this estimator in a Pipeline.

    Parameters
    ----------
    C : float, optional
        SVM penalty; None lets the CV choose it from the paper's grid.
    C2 : float in (0, 1)
        Weight of ||gamma||_p^p against the SVM dual value (1 - C2) in (14a).
    p : float > 0
        Exponent of the penalty (paper: 1). p < 1 is handled by reweighted l1 (``fast``).
    gamma0 : float or array, optional
        Start gamma_j (scalar for every feature); None lets the CV choose it.
    method : {"fast", "ipopt", "scip"}
        ``fast``: L-BFGS-B on the value function (14) with Danskin gradients (measured 10-40x
        faster than Ipopt on (20) at equal objective, see docs/minmax_fs.md); ``ipopt``:
        Ipopt on the single-level model (20); ``scip``: SCIP on (20) (small data only).
    solver : str, optional
        Solver for ``method="scip"`` (another global Pyomo NLP solver).
    cv : int
        Folds of the CV of Algorithm 1 (paper: 5); reduced to the smallest class size.
    time_limit : float, optional
        Seconds for the optimisation of (14) (the best point so far is kept).
    random_state : int
        Seed of the CV folds.
    method_options : dict, optional
        Options of the method (e.g. ``tol``, ``hessian``).

    Attributes
    ----------
    feature_weights_ : ndarray (n,)
        gamma, the kernel weight of each feature (0 = the feature is not used).
    ranking_ : ndarray (n,)
        Feature indices by decreasing weight (``ranking_[0]`` the most relevant).
    support_ : ndarray of bool (n,)
        gamma_j > 1e-4 max(gamma) (``get_support(k)`` gives the top k instead).
    C_, gamma0_ : the penalty used and the start (from the CV when not given).
    objective_ : value of (14) at ``feature_weights_``.
    alpha_, intercept_ : the SVM dual variables and bias at ``feature_weights_``.
    result_ : the method's Result (KKT residual of (20) in ``result_.extra["kkt"]``).
    """

    def __init__(self, C: float | None = None, C2: float = 0.5, p: float = 1.0,
                 gamma0: Any = None, method: str = "fast", solver: str | None = None,
                 cv: int = 5, time_limit: float | None = None, random_state: int = 0,
                 method_options: dict[str, Any] | None = None) -> None:
        self.C = C
        self.C2 = C2
        self.p = p
        self.gamma0 = gamma0
        self.method = method
        self.solver = solver
        self.cv = cv
        self.time_limit = time_limit
        self.random_state = random_state
        self.method_options = method_options

    def fit(self, X: Any, y: Any) -> MinMaxFeatureWeightingSVC:
        """Algorithm 1 on (X, y): gamma, then the SVM at gamma."""
        from sparsekm.algorithms.minmax_fs.algorithm1 import Start, algorithm1
        from sparsekm.algorithms.minmax_fs.common import selected_features
        from sparsekm.algorithms.minmax_fs.protocol import ranking
        from sparsekm.solvers import SolverPlan

        X, ypm = self._binary_targets(X, y)
        smallest = int(min((ypm > 0).sum(), (ypm < 0).sum()))
        folds = min(int(self.cv), smallest)
        C, gamma0 = self.C, self.gamma0
        if folds < 2:        # too few rows of a class for any CV: the defaults
            C = 1.0 if C is None else C
            gamma0 = 1.0 / X.shape[1] if gamma0 is None else gamma0
        _, options = method_kwargs("minmax-fs", self.method, {}, self.method_options)
        check_solvers(solver=self.solver)
        plan = SolverPlan(solver=self.solver, time_limit=self.time_limit)
        start = Start(C=C, gamma0=gamma0, folds=max(folds, 2), seed=self.random_state)
        res = algorithm1(X, ypm, C2=self.C2, p=self.p, method=self.method, plan=plan,
                         start=start, method_options=options)
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
        self.objective_ = float(res.objective)
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
