"""Paper E, Algorithm 1 on one training sample S~: CV start, (18), solve (14)/(20), re-solve (10).

1. N-fold CV of the SVM (10) over the (C, gamma) grid with gamma_j = gamma for all j
   (:func:`~sparsekm.algorithms.minmax_fs.cv.cv_start`) -> (C*, gamma_ini): the NO-FS model.
2. The lower-level dual (18) at (C*, gamma_ini): alpha_ini, nu_ini, lambda0_ini, lambdaC_ini
   (from the SVM's KKT conditions, :func:`~sparsekm.models.minmax_fs.lower_level`; the
   ``lower-dual`` Pyomo model has the same optimum, a test checks it).
3. (14) by the chosen route from there: ``fast`` (value function), ``ipopt`` or ``scip`` (20)
   (``nofs``: the start itself, Table 2's NO-FS). With ``Start(starts=k)`` the route also runs
   from gamma_ini scaled by 10^-1, 10, 10^-2, 10^2, ... (the neighbours in the CV's gamma grid;
   a multistart the paper does not use) and the lowest (14) wins.
4. The SVM (10) re-solved at the found gamma (inside every route).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from sparsekm import registry
from sparsekm.models.minmax_fs import MinMaxFSProblem
from sparsekm.models.minmax_fs.lower import kernel
from sparsekm.solvers import Result, SolverPlan

from .cv import (
    C_GRID,
    GAMMA_GRID,
    cv_start,
    decision_values,
    fixed_or_grid,
    nofs_summary,
    svm_fit,
)

__all__ = ["C2_GRID", "Start", "algorithm1", "multistart", "predict_scores", "start_gammas"]

C2_GRID = (0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.99)   # Section 4.2


@dataclass(frozen=True)
class Start:
    """How Algorithm 1 picks (C*, gamma_ini): a ``folds``-fold CV (seeded) over the grids,
    with ``C`` / a scalar ``gamma0`` fixing that coordinate (both given: no CV, the CLI's
    ``--gamma0``); a per-feature ``gamma0`` needs ``C``. ``tie``: the CV's rule among equal
    accuracies (:data:`~sparsekm.algorithms.minmax_fs.cv.TIES`); ``starts``: route runs from
    :func:`start_gammas` (1: the paper's single start)."""

    C: float | None = None
    gamma0: Any = None
    folds: int = 5
    seed: int = 0
    C_grid: tuple = C_GRID
    gamma_grid: tuple = GAMMA_GRID
    tie: str = "largest-C"
    starts: int = 1


def start_gammas(gamma0: Any, starts: int) -> list[Any]:
    """``gamma0`` and then gamma0 * 10^-1, 10, 10^-2, 10^2, ...: ``starts`` points in all."""
    if starts < 1:
        raise ValueError(f"starts={starts}: give at least 1")
    factors = [1.0] + [10.0 ** (s * k) for k in range(1, starts) for s in (-1, 1)]
    return [np.asarray(gamma0, dtype=float) * f for f in factors[:starts]]


def multistart(entry: Any, problem: MinMaxFSProblem, plan: SolverPlan, gamma0: Any,
               starts: int, options: dict[str, Any]) -> Result:
    """The route ``entry`` from each of :func:`start_gammas`; the lowest (14) wins (its
    ``extra["start_values"]`` lists every start's (14), the first being the paper's)."""
    best, values = None, []
    for g in start_gammas(gamma0, starts):
        res = entry(problem, plan, gamma0=g, **options)
        values.append(res.objective)
        if best is None or res.objective < best.objective:
            best = res
    if starts > 1:
        best.extra["start_values"] = values
    return best


CV_SHARE = 0.6   # of the time left given to the CV start, so that the NO-FS fit, the route
                 # and the predictions fit in the rest (spambase, a 5 s limit: the CV used all
                 # of it and the run ended 1.1 s late)


def algorithm1(X: np.ndarray, y: np.ndarray, *, C2: float = 0.5, p: float = 1.0,
               method: str = "fast", plan: SolverPlan | None = None, start: Start = Start(),
               method_options: dict[str, Any] | None = None) -> Result:
    """Algorithm 1 on training rows (X, y) (already scaled): the route's :class:`Result`.

    ``extra["cv"]`` holds C*, gamma_ini and the CV accuracy; ``extra["C"]`` the C used;
    ``time_s`` includes the CV (``extra["method_time_s"]`` is the route alone). After the CV,
    ``extra["nofs_svm"]`` is the NO-FS SVM (gamma_j = gamma_ini, penalty C*) on all rows as
    ``(alpha, b)``, fitted within the plan's time (the paper's baseline).
    """
    import time

    t0 = time.perf_counter()
    plan = (plan or SolverPlan()).start()
    entry = registry.get("minmax-fs", "method", method)
    C, gamma0 = start.C, start.gamma0
    vector = gamma0 is not None and np.ndim(gamma0) > 0
    if vector and C is None:
        raise ValueError("a per-feature gamma0 needs C as well (the CV grid is isotropic); "
                         "pass C= or a scalar gamma0")
    MinMaxFSProblem(X, y, C=1.0 if C is None else C, C2=C2, p=p)    # validate early
    if vector:
        C_star, g0, cvinfo = float(C), gamma0, {"C": float(C), "gamma": None,
                                                 "cv_accuracy": None}
    else:
        cv = cv_start(X, y, folds=start.folds, seed=start.seed,
                      C_grid=fixed_or_grid(C, start.C_grid),
                      gamma_grid=fixed_or_grid(gamma0, start.gamma_grid), tie=start.tie,
                      deadline=plan.clock.part(share=CV_SHARE))
        C_star, g0, cvinfo = cv.C, cv.gamma, nofs_summary(cv)
        nofs = svm_fit(kernel(X, np.full(X.shape[1], cv.gamma)), y, cv.C)
        plan.progress(f"minmax-fs Algorithm 1: C* = {cv.C:g}, gamma_ini = {cv.gamma:g} "
                      f"(CV accuracy {cv.accuracy:.4f})")
    problem = MinMaxFSProblem(X, y, C=C_star, C2=C2, p=p)
    res = multistart(entry, problem, plan, g0, start.starts, method_options or {})
    res.extra.update(cv=cvinfo, C=C_star, method_time_s=res.time_s)
    if not vector:
        res.extra["nofs_svm"] = nofs
    res.time_s = time.perf_counter() - t0            # CV included
    return res


def predict_scores(X_train: np.ndarray, y: np.ndarray, res: Result,
                   X_new: np.ndarray) -> np.ndarray:
    """Decision values of new rows for a paper-E result (its gamma, alpha and b)."""
    return decision_values(X_train, y, np.asarray(res.alpha), float(res.b),
                           np.asarray(res.gamma), X_new)
