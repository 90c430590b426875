"""scikit-learn estimator for sparse multiple kernel learning (paper B, eq. (4))."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .base import BinaryClassifierMixin, check_solvers, method_kwargs, tree_options

__all__ = ["SparseMKLClassifier"]


class SparseMKLClassifier(BinaryClassifierMixin, ClassifierMixin, BaseEstimator):
    """SVM on a sparse convex combination of at most ``k0`` kernels (paper B, eq. (4)).

    Parameters
    ----------
    kernels : str or list
        Kernel dictionary: spec string (``"rbf:0.5,linear,poly:0.01:1:2"``), a named
        dictionary (``"paper10"``, ``"paper50"``) or a list of entries.
    k0 : int
        At most k0 kernels (1 <= k0 <= number of kernels).
    C : float
        SVM penalty (> 0).
    lam : float
        Ridge weight lambda >= 0 on the kernel weights.
    method : str
        A registered method of problem ``smkl`` (``sparsekm methods smkl``).
    init : str
        ABR start: ``ranking`` (the best single kernels by (4)), ``random`` or a registered
        smkl relaxation (its k0 largest weights).
    starts : int
        Starts (multistart ABR / ABR incumbents of ``exact``).
    solver : str, optional
        Solver for the relaxations and masters (default: chosen per model).
    time_limit : float, optional
        Seconds for the whole fit (the method returns its incumbent, bound and gap).
    random_state : int, optional
        Seed of every random choice (None means 0).
    normalize : None or "trace"
        Trace-normalize the base kernels.
    method_options : dict, optional
        Any other keyword option of the method (``sparsekm methods smkl --json``), validated
        from its signature.

    Attributes
    ----------
    weights_ : ndarray (q,)  kernel weights beta (sum 1, at most k0 nonzero for abr/exact).
    support_ : ndarray of int  indices of the kernels used.
    kernels_ : list of str  the dictionary's entries, in order.
    dual_coef_, intercept_ : the SVM (alpha * y, b) on K(beta).
    objective_ : float  value of (4) at ``weights_``.
    lower_bound_, gap_ : certified lower bound on (4) and relative gap (None without one).
    result_ : the method's Result.
    """

    def __init__(self, kernels: Any = "paper10", k0: int = 2, C: float = 10.0,
                 lam: float = 1.0, method: str = "abr", init: str = "ranking", starts: int = 3,
                 solver: str | None = None, time_limit: float | None = None,
                 random_state: int | None = None, normalize: str | None = None,
                 method_options: dict[str, Any] | None = None, workers: int = 1,
                 checkpoint: str | None = None) -> None:
        self.kernels = kernels
        self.k0 = k0
        self.C = C
        self.lam = lam
        self.method = method
        self.init = init
        self.starts = starts
        self.solver = solver
        self.time_limit = time_limit
        self.random_state = random_state
        self.normalize = normalize
        self.method_options = method_options
        self.workers = workers
        self.checkpoint = checkpoint

    def fit(self, X: Any, y: Any) -> SparseMKLClassifier:
        """Choose the kernel weights with ``method`` and train the SVM on K(beta)."""
        from sparsekm.models.smkl.problem import SMKLProblem
        from sparsekm.solvers import SolverPlan

        seed = 0 if self.random_state is None else int(self.random_state)
        given = {"init": self.init, "starts": self.starts, "seed": seed}
        entry, opts = method_kwargs("smkl", self.method, given, self.method_options)
        opts.update(tree_options(entry, self.workers, self.checkpoint))
        check_solvers(solver=self.solver)
        X, ypm = self._binary_targets(X, y)
        problem = SMKLProblem(X, ypm, self.kernels, self.k0, self.C, self.lam, self.normalize)
        plan = SolverPlan(solver=self.solver, relax_solver=self.solver,
                          time_limit=self.time_limit)
        res = entry.run(problem, plan, **opts)
        self.result_ = res
        self.kernels_ = list(problem.labels)
        self.weights_ = np.asarray(res.values["beta"], dtype=float)
        self.support_ = np.flatnonzero(self.weights_ > 0)
        self.dual_coef_ = res.values["alpha"] * ypm
        self.intercept_ = float(res.values["b"])
        self.objective_ = res.objective
        self.lower_bound_ = res.bound
        self.gap_ = res.gap
        sv = np.flatnonzero(self.dual_coef_ != 0)
        self._sv_X, self._sv_coef = X[sv], self.dual_coef_[sv]
        self._specs = [problem.dictionary.kernels[i] for i in self.support_]
        self._scale = problem.dictionary.scale[self.support_]
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """sum_j alpha_j y_j K(beta)(x_j, x) + b (positive means ``classes_[1]``)."""
        check_is_fitted(self, "weights_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        out = np.full(X.shape[0], self.intercept_)
        if self._sv_X.shape[0] == 0:
            return out
        for spec, s, w in zip(self._specs, self._scale, self.weights_[self.support_]):
            out += (w * s) * (spec(X, self._sv_X) @ self._sv_coef)
        return out
