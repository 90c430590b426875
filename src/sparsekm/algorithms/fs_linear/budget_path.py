"""A path of FS-SVM (2) of paper D over the budget B and the penalty C, never worse than
``fast`` and never worse than a support it has already met.

1. At every grid point (B, C) the registered ``fast`` method runs exactly as
   ``sparsekm solve fs-linear --method fast`` would (same options, same seed, the same front
   door, so the same support): the entry starts at ``fast``'s objective.
2. Every support found at any point joins a pool (:mod:`.pool`); each entry is offered the
   best pooled support that fits its budget, re-solved at its C, and the swap search runs
   from it when it is lower; new supports join the pool, until nothing changes.
3. A sweep makes the entries non-increasing in B and non-decreasing in C exactly (the point
   of (B - 1, C), and the point of (B, C+) evaluated at the smaller C, are feasible there).

So each entry is at or below ``fast`` at (B, C) and at or below every support met anywhere on
the path re-solved at (B, C). Measured before this design (issue 27, colorectal, B = 1..20,
C = 1): the warm-started path without it lay above ``fast`` at 9 of 20 budgets (B = 4:
+24 %), and ``fast`` alone broke monotonicity in C in 32 of 135 (B, fold) pairs of 5-fold CV
on colorectal, lymphoma and dlbcl (``benchmarks/results/fs_linear_peers.md``).

With ``cold=False`` (``--warm-only``) step 1 is replaced by one swap search per budget from
the previous budget's support plus its features of largest dual correlation |X_j'(alpha y)|
(cheaper; no guarantee against ``fast``); steps 2-3 are kept.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.solvers import Result, SolverPlan

from .pool import SupportPool, entry_dict, monotone_sweep, pool_improve
from .swap import SwapOptions, full_svm_dual, grow_support, swap_search

__all__ = ["fs_linear_path", "path_budgets", "path_results", "swap_options"]


def path_budgets(Bs: Sequence[int], n: int) -> list[int]:
    """The budgets of a path: distinct integers in [1, n], increasing."""
    out = sorted({int(B) for B in Bs})
    if not out:
        raise ValueError("the path needs at least one budget B")
    if out[0] < 1 or out[-1] > n:
        raise ValueError(f"budgets must lie in [1, n = {n}]; got {out[0]}..{out[-1]}")
    return out


def _fast(problem: FSLinearProblem, plan: SolverPlan, fast: dict[str, Any]) -> Result:
    """The registered ``fast`` through the front door (as ``solve fs-linear`` runs it)."""
    from sparsekm.algorithms.fs_linear import solve_fs_linear

    return solve_fs_linear(problem, "fast", plan, **fast)


def swap_options(fast: dict[str, Any] | None) -> SwapOptions:
    """The swap search's options among ``fast``'s (flat, as ``solve fs-linear`` takes them)."""
    fields = SwapOptions.__dataclass_fields__
    return SwapOptions(**{k: v for k, v in (fast or {}).items() if k in fields})


def _warm(problem: FSLinearProblem, plan: SolverPlan, options: SwapOptions,
          prev: Result | None) -> Result:
    """One swap search from the previous budget's support grown by dual correlation."""
    if prev is None or "alpha" not in prev.values:
        d = problem.X.T @ (full_svm_dual(problem, plan.clock) * problem.y)
        S = grow_support(np.empty(0, np.int64), d, problem.B)
    else:
        d = problem.X.T @ (prev.values["alpha"] * problem.y)
        S = grow_support(np.asarray(prev.selected, dtype=np.int64), d, problem.B)
    return swap_search(problem, plan, start=S, options=options)


