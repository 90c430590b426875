"""Exact solution of Paper A's problem (4) by enumerating all masks (small n).

Every ``beta`` with ``sum beta = B`` is evaluated by the alpha-subproblem (3); the best in the
chosen sense is a certified optimum (up to the SVM solver's KKT tolerance, 1e-5). Masks are
visited in lexicographic order of their index tuples, in contiguous chunks spread over the
plan's executor; within a chunk consecutive masks differ in few features so the masked kernel
is updated incrementally. The result (ties to the lexicographically first mask) does not depend
on the number of workers.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from sparsekm.kernels import mask_from_indices
from sparsekm.models.fs_kernel import FSKernelProblem
from sparsekm.parallel import as_executor
from sparsekm.registry import register
from sparsekm.solvers import Result, SolverPlan

from .evaluator import Evaluator, mask_result, single_blas

__all__ = ["all_mask_objectives", "enumerate_masks"]

MAX_MASKS = 200_000


@single_blas
def _chunk(problem: FSKernelProblem, start: int, stop: int) -> np.ndarray:
    ev = Evaluator(problem)
    out = np.empty(stop - start)
    combos = itertools.islice(itertools.combinations(range(problem.n), problem.B), start, stop)
    for k, idx in enumerate(combos):
        beta = mask_from_indices(idx, problem.n)
        out[k] = ev.solve_mask(beta)[2]  # each mask once: no cache
    return out


def all_mask_objectives(problem: FSKernelProblem, plan: SolverPlan | None = None,
                        workers: int | None = None
                        ) -> tuple[list[tuple[int, ...]], np.ndarray]:
    """Objective ``min_alpha f(alpha, beta)`` of every mask, in lexicographic order.

    Runs on ``plan.executor`` when given, else on ``workers`` local processes (None: all
    cores); small jobs (< 400 masks) run in this process.
    """
    total = math.comb(problem.n, problem.B)
    if total > MAX_MASKS:
        raise ValueError(f"enumeration would evaluate C({problem.n}, {problem.B}) = {total} masks "
                         f"(limit {MAX_MASKS}); use method 'ls-star' or 'decsub' for this size")
    combos = list(itertools.combinations(range(problem.n), problem.B))
    ex = as_executor(plan.executor if plan else None, workers)
    if not ex.parallel or total < 400:
        return combos, _chunk(problem, 0, total)
    bounds = np.linspace(0, total, 4 * ex.workers + 1).astype(int)
    parts = ex.map(_chunk, [problem] * (len(bounds) - 1), bounds[:-1], bounds[1:])
    return combos, np.concatenate(parts)


@register("fs-kernel", "method", "enumerate", paper="A", ref="problem (4), by enumeration")
@single_blas
def enumerate_masks(problem: FSKernelProblem, plan: SolverPlan, *,
                    workers: int | None = None) -> Result:
    """Certified optimum of (4) (paper sense) or of the margin sense by enumeration.

    ``extra["objectives"]`` holds every mask's objective (lexicographic order of
    ``itertools.combinations``).
    """
    plan = plan.start()
    combos, objs = all_mask_objectives(problem, plan, workers)
    k = int(np.argmin(problem.sign * objs))
    beta = mask_from_indices(combos[k], problem.n)
    alpha, b, _ = Evaluator(problem).solve_mask(beta)
    res = mask_result(problem, beta, float(objs[k]), alpha, b, "enumerate")
    res.certify(float(objs[k]))
    res.time_s = plan.clock.elapsed()
    res.extra = {"objectives": objs, "n_masks": len(combos), "n_evals": len(combos)}
    return res
