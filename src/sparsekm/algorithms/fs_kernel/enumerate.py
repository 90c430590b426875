"""Exact solution of Paper A's problem (4) by enumerating all masks (small n).

Every ``beta`` with ``sum beta = B`` is evaluated by the alpha-subproblem (3); the best in the
chosen sense is a certified optimum (its value and the bound are the two certified sides of
the masks' SVM duality intervals, so they hold whatever libsvm's accuracy). Masks are
visited in lexicographic order of their index tuples, in contiguous chunks spread over the
plan's executor; within a chunk consecutive masks differ in few features so the masked kernel
is updated incrementally. The result (ties to the lexicographically first mask) does not depend
on the number of workers.

The bound: each mask's SVM dual gives its objective ``D(alpha) >= D*(beta)`` and a certified
lower bound ``-P(w(alpha), b*) <= D*(beta)`` (weak duality). In the paper sense (min over
masks) the least lower bound is a lower bound on the optimum; in the margin sense (max) the
largest objective is an upper bound; the masks that keep it off the result are re-solved to a
tight gap (:func:`_tighten`). Every SVM solve is capped by the time left (libsvm's iterations,
then the engine's clock: one unscaled wine mask took 24.6 million libsvm iterations), and the
plan's clock stops the enumeration (every chunk, on every worker, checks it): a partial
enumeration returns the best mask met, with termination ``time_limit`` and no bound (the
masks not evaluated are not bounded).
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import replace

import numpy as np

from sparsekm.declare import Annotated, with_
from sparsekm.kernels import mask_from_indices
from sparsekm.models.fs_kernel import FSKernelProblem
from sparsekm.parallel import as_executor
from sparsekm.registry import register, uses_solvers
from sparsekm.solvers import Result, SolverPlan, Termination
from sparsekm.solvers.result import DEFAULT_GAP_TOL
from sparsekm.specs import WORKERS

from .evaluator import SVM_TOL, Evaluator, certified_value, mask_result, single_blas
from .preload import tiny_problem
from .specs import SVM_DUALS

__all__ = ["all_mask_objectives", "enumerate_masks"]

MAX_MASKS = 200_000
TIGHTEN_MAX = 32     # masks near the bound re-solved to a tight duality gap (see _tighten)


def _until(plan: SolverPlan | None) -> float | None:
    """The plan's deadline as a ``time.time()`` reading (None without a limit): the same
    moment in every local worker process."""
    if plan is None:
        return None
    rem = plan.clock.remaining()
    return None if math.isinf(rem) else time.time() + rem


@single_blas
def _chunk(problem: FSKernelProblem, start: int, stop: int, until: float | None = None
           ) -> tuple[np.ndarray, np.ndarray, tuple | None]:
    """(objective D(alpha), certified lower bound -P) of masks ``start:stop`` (NaN for those
    not evaluated by ``until``; the very first mask is always evaluated), and ``(alpha, b)``
    of the chunk's best mask (None when it evaluated none): the caller needs no SVM solve of
    its own (its first one loads the compiled solver, 0.78 s on ionosphere)."""
    from sparsekm.engines.smo import SVMDualOptions, solve_svm_dual

    ev = Evaluator(problem)
    obj, low = np.full(stop - start, np.nan), np.full(stop - start, np.nan)
    best, best_score = None, np.inf
    opts = SVMDualOptions(tol=SVM_TOL, check_input=False)
    combos = itertools.islice(itertools.combinations(range(problem.n), problem.B), start, stop)
    for k, idx in enumerate(combos):
        first = start + k == 0
        left = math.inf if until is None else until - time.time()
        if left <= 0 and not first:
            break
        capped = opts if math.isinf(left) else replace(opts, time_limit=max(left, 0.01))
        res = solve_svm_dual(ev.kernel(mask_from_indices(idx, problem.n)), problem.y,
                             problem.C, options=capped)  # each mask once: no cache
        if res.termination != Termination.CONVERGED and capped is not opts and not first:
            break                # cut by the time left: the mask stays unevaluated
        obj[k] = res.objective   # cut or not, D(alpha) >= v(beta) >= -P: both certified
        low[k] = np.nan if res.bound is None else res.bound
        if problem.sign * obj[k] < best_score:
            best, best_score = (res.alpha, float(res.b)), problem.sign * obj[k]
    return obj, low, best


def _evaluate(problem: FSKernelProblem, plan: SolverPlan | None, workers: int | None
              ) -> tuple[list[tuple[int, ...]], np.ndarray, np.ndarray, tuple]:
    """Every mask's (objective, lower bound) and ``(alpha, b)`` of the best one."""
    total = math.comb(problem.n, problem.B)
    if total > MAX_MASKS:
        raise ValueError(f"enumeration would evaluate C({problem.n}, {problem.B}) = {total} masks "
                         f"(limit {MAX_MASKS}); use method 'ls-star' or 'decsub' for this size")
    combos = list(itertools.combinations(range(problem.n), problem.B))
    until = _until(plan)
    ex = as_executor(plan.executor if plan else None, workers)
    if not ex.parallel or total < 400:
        obj, low, best = _chunk(problem, 0, total, until)
        return combos, obj, low, best
    bounds = np.linspace(0, total, 4 * ex.workers + 1).astype(int)
    k = len(bounds) - 1
    parts = ex.map(_chunk, [problem] * k, bounds[:-1], bounds[1:], [until] * k)
    obj = np.concatenate([p[0] for p in parts])
    first = int(np.nanargmin(problem.sign * obj))     # the first best mask, as serially
    return (combos, obj, np.concatenate([p[1] for p in parts]),
            parts[int(np.searchsorted(bounds, first, side="right")) - 1][2])


