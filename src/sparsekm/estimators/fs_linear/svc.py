"""scikit-learn estimator for linear SVM feature selection with a hard cardinality constraint.

Paper D (Bomze, D'Onofrio, Palagi, Peng, 2024): FS-SVM (2) solved by any registered method
(``sparsekm methods fs-linear``): BigMP (6), CoP (7), Local Search (Alg. 1), Kernel Search
(Alg. 2), the heuristic (Alg. 3), the exact procedure (Alg. 4), bnb, fast, enumeration. Its
parameters are generated from the declarations of ``sparsekm solve fs-linear``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from sparsekm.declare import ParamError

from ..base import BinaryClassifierMixin, set_result_attributes
from ..declared import declared_estimator, resolved


@declared_estimator("solve", "fs-linear")
class CardinalityLinearSVC(BinaryClassifierMixin, ClassifierMixin, SelectorMixin,
                           BaseEstimator):
    """Linear SVM with at most ``B`` nonzero weights (FS-SVM (2) of paper D).

    Solved by any registered method (``sparsekm methods fs-linear``); the parameters are those
    of ``sparsekm solve fs-linear`` (one declaration: same names, defaults and checks).

    Attributes
    ----------
    coef_ : (1, n) weights w; intercept_ : (1,) bias b; classes_ : the two labels (classes_[1]
    is the +1 class); result_ : the :class:`~sparsekm.solvers.Result` (objective, bound, gap,
    status, log); objective_, lower_bound_ (certified, or None), gap_, status_;
    feature_names_in_ : column names when fitted on a DataFrame.
    """

    def fit(self, X: Any, y: Any) -> CardinalityLinearSVC:
        """Solve FS-SVM (2) on (X, y); y may hold any two labels."""
        from sparsekm.algorithms.fs_linear import solve_fs_linear
        from sparsekm.models.fs_linear import FSLinearProblem

        call, _ = resolved(self)
        X, ypm = self._binary_targets(X, y)
        try:
            problem = call.build(FSLinearProblem, X, ypm)
        except ParamError as exc:
            raise call.error(exc) from None
        res = solve_fs_linear(problem, call.choice, call.solver_plan(), **call.options)
        self.result_ = res
        self.coef_ = np.asarray(res.values["w"], dtype=float).reshape(1, -1)
        self.intercept_ = np.array([float(res.values["b"])])
        set_result_attributes(self, res)
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
