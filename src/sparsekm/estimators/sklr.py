"""scikit-learn estimator for sparse kernel logistic regression (paper C)."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .base import BinaryClassifierMixin

__all__ = ["SparseKernelLogisticRegression"]

WSS_METHODS = {"second-order": "smo2", "first-order": "smo1"}


class SparseKernelLogisticRegression(BinaryClassifierMixin, ClassifierMixin, BaseEstimator):
    """Binary kernel logistic regression with dual sparsity (paper C, dual (22), SMO).

    Training solves min 1/2 a'Qa + C sum G(a_i / C) - lam sum a_i, y'a = 0,
    gamma_bound <= a <= C - gamma_bound by SMO; training points whose a_i stays at the lower
    bound are dropped from the model (Section 5.1), the rest are ``support_``.

    Parameters
    ----------
    C : float
        Weight of the log-likelihood term.
    lam : float, optional
        Sparsity weight lam of (18) (= rho of the primal (8), Observation 1); 0 is plain KLR.
        None (default) uses Appendix C's lambda-choice lam = C / 10.
    kernel : {"rbf", "linear", "poly", "laplacian", "sigmoid"}
    gamma : float
        Kernel gamma; 0.5 is paper C's exp(-||x - z||^2 / (2 sigma^2)) with sigma = 1 (scale the
        features to [0, 1] first, e.g. ``make_pipeline(MinMaxScaler(), ...)``, as the paper).
    degree, coef0 : int, float
        Polynomial / sigmoid kernel parameters.
    wss : {"second-order", "first-order"}
        Working-set selection: eqs. (31)-(35) (S-KLR-2ord) or the maximal violating pair.
    tol : float
        KKT tolerance of (27) (Section 5.1: 1e-5).
    max_iter : int
        SMO iteration cap (Section 5.1: 10,000; -1 for none).
    gamma_bound : float
        Auxiliary bound gamma of (22c) (Section 5.1: 1e-5).
    cache_mb : float
        Kernel memory: the whole matrix when it fits, otherwise an LRU row cache of this size.
    warm_start : bool
        Start from the previous ``alpha_`` when refitting on as many samples.

    Attributes
    ----------
    classes_ : the two labels (``classes_[1]`` is the positive class).
    support_ : indices of the training points kept (a_i above gamma_bound).
    support_vectors_ : those points.
    n_support_ : number kept per class (order of ``classes_``).
    dual_coef_ : (1, n_SV) a_i y_i of the kept points.
    intercept_ : (1,) b of f(x) = sum a_i y_i k(x_i, x) + b; P(y = classes_[1] | x) =
        1 / (1 + exp(-f(x))) (eq. (3)).
    alpha_ : all dual variables; ``objective_`` the value of (22a); ``n_iter_``;
        ``result_`` the full :class:`~sparsekm.solvers.Result`.
    """

    def __init__(self, C: float = 1.0, lam: float | None = None, kernel: str = "rbf",
                 gamma: float = 0.5, degree: int = 3, coef0: float = 0.0,
                 wss: str = "second-order", tol: float = 1e-5, max_iter: int = 10_000,
                 gamma_bound: float = 1e-5, cache_mb: float = 1024.0,
                 warm_start: bool = False) -> None:
        self.C = C
        self.lam = lam
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.wss = wss
        self.tol = tol
        self.max_iter = max_iter
        self.gamma_bound = gamma_bound
        self.cache_mb = cache_mb
        self.warm_start = warm_start

    def _spec(self) -> Any:
        from sparsekm.kernels import KernelSpec

        return KernelSpec(self.kernel, gamma=self.gamma, degree=self.degree, coef0=self.coef0)

    def fit(self, X: Any, y: Any) -> SparseKernelLogisticRegression:
        """Solve the dual (22) on (X, y) by SMO."""
        from sparsekm.algorithms.sklr.smo import solve_smo
        from sparsekm.models.sklr.problem import SKLRProblem

        X, ypm = self._binary_targets(X, y)
        if self.wss not in WSS_METHODS:
            raise ValueError(f"wss={self.wss!r}: choose 'second-order' or 'first-order'")
        lam = self.C / 10.0 if self.lam is None else self.lam
        problem = SKLRProblem(X, ypm, kernel=self._spec(), C=self.C, lam=lam,
                              gamma_bound=self.gamma_bound)
        alpha0 = None
        if self.warm_start and getattr(self, "alpha_", None) is not None \
                and self.alpha_.shape[0] == X.shape[0]:
            alpha0 = self.alpha_
        res = solve_smo(problem, None, self.wss, tol=self.tol, max_iter=self.max_iter,
                        alpha0=alpha0, cache_mb=self.cache_mb)
        self.result_ = res
        self.alpha_ = np.asarray(res.alpha, dtype=float)
        sv = np.asarray(res.support, dtype=np.intp)
        self.support_ = sv
        self.support_vectors_ = X[sv]
        self.dual_coef_ = (self.alpha_ * ypm)[sv][None, :]
        self.intercept_ = np.array([float(res.b)])
        self.n_support_ = np.array([int((ypm[sv] < 0).sum()), int((ypm[sv] > 0).sum())],
                                   dtype=np.int32)
        self.objective_ = float(res.objective)
        self.n_iter_ = int(res.extra["iterations"])
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """f(x) = sum_{i in support_} a_i y_i k(x_i, x) + b (positive: ``classes_[1]``)."""
        check_is_fitted(self, "support_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        if self.support_.size == 0:
            return np.full(X.shape[0], self.intercept_[0])
        return self._spec()(X, self.support_vectors_) @ self.dual_coef_[0] + self.intercept_[0]

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
