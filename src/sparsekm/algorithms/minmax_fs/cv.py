"""Algorithm 1's first phase: N-fold CV of the SVM (10) over the (C, gamma) grid (NO-FS).

The grids of paper E, Section 4.2: gamma in {1e-4, ..., 1e4} (powers of ten, gamma_j = gamma
for every feature) and C in {1e-4, ..., 1e-1, 1, 2, ..., 9, 10, ..., 1e4} (read as 1e-4..1e-1,
the integers 1..10, then 1e2, 1e3, 1e4). The pair with the best mean validation accuracy wins.
The paper leaves ties open; by default (``tie="largest-C"``) the largest C among the tied pairs
wins (then the smallest gamma). Reason, measured: on separable data every C ties, and
scikit-learn's rule (``tie="smallest-C"``: the first, smallest C, then the smallest gamma) gives
(14) a lower level worth at most C m, so that any C2 >= 0.01 drives every gamma_j to 0 (two
Gaussian blobs, C* = 1e-4: all features dropped, accuracy 0.5). ``tie="smallest-gamma"`` is the
first maximum of a loop over gamma then C (the smallest gamma, then the smallest C).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["C_GRID", "CVStart", "GAMMA_GRID", "TIES", "cv_start", "decision_values",
           "fixed_or_grid", "svm_fit"]

C_GRID = (1e-4, 1e-3, 1e-2, 1e-1, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 1e2, 1e3,
          1e4)
GAMMA_GRID = tuple(10.0 ** k for k in range(-4, 5))
CV_SVM_TOL = 1e-3  # libsvm's default stopping tolerance for the many grid fits
TIES = ("largest-C", "smallest-C", "smallest-gamma")  # rules among pairs of equal CV accuracy


@dataclass
class CVStart:
    """The chosen (C*, gamma_ini) and the grid's mean validation accuracies."""

    C: float
    gamma: float
    accuracy: float
    table: np.ndarray = field(repr=False)          # (len(C_grid), len(gamma_grid))
    C_grid: tuple = C_GRID
    gamma_grid: tuple = GAMMA_GRID


def svm_fit(K: np.ndarray, y: np.ndarray, C: float, tol: float = CV_SVM_TOL,
            max_iter: int = 1_000_000) -> tuple[np.ndarray, float]:
    """(alpha, b) of the SVM dual (10) on a precomputed kernel (libsvm, no certificate)."""
    import warnings

    from sparsekm.engines.smo import fit_libsvm

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # a capped fit is still a usable classifier
        alpha, b, _, _ = fit_libsvm(np.ascontiguousarray(K), y, float(C), tol, max_iter, 200.0)
    return alpha, b


def decision_values(X_train: np.ndarray, y: np.ndarray, alpha: np.ndarray, b: float,
                    gamma: np.ndarray, X_new: np.ndarray) -> np.ndarray:
    """Score (9) plus b of new rows: sum_i alpha_i y_i K_gamma(x_i, x) + b (support only)."""
    sv = np.flatnonzero(alpha > 0)
    active = gamma > 0
    if not sv.size:
        return np.full(X_new.shape[0], float(b))
    if not active.any():
        return np.full(X_new.shape[0], float((alpha * y)[sv].sum() + b))
    from functools import partial

    from sparsekm.kernels import anisotropic_rbf_kernel, kernel_decision

    return kernel_decision(partial(anisotropic_rbf_kernel, weights=gamma[active]),
                           X_new[:, active], X_train[sv][:, active], (alpha * y)[sv], b)


def _fold_table(X: np.ndarray, y: np.ndarray, tr: np.ndarray, va: np.ndarray,
                C_grid: tuple, gamma_grid: tuple, deadline: Any = None) -> np.ndarray:
    """Validation accuracy of every (C, gamma) on one inner fold (NaN for the pairs the
    ``deadline`` left no time to fit; the clock is read before the fold's distances and
    each gamma's kernels too: on madelon they took 0.5 s a fold past the limit)."""
    from scipy.spatial.distance import cdist

    out = np.full((len(C_grid), len(gamma_grid)), np.nan)
    if deadline is not None and deadline.expired():
        return out
    D_tr = cdist(X[tr], X[tr], "sqeuclidean")
    D_va = cdist(X[va], X[tr], "sqeuclidean")
    for b_, g in enumerate(gamma_grid):
        if deadline is not None and deadline.expired():
            return out
        K, Kv = np.exp(-g * D_tr), np.exp(-g * D_va)
        for a_, C in enumerate(C_grid):
            if deadline is not None and deadline.expired():
                return out
            alpha, b = svm_fit(K, y[tr], C)
            d = Kv @ (alpha * y[tr]) + b
            out[a_, b_] = np.mean(np.where(d >= 0, 1.0, -1.0) == y[va])
    return out


def fixed_or_grid(value: float | None, grid: tuple) -> tuple:
    """The grid of one CV coordinate (C or gamma, Section 4.2): ``(value,)`` when a value is
    given (it fixes that coordinate), else ``grid``."""
    return (float(value),) if value is not None else tuple(grid)


def cv_start(X: np.ndarray, y: np.ndarray, *, folds: int = 5, seed: int = 0,
             C_grid: tuple = C_GRID, gamma_grid: tuple = GAMMA_GRID,
             tie: str = "largest-C", deadline: Any = None) -> CVStart:
    """Choose (C*, gamma_ini) by ``folds``-fold stratified CV of the SVM (10) (Algorithm 1).

    A one-point grid fixes that coordinate (:func:`fixed_or_grid`; both fixed: no CV, the
    accuracy is NaN); ``tie`` (one of :data:`TIES`) picks among pairs of equal mean accuracy.
    At the ``deadline`` the CV stops: the pairs fitted on every fold so far compete (the
    first pair when none was).
    """
    from sparsekm.data import kfold_splits

    if tie not in TIES:
        raise ValueError(f"tie={tie!r}: choose one of {', '.join(TIES)}")

    Cg, gg = tuple(C_grid), tuple(gamma_grid)
    if len(Cg) == 1 and len(gg) == 1:
        return CVStart(Cg[0], gg[0], float("nan"), np.full((1, 1), np.nan), Cg, gg)
    splits = kfold_splits(y, k=folds, seed=seed, name="cv_folds")
    table = np.mean([_fold_table(X, y, tr, va, Cg, gg, deadline) for tr, va in splits],
                    axis=0)
    if np.isnan(table).all():        # no pair fitted in time: the first one
        return CVStart(Cg[0], gg[0], float("nan"), table, Cg, gg)
    table = np.where(np.isnan(table), -np.inf, table)
    best = float(table.max())
    ties = np.argwhere(table >= best - 1e-12)          # row-major: C ascending, gamma ascending
    if tie == "smallest-gamma":
        b_ = int(ties[:, 1].min())
        a_ = int(ties[ties[:, 1] == b_, 0].min())
    else:
        a_ = int(ties[:, 0].max() if tie == "largest-C" else ties[:, 0].min())
        b_ = int(ties[ties[:, 0] == a_, 1].min())
    return CVStart(Cg[a_], gg[b_], best, table, Cg, gg)


def nofs_summary(cv: CVStart) -> dict[str, Any]:
    """JSON-ready summary of a CV choice."""
    return {"C": cv.C, "gamma": cv.gamma, "cv_accuracy": cv.accuracy}
