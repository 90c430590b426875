"""Paper B's hyperparameter tuning (Section 5.1) for any smkl method: k-fold CV over (C, lam, k0).

"For Algorithm 1, we perform 10-fold cross-validation over the training set to select the
regularization and sparsity parameters from the grid C in {5, 10, 50, 100}, lam in {0.01, 0.1,
1, 10, 100}, k0 in {1, ..., 5} ... Once the best hyperparameters are identified, each model is
retrained on the full training set and evaluated on the withheld test set."

:func:`cross_validate` runs a registered method on every fold's training rows for every grid
point (the kernel stack is computed once and sliced, never recomputed), scores the validation
rows, keeps the point of best mean accuracy (ties: the smaller k0, then the grid order) and
refits on all rows. ``sparsekm solve smkl --cv-folds 10`` makes it one grid run.
"""

from __future__ import annotations

import copy
import itertools
import time
from typing import Any

import numpy as np

from sparsekm.models.smkl.problem import SMKLProblem

__all__ = ["cross_validate", "restrict"]


def restrict(problem: SMKLProblem, rows: np.ndarray | None, **params: Any) -> SMKLProblem:
    """The problem on a subset of its rows (kernels sliced from the stack; ``None``: all rows,
    the stack shared), with ``params`` (C, lam, k0) replacing the problem's own."""
    kw = {"C": problem.C, "lam": problem.lam, "k0": problem.k0, **params}
    if rows is None:
        return SMKLProblem(problem.X, problem.y, problem.kernels, kw["k0"], kw["C"], kw["lam"],
                           problem.normalize, problem.dictionary)
    D = copy.copy(problem.dictionary)
    D.K = problem.K[:, rows][:, :, rows]
    D.X = problem.X[rows]
    return SMKLProblem(problem.X[rows], problem.y[rows], problem.kernels, kw["k0"], kw["C"],
                       kw["lam"], problem.normalize, D)


def _accuracy(sub: SMKLProblem, res: Any, K_val: np.ndarray, y_val: np.ndarray) -> float:
    beta = np.asarray(res.values["beta"], dtype=float)
    dec = sub.dictionary.combine(beta, stack=K_val) @ (res.values["alpha"] * sub.y)
    return float(np.mean(np.where(dec + res.values["b"] >= 0, 1.0, -1.0) == y_val))


def cross_validate(problem: SMKLProblem, method: Any, grid: dict[str, tuple], *, folds: int,
                   seed: int = 0, plan: Any = None, options: dict[str, Any] | None = None
                   ) -> tuple[Any, dict[str, Any]]:
    """(the method refitted on all rows at the best grid point, CV summary).

    ``grid`` maps "C", "lam", "k0" to the values tried (a key left out keeps the problem's);
    grid points with k0 > q are skipped. The summary holds the chosen point, its mean
    validation accuracy, every point's accuracy and the time. The plan's clock is read
    between grid points: a point not scored on every fold by the limit is left out (accuracy
    None), the best of those scored is refitted (none scored: the problem's own parameters)
    and the result's termination is ``time_limit``.
    """
    from sklearn.model_selection import StratifiedKFold

    from sparsekm.solvers import Termination

    t0 = time.perf_counter()
    options = options or {}
    keys = [k for k in ("C", "lam", "k0") if k in grid]
    points = [dict(zip(keys, v)) for v in itertools.product(*(grid[k] for k in keys))]
    points = [pt for pt in points if pt.get("k0", problem.k0) <= problem.q]
    smallest = int(min(np.sum(problem.y > 0), np.sum(problem.y < 0)))
    if folds < 2 or folds > smallest:
        from sparsekm.declare import ParamError

        raise ParamError("cv_folds", folds, f"give 2 to {smallest} folds (stratified folds: "
                         "each holds a training row of the smaller class)" if smallest >= 2
                         else "the smaller class has one training row: no stratified CV")
    if not points:
        raise ValueError("the CV grid is empty: give at least one value per key")
    splits = list(StratifiedKFold(folds, shuffle=True, random_state=seed)
                  .split(np.zeros(problem.m), problem.y))
    clock = None if plan is None else plan.clock
    K_val = [problem.K[:, va][:, :, tr] for tr, va in splits]
    scores = np.full(len(points), np.nan)
    for i, pt in enumerate(points):   # every fold of a point, then the next point
        if clock is not None and clock.expired():
            break
        acc = 0.0
        for (tr, va), Kv in zip(splits, K_val):
            sub = restrict(problem, tr, **pt)
            acc += _accuracy(sub, method(sub, plan, **options), Kv, problem.y[va]) / folds
        scores[i] = np.nan if clock is not None and clock.expired() else acc
    scored = [i for i in range(len(points)) if not np.isnan(scores[i])]
    order = sorted(scored, key=lambda i: (-scores[i], points[i].get("k0", 0), i))
    best = points[order[0]] if order else {}
    final = restrict(problem, None, **best)
    res = method(final, plan, **options)
    if len(scored) < len(points):
        res.termination = Termination.TIME_LIMIT
    summary = {"cv_params": {k: getattr(final, k) for k in keys},
               "cv_accuracy": float(scores[order[0]]) if order else None, "cv_folds": folds,
               "cv_table": [{**pt, "accuracy": None if np.isnan(s) else float(s)}
                            for pt, s in zip(points, scores)],
               "cv_time_s": time.perf_counter() - t0}
    return res, summary