def all_mask_objectives(problem: FSKernelProblem, plan: SolverPlan | None = None,
                        workers: int | None = None
                        ) -> tuple[list[tuple[int, ...]], np.ndarray]:
    """Objective ``min_alpha f(alpha, beta)`` of every mask, in lexicographic order (NaN for
    the masks not evaluated within the plan's time limit).

    Runs on ``plan.executor`` when given, else on ``workers`` local processes (None: all
    cores); small jobs (< 400 masks) run in this process.
    """
    combos, obj, _, _ = _evaluate(problem, plan, workers)
    return combos, obj


def warm_up() -> None:
    """Load the SVM solver's compiled code here, before workers are forked from this process:
    each worker loaded it at its first mask (0.78 s), and one that started near the limit
    ended that much past it (ionosphere B = 3 on 2 workers: up to 0.76 s). The SMO engine too:
    a libsvm solve that fails or is cut by the time left continues in it."""
    from sparsekm.engines.smo import load_engine

    _chunk(tiny_problem(), 0, 3)
    load_engine()


ENUMERATION_WORKERS = with_(WORKERS, help="Worker processes of the enumeration (none: every "
                            "core; the plan's executor takes precedence).")


@register("fs-kernel", "method", "enumerate", paper="A", ref="problem (4), by enumeration",
          warm_up=warm_up)
@single_blas
@uses_solvers(svm=SVM_DUALS)
def enumerate_masks(problem: FSKernelProblem, plan: SolverPlan, *,
                    workers: Annotated[int | None, ENUMERATION_WORKERS] = None) -> Result:
    """Certified optimum of (4) (paper sense) or of the margin sense by enumeration.

    ``extra["objectives"]`` holds every mask's objective (lexicographic order of
    ``itertools.combinations``; NaN for a mask not evaluated within the time limit, which
    then returns the best mask met, termination ``time_limit`` and no bound).
    """
    plan = plan.start()
    combos, objs, lows, (alpha, b) = _evaluate(problem, plan, workers)
    done = ~np.isnan(objs)
    k = int(np.nanargmin(problem.sign * objs))
    beta = mask_from_indices(combos[k], problem.n)
    res = mask_result(problem, beta, float(objs[k]), alpha, b, "enumerate", plan.clock)
    if not done.all():
        res.termination = Termination.TIME_LIMIT
        res.message = (f"time limit: {int(done.sum())} of {len(combos)} masks evaluated; a "
                       "partial enumeration certifies no bound")
    else:
        res = _tighten(problem, combos, objs, lows, res, plan)
    res.time_s = plan.clock.elapsed()
    res.extra = {"objectives": objs, "n_masks": len(combos), "n_evals": int(done.sum())}
    return res


def _tighten(problem: FSKernelProblem, combos: list[tuple[int, ...]], objs: np.ndarray,
             lows: np.ndarray, res: Result, plan: SolverPlan) -> Result:
    """The complete enumeration's certified bound, with the masks that hold it off the
    result's value re-solved to a tight duality gap (:func:`.evaluator.certified_value`).

    Every mask's SVM brackets its value, ``-P <= v(beta) <= D``: the bound is the largest
    ``D`` (margin sense) or the least ``-P`` (paper sense), and the result reports the best
    mask's certified side. libsvm's tolerance leaves each interval up to 7e-5 wide (sonar,
    C = 10), so the masks whose loose side passes the result's value by more than a tenth of
    the tolerance are refined, loosest first (at most ``TIGHTEN_MAX``, within the time
    limit); one whose certified side then beats the result becomes the result.
    """
    sign = problem.sign
    loose = np.where(np.isnan(lows), -np.inf, lows) if sign > 0 else objs.copy()
    refined: set[int] = set()
    ev = Evaluator(problem)
    while len(refined) < TIGHTEN_MAX and not plan.clock.expired():
        margin = 0.1 * DEFAULT_GAP_TOL * abs(res.objective)
        order = [i for i in np.argsort(sign * loose, kind="stable") if int(i) not in refined]
        if not order or sign * (res.objective - loose[order[0]]) <= margin:
            break
        i = int(order[0])
        refined.add(i)
        beta = mask_from_indices(combos[i], problem.n)
        alpha, b, _ = ev.solve_mask(beta)
        value, other, _, _ = certified_value(problem, beta, alpha, plan.clock)
        loose[i] = other
        if sign * value < sign * res.objective:
            res = mask_result(problem, beta, float(objs[i]), alpha, b, "enumerate",
                              plan.clock)
    bound = float(np.min(loose) if sign > 0 else np.max(loose))
    res.certify(bound if np.isfinite(bound) else None)
    return res
