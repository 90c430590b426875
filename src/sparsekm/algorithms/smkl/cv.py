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
    D._buf = None  # noqa: SLF001 - the combine() buffer is per-size
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
    validation accuracy, every point's accuracy and the time.
    """
    from sklearn.model_selection import StratifiedKFold

    t0 = time.perf_counter()
    options = options or {}
    keys = [k for k in ("C", "lam", "k0") if k in grid]
    points = [dict(zip(keys, v)) for v in itertools.product(*(grid[k] for k in keys))]
    points = [pt for pt in points if pt.get("k0", problem.k0) <= problem.q]
    if folds < 2:
        raise ValueError(f"folds={folds}: cross-validation needs at least 2 folds")
    if not points:
        raise ValueError("the CV grid is empty: give at least one value per key")
    splits = list(StratifiedKFold(folds, shuffle=True, random_state=seed)
                  .split(np.zeros(problem.m), problem.y))
    scores = np.zeros(len(points))
    for tr, va in splits:
        K_val = problem.K[:, va][:, :, tr]
        for i, pt in enumerate(points):
            sub = restrict(problem, tr, **pt)
            scores[i] += _accuracy(sub, method(sub, plan, **options), K_val,
                                   problem.y[va]) / folds
    order = sorted(range(len(points)), key=lambda i: (-scores[i], points[i].get("k0", 0), i))
    best = points[order[0]]
    final = restrict(problem, None, **best)
    res = method(final, plan, **options)
    summary = {"cv_params": best, "cv_accuracy": float(scores[order[0]]), "cv_folds": folds,
               "cv_table": [{**pt, "accuracy": float(s)} for pt, s in zip(points, scores)],
               "cv_time_s": time.perf_counter() - t0}
    return res, summary