def path_results(X: np.ndarray, y: np.ndarray, Bs: Sequence[int], Cs: Sequence[float] = (1.0,),
                 *, plan: SolverPlan | None = None, cold: bool = True,
                 fast: dict[str, Any] | None = None) -> dict[tuple[int, float], Result]:
    """The path's entries as :class:`~sparsekm.solvers.Result` per (B, C) (see
    :func:`fs_linear_path`); ``extra["source"]`` says where each support came from."""
    plan = (plan or SolverPlan()).start()
    options = swap_options(fast)
    if not len(Cs):
        raise ValueError("the path needs at least one penalty C")
    base = FSLinearProblem(np.asarray(X, dtype=float), np.asarray(y, dtype=float), B=1,
                           C=float(Cs[0]))
    budgets = path_budgets(Bs, base.n)
    pool = SupportPool(base)
    grid: dict[tuple[int, float], Result] = {}
    for C in dict.fromkeys(float(C) for C in Cs):
        prev = None
        for B in budgets:
            if plan.clock.expired():
                break
            t0 = time.perf_counter()
            pb = replace(base, B=B, C=C)
            res = _fast(pb, plan, fast or {}) if cold else _warm(pb, plan, options, prev)
            res.time_s = time.perf_counter() - t0
            res.extra["source"] = "fast" if cold else "warm swap search"
            grid[(B, C)] = prev = res
            pool.add(res.selected or [], f"B={B}, C={C:g}")
    t0 = time.perf_counter()
    pool_improve(grid, pool, plan, options)
    monotone_sweep(grid, base)
    share = (time.perf_counter() - t0) / max(len(grid), 1)
    for res in grid.values():
        res.time_s = (res.time_s or 0.0) + share
    return grid


def fs_linear_path(X: np.ndarray, y: np.ndarray, Bs: Sequence[int],
                   Cs: Sequence[float] = (1.0,), *, plan: SolverPlan | None = None,
                   cold: bool = True, bound: bool = False, fast: dict[str, Any] | None = None
                   ) -> list[dict[str, Any]]:
    """FS-SVM (2) on (X, y) for every B in ``Bs`` and C in ``Cs``: one dict per (C, B), in
    the order of ``Cs``, budgets increasing (module docstring for the method).

    ``fast``: ``fast``'s options as ``solve fs-linear`` takes them (``restarts``, ``seed``,
    ``candidates``, ...; those of the swap search, :class:`~.swap.SwapOptions`, also serve
    the pool's searches). Each entry: ``B, C, selected, objective`` (a feasible point of (2)),
    ``lower_bound`` (the perspective bound at the dual points ``fast`` met there, certified),
    ``status``, ``termination``, ``time_s``, ``w`` (n), ``b``, ``evaluations``, ``source``
    (``fast``, or where the support came from); with ``bound`` also ``perspective_bound``:
    the registered relaxation ``perspective-dual`` (paper D, the dual of DSCoP (13)) solved
    for that B, certified, and ``gap``. ``plan``'s time limit covers the whole path (points
    not reached are left out).
    """
    plan = (plan or SolverPlan()).start()
    grid = path_results(X, y, Bs, Cs, plan=plan, cold=cold, fast=fast)
    rows = [entry_dict(grid[(B, C)], B, C)
            for C in dict.fromkeys(float(C) for C in Cs)
            for B in path_budgets(Bs, np.shape(X)[1]) if (B, C) in grid]
    if bound:
        _add_bounds(FSLinearProblem(np.asarray(X, dtype=float), np.asarray(y, dtype=float),
                                    B=1, C=float(Cs[0])), rows, plan)
    return rows


def _add_bounds(base: FSLinearProblem, rows: list[dict[str, Any]], plan: SolverPlan) -> None:
    """The perspective-dual relaxation's certified bound for each entry (and the gap)."""
    from sparsekm.relaxations.fs_linear import solve_relaxation
    from sparsekm.solvers import relative_gap

    for row in rows:
        if plan.clock.expired():
            row["perspective_bound"] = None
            continue
        r = solve_relaxation(replace(base, B=row["B"], C=row["C"]), "perspective-dual", plan)
        row["perspective_bound"] = r.bound
        row["bound_solver"] = r.solver
        if r.bound is not None and (row["lower_bound"] is None or r.bound > row["lower_bound"]):
            row["lower_bound"] = min(r.bound, row["objective"])
        row["gap"] = relative_gap(row["objective"], row["lower_bound"])
