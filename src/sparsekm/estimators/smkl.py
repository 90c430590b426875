"""scikit-learn estimator for sparse multiple kernel learning (paper B, eq. (4))."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from sparsekm.declare import ParamError

from .base import BinaryClassifierMixin, set_result_attributes
from .declared import declared_estimator, resolved

__all__ = ["SparseMKLClassifier"]


@declared_estimator("solve", "smkl")
class SparseMKLClassifier(BinaryClassifierMixin, ClassifierMixin, BaseEstimator):
    """SVM on a sparse convex combination of at most ``k0`` kernels (paper B, eq. (4)).

    The weights are chosen by ``method`` (``sparsekm methods smkl``: ABR, the exact search,
    the baselines), after a CV over (C, lam, k0) when ``cv_folds`` > 0; the parameters are
    those of ``sparsekm solve smkl``.

    Attributes
    ----------
    kernels_ : the dictionary's kernel labels; weights_ : beta (one per kernel); support_ :
    the kernels used; dual_coef_, intercept_ : the SVM on K(beta); objective_, lower_bound_,
    gap_, status_; result_ : the full Result.
    """

    def fit(self, X: Any, y: Any) -> SparseMKLClassifier:
        """Choose the kernel weights with ``method`` and train the SVM on K(beta)."""
        from sparsekm.algorithms.smkl import solve_smkl
        from sparsekm.models.smkl.problem import SMKLProblem

        call, _ = resolved(self)
        X, ypm = self._binary_targets(X, y)
        try:
            problem = call.build(SMKLProblem, X, ypm)
        except ParamError as exc:
            raise call.error(exc) from None
        plan = call.solver_plan(relax_solver=call.opts.solver)
        folds = call.own["cv_folds"]
        if folds:
            from sparsekm.algorithms.smkl.cv import cross_validate, restrict

            grid = {"C": tuple(call.own["cv_C"]), "lam": tuple(call.own["cv_lam"]),
                    "k0": tuple(call.own["cv_k0"])}
            res, cv = cross_validate(problem, call.entry.run, grid, folds=folds,
                                     seed=call.opts.seed, plan=plan, options=call.options)
            problem = restrict(problem, None, **cv["cv_params"])
            self.cv_params_ = cv["cv_params"]
        else:
            res = solve_smkl(problem, call.choice, plan, **call.options)
        self.result_ = res
        self.kernels_ = list(problem.labels)
        self.weights_ = np.asarray(res.values["beta"], dtype=float)
        self.support_ = np.flatnonzero(self.weights_ > 0)
        self.dual_coef_ = res.values["alpha"] * ypm
        self.intercept_ = float(res.values["b"])
        set_result_attributes(self, res)
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
