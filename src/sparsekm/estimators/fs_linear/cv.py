"""Cross-validated linear SVM with at most B features (FS-SVM (2) of paper D), scikit-learn style.

The pattern of ``LogisticRegressionCV`` and of L0Learn's / abess's CV: a grid of budgets ``Bs``
and penalties ``Cs`` fitted on each fold's training rows, each grid point scored on its test
rows, the best (B, C) refit on all rows -- with *one* model: the folds and the refit run the
same method with the same options (issue 27; before, the folds were scored with path entries
and the refit ran ``fast``, another model). ``method="path"`` (default): the (B, C) path of
:func:`sparsekm.algorithms.fs_linear.budget_path.path_results` (``fast`` at every grid point, then
every support found re-solved at every point it fits: never worse than ``fast``, monotone in
B and C), the refit taking the entry (B_, C_) of the same path on all rows;
``method="fast"``: ``fast`` at each grid point alone. Folds run through the project's
:class:`~sparsekm.parallel.Executor` (local processes or Dask).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ..base import BinaryClassifierMixin, set_result_attributes

__all__ = ["CardinalityLinearSVCCV", "fit_grid"]

METHODS = ("path", "fast")
DEFAULT_OPTIONS = {"restarts": 1}   # fast's, for the folds and the refit


def fit_grid(X: np.ndarray, ypm: np.ndarray, grid: dict[str, Any],
             points: list[tuple[int, float]] | None = None) -> dict[tuple[int, float], Any]:
    """The grid's models on (X, ypm) by ``grid["method"]`` with ``grid["options"]``: a
    :class:`~sparsekm.solvers.Result` per (B, C) (``points``: only those, for ``fast``)."""
    from sparsekm.algorithms.fs_linear import solve_fs_linear
    from sparsekm.algorithms.fs_linear.budget_path import path_results
    from sparsekm.models.fs_linear import FSLinearProblem

    opts = dict(grid["options"])
    if grid["method"] == "path":
        return path_results(X, ypm, grid["Bs"], grid["Cs"], fast=opts)
    todo = points or [(B, C) for C in grid["Cs"] for B in grid["Bs"]]
    return {(B, C): solve_fs_linear(FSLinearProblem(X, ypm, B=B, C=C), "fast", **opts)
            for B, C in todo}


def _scores(X: np.ndarray, labels: np.ndarray, classes: np.ndarray, split: tuple,
            grid: dict[str, Any]) -> tuple[np.ndarray, float]:
    """One fold: the grid's models on its training rows (:func:`fit_grid`), each scored on
    its test rows; returns the (len(Cs), len(Bs)) scores and the seconds spent."""
    from sklearn.metrics import check_scoring

    t0 = time.perf_counter()
    train, test = split
    ypm = np.where(labels[train] == classes[1], 1.0, -1.0)
    fits = fit_grid(X[train], ypm, grid)
    model = _Fitted(classes)
    scorer = check_scoring(None, scoring=grid["scoring"] or "accuracy")
    out = np.empty((len(grid["Cs"]), len(grid["Bs"])))
    for (B, C), res in fits.items():
        model.coef_ = np.asarray(res.values["w"], float).reshape(1, -1)
        model.intercept_ = np.array([float(res.values["b"])])
        out[grid["Cs"].index(C), grid["Bs"].index(B)] = scorer(model, X[test], labels[test])
    return out, time.perf_counter() - t0


class _Fitted(BinaryClassifierMixin, ClassifierMixin, BaseEstimator):
    """A fold's linear classifier (coef_, intercept_) for scikit-learn's scorers."""

    def __init__(self, classes: Any = None) -> None:
        self.classes = classes

    @property
    def classes_(self) -> np.ndarray:
        return np.asarray(self.classes)

    def decision_function(self, X: Any) -> np.ndarray:
        return np.asarray(X) @ self.coef_[0] + self.intercept_[0]


class CardinalityLinearSVCCV(BinaryClassifierMixin, ClassifierMixin, SelectorMixin,
                             BaseEstimator):
    """Linear SVM with at most ``B`` features, (B, C) chosen by cross-validation (paper D).

    Parameters
    ----------
    Bs : budgets to try (clipped to n_features; duplicates dropped).
    Cs : penalties C > 0 to try (objective 1/2||w||^2 + C sum xi).
    cv : folds (int: stratified K-fold) or a scikit-learn splitter / iterable of splits.
    scoring : a scikit-learn scorer name or callable (None: accuracy).
    refit : refit the best (B, C) on all rows with the same method and options as the folds
        (``best_estimator_``, ``coef_``); with False only the grid results are kept.
    method : ``"path"`` (the (B, C) path: ``fast`` at every grid point, then every support
        found re-solved where it fits; entries never above ``fast``, monotone in B and C) or
        ``"fast"`` (``fast`` at each grid point alone).
    method_options : ``fast``'s options as ``solve fs-linear`` takes them (``candidates``,
        ``restarts``, ``seed``, ...), the same for the folds and the refit; defaults
        ``{"restarts": 1}`` (``fast`` alone: 20): the path pools the supports of all its grid
        points (on the wide synthetic set at B = 17-20 the pool lay 16-41 % below ``fast``
        with its 20 restarts); the whole selection's cost is in
        ``benchmarks/results/fs_linear_peers.md``.
    workers : processes for the folds (1: this process; -1: every core), or a
        :class:`sparsekm.parallel.Executor` or a Dask client.

    Attributes
    ----------
    B_, C_ : the chosen budget and penalty (best mean score; ties go to the smaller B, then
        the smaller C); best_score_ : its mean score; cv_results_ : ``params``,
        ``param_B``, ``param_C``, ``split{k}_test_score``, ``mean_test_score``,
        ``std_test_score``, ``rank_test_score``, and ``mean_fit_time`` (seconds per fold and
        grid point, the fold's time shared over its grid), ``method`` and
        ``method_options`` (per grid point: the model that scored it, the one the refit
        runs); best_estimator_ : a :class:`~sparsekm.estimators.CardinalityLinearSVC` holding
        the refit model (``result_``: its Result, ``extra["source"]`` where its support came
        from); coef_, intercept_, classes_, n_features_in_, feature_names_in_ as usual.
    """

    def __init__(self, Bs: tuple[int, ...] = (5, 10, 20),
                 Cs: tuple[float, ...] = (0.1, 1.0, 10.0), cv: Any = 5, scoring: Any = None,
                 refit: bool = True, method: str = "path", method_options: Any = None,
                 workers: Any = 1) -> None:
        self.Bs = Bs
        self.Cs = Cs
        self.cv = cv
        self.scoring = scoring
        self.refit = refit
        self.method = method
        self.method_options = method_options
        self.workers = workers

    def _grid(self, n: int) -> tuple[list[int], list[float]]:
        Bs = sorted({min(int(B), n) for B in np.atleast_1d(self.Bs)})
        Cs = [float(C) for C in np.atleast_1d(self.Cs)]
        if not Bs or Bs[0] < 1:
            raise ValueError(f"Bs={self.Bs!r}: give budgets >= 1")
        if not Cs or not all(np.isfinite(C) and C > 0 for C in Cs):
            raise ValueError(f"Cs={self.Cs!r}: give penalties C > 0")
        return Bs, Cs

    def _model(self) -> tuple[str, dict[str, Any]]:
        """The method and options of every fit (folds and refit alike)."""
        if self.method not in METHODS:
            raise ValueError(f"method={self.method!r}: use one of {', '.join(METHODS)}")
        return self.method, {**DEFAULT_OPTIONS, **dict(self.method_options or {})}

    def fit(self, X: Any, y: Any) -> CardinalityLinearSVCCV:
        """Cross-validate the (B, C) grid on (X, y), then refit the best on all rows."""
        from sklearn.model_selection import check_cv

        from sparsekm.parallel import as_executor

        X, ypm = self._binary_targets(X, y)
        labels = self.classes_[(ypm > 0).astype(int)]
        Bs, Cs = self._grid(X.shape[1])
        splits = list(check_cv(self.cv, labels, classifier=True).split(X, labels))
        method, options = self._model()
        grid = {"Bs": Bs, "Cs": Cs, "scoring": self.scoring, "method": method,
                "options": options}
        ex = as_executor(None, self.workers) if self.workers is None or \
            isinstance(self.workers, int) else as_executor(self.workers)
        done = ex.map(_scores, [X] * len(splits), [labels] * len(splits),
                      [self.classes_] * len(splits), splits, [grid] * len(splits))
        self._store_results(Bs, Cs, [d[0] for d in done], [d[1] for d in done])
        self.cv_results_["method"] = np.array([method] * len(self.cv_results_["params"]))
        self.cv_results_["method_options"] = [dict(options)
                                              for _ in self.cv_results_["params"]]
        if self.refit:
            self._refit(X, ypm, grid)
        return self

    def _store_results(self, Bs: list[int], Cs: list[float], scores: list[np.ndarray],
                       seconds: list[float]) -> None:
        params = [{"B": B, "C": C} for B in Bs for C in Cs]   # ordered by B, then C
        per_fold = np.array([[s[Cs.index(p["C"]), Bs.index(p["B"])] for p in params]
                             for s in scores])
        mean, std = per_fold.mean(axis=0), per_fold.std(axis=0)
        res: dict[str, Any] = {"params": params,
                               "param_B": np.array([p["B"] for p in params]),
                               "param_C": np.array([p["C"] for p in params])}
        for k, row in enumerate(per_fold):
            res[f"split{k}_test_score"] = row
        order = np.argsort(-mean, kind="stable")
        rank = np.empty(len(params), dtype=np.int32)
        rank[order] = np.arange(1, len(params) + 1)
        res.update(mean_test_score=mean, std_test_score=std, rank_test_score=rank,
                   mean_fit_time=np.full(len(params), np.mean(seconds) / len(params)))
        best = int(order[0])
        self.cv_results_ = res
        self.best_index_ = best
        self.B_, self.C_ = params[best]["B"], params[best]["C"]
        self.best_score_ = float(mean[best])

    def _refit(self, X: np.ndarray, ypm: np.ndarray, grid: dict[str, Any]) -> None:
        """The model of (B_, C_) on all rows, by the folds' method and options."""
        from .svc import CardinalityLinearSVC

        res = fit_grid(X, ypm, grid, points=[(self.B_, self.C_)])[(self.B_, self.C_)]
        est = CardinalityLinearSVC(B=self.B_, C=self.C_, method="fast",
                                   method_options=dict(grid["options"]))
        est.classes_, est.n_features_in_ = self.classes_, self.n_features_in_
        if hasattr(self, "feature_names_in_"):
            est.feature_names_in_ = self.feature_names_in_
        est.result_ = res
        est.coef_ = np.asarray(res.values["w"], dtype=float).reshape(1, -1)
        est.intercept_ = np.array([float(res.values["b"])])
        set_result_attributes(est, res)
        self.best_estimator_ = est
        self.coef_ = est.coef_
        self.intercept_ = est.intercept_
        self.result_ = res

    def decision_function(self, X: Any) -> np.ndarray:
        """w'x + b of the refit model (positive means classes_[1])."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.decision_function(
            validate_data(self, X, reset=False, dtype=np.float64))

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.get_support()
