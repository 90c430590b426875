"""scikit-learn estimator for linear SVM feature selection with a hard cardinality constraint.

Paper D (Bomze, D'Onofrio, Palagi, Peng, 2024): FS-SVM (2) solved by any registered method
(``sparsekm methods fs-linear``): BigMP (6), CoP (7), Local Search (Alg. 1), Kernel Search
(Alg. 2), the heuristic (Alg. 3), the exact procedure (Alg. 4), enumeration. Defaults are the
registry's, shared with the CLI.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from sparsekm import registry

from .base import BinaryClassifierMixin, check_solvers, method_kwargs, tree_options

D = registry.defaults("fs-linear")


class CardinalityLinearSVC(BinaryClassifierMixin, ClassifierMixin, SelectorMixin,
                           BaseEstimator):
    """Linear SVM with at most ``B`` nonzero weights (FS-SVM (2) of paper D).

    Parameters
    ----------
    B : budget on the number of features (1 <= B <= n).
    C : misclassification penalty (> 0); objective 1/2||w||^2 + C sum xi.
    method : a registered fs-linear method (``sparsekm methods fs-linear``).
    solver : solver for the MIQP/MISOCP parts (None = configured default, SCIP).
    relax_solver : solver for the conic relaxations (None = Clarabel).
    time_limit : global seconds; the incumbent is kept on the limit.
    M, k, rho, s, strategy : method parameters (big-M; Local Search k; Kernel Search rho;
        exact s; upper-bound strategy of Algorithms 3/4); each method uses its own.
    subproblem_time_limit : seconds per Kernel Search subproblem (paper: 60).
    method_options : any other keyword option of the method (``sparsekm methods fs-linear
        --json`` lists them, e.g. bnb's ``gap_tol``), validated from its signature.
    workers, checkpoint : method ``bnb``: worker processes, and a path that makes the search
        resumable (the same fit with the same path resumes it).

    Attributes
    ----------
    coef_ : (1, n) weights w; intercept_ : (1,) bias b; classes_ : the two labels (classes_[1]
    is the +1 class); result_ : the :class:`~sparsekm.solvers.Result` (objective, bound, gap,
log); objective_, lower_bound_, gap_;
    feature_names_in_ : column names when fitted on a DataFrame.
    """

    def __init__(self, B: int = D["B"], C: float = D["C"], method: str = "kernel-search",
                 solver: str | None = None, relax_solver: str | None = None,
                 time_limit: float | None = None, M: float | None = None, k: int = D["k"],
                 rho: int = D["rho"], s: int = D["s"], strategy: str = D["strategy"],
                 subproblem_time_limit: float | None = 60.0,
                 method_options: dict[str, Any] | None = None, workers: int = 1,
                 checkpoint: str | None = None) -> None:
        self.B = B
        self.C = C
        self.method = method
        self.solver = solver
        self.relax_solver = relax_solver
        self.time_limit = time_limit
        self.M = M
        self.k = k
        self.rho = rho
        self.s = s
        self.strategy = strategy
        self.subproblem_time_limit = subproblem_time_limit
        self.method_options = method_options
        self.workers = workers
        self.checkpoint = checkpoint

    def fit(self, X: Any, y: Any) -> CardinalityLinearSVC:
        """Solve FS-SVM (2) on (X, y); y may hold any two labels."""
        from sparsekm.algorithms.fs_linear import solve_fs_linear
        from sparsekm.models.fs_linear import FSLinearProblem
        from sparsekm.solvers import SolverPlan

        given = {"k": self.k, "rho": self.rho, "s": self.s, "strategy": self.strategy,
                 "M": self.M}
        entry, opts = method_kwargs("fs-linear", self.method, given, self.method_options)
        opts.update(tree_options(entry, self.workers, self.checkpoint))
        check_solvers(solver=self.solver, relax_solver=self.relax_solver)
        X, ypm = self._binary_targets(X, y)
        B = self.B
        if not (isinstance(B, int | np.integer) and not isinstance(B, bool) and B >= 1):
            raise ValueError(f"B={B!r} must be an integer >= 1 (B >= n_features: the plain "
                             "linear SVM)")
        plan = SolverPlan(solver=self.solver, relax_solver=self.relax_solver,
                          time_limit=self.time_limit,
                          subproblem_time_limit=self.subproblem_time_limit)
        res = solve_fs_linear(FSLinearProblem(X, ypm, B=int(B), C=float(self.C)), entry.name,
                              plan, **opts)
        self.result_ = res
        self.coef_ = np.asarray(res.values["w"], dtype=float).reshape(1, -1)
        self.intercept_ = np.array([float(res.values["b"])])
        self.objective_ = res.objective
        self.lower_bound_ = res.bound
        self.gap_ = res.gap
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """w'x + b for each row (positive means classes_[1])."""
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return X @ self.coef_[0] + self.intercept_[0]


    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "coef_")
        return np.abs(self.coef_[0]) > 0

    def selected_features(self) -> list[Any]:
        """Names (DataFrame columns) or indices of the selected features."""
        idx = np.flatnonzero(self._get_support_mask())
        names = getattr(self, "feature_names_in_", None)
        return [str(names[j]) for j in idx] if names is not None else idx.tolist()
