"""The supports a path of FS-SVM (2) has met, and the rules that make the path never worse
than any of them (paper D, problem (2) over a grid of budgets B and penalties C).

Two facts of (2) on the same rows (X, y):

* a support S with |S| <= B is feasible for B, and the SVM (1) optimum on S does not depend
  on B: a point of budget B is a point of every budget B' >= B with the same value, so the
  optimum of (2) is non-increasing in B;
* for a fixed point (w, b) the value 1/2 ||w||^2 + C sum_i xi_i is non-decreasing in C, so the
  SVM (1) optimum on a fixed support, and the optimum of (2), are non-decreasing in C.

:class:`SupportPool` keeps every support found at any (B, C) of the path and its SVM (1)
optimum at every C of the grid (each solved once, by the native interior point to a relative
duality gap of 1e-9). :func:`pool_improve` gives each grid point the best pooled support that
fits its budget -- re-solved at its C -- and runs the swap search (:mod:`.swap`) from it when
it beats the point's own search; a new support found so joins the pool, until nothing
changes. :func:`monotone_sweep` then makes the path monotone *exactly*, in floating point:
visiting the Cs from the largest down and the budgets upwards, the entry at (B, C) takes the
point of (B - 1, C) when that is lower (the same point, the same value) and the point of
(B, C+) evaluated at C when that is lower (the same w, b with the smaller C: never higher).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from sparsekm.engines.linear_svm import solve_linear_svm
from sparsekm.models.fs_linear import FSLinearProblem, point_result
from sparsekm.solvers import Result, SolverPlan

from .swap import SwapOptions, swap_search

__all__ = ["SupportPool", "entry_dict", "monotone_sweep", "pool_improve"]

REL_IMPROVE = 1e-9   # a pooled support must lower an entry by this much (relative) to count
MAX_PASSES = 3       # rounds of pool_improve (each new support is offered to every point)


def _key(S: Sequence[int]) -> tuple[int, ...]:
    return tuple(sorted(int(j) for j in S))


@dataclass
class SupportPool:
    """Supports met along a path, each with where it was found and its value per C."""

    problem: FSLinearProblem                 # the rows (X, y); B and C are set per use
    found: dict[tuple[int, ...], str] = field(default_factory=dict)
    values: dict[tuple[tuple[int, ...], float], Result] = field(default_factory=dict)

    def add(self, S: Sequence[int], where: str) -> bool:
        """Remember support S (found ``where``); False when it was known."""
        key = _key(S)
        if not key or key in self.found:
            return False
        self.found[key] = where
        return True

    def supports(self, B: int) -> list[tuple[int, ...]]:
        """The pooled supports that fit budget B."""
        return [S for S in self.found if len(S) <= B]

    def value(self, S: tuple[int, ...], C: float) -> Result:
        """The SVM (1) on S at penalty C, a feasible point of (2) for every B >= |S|
        (solved once per (S, C))."""
        got = self.values.get((S, C))
        if got is None:
            p = replace(self.problem, B=len(S), C=C)
            fit = solve_linear_svm(p.X[:, list(S)], p.y, C, method="ipm")
            w = np.zeros(p.n)
            w[list(S)] = fit.w
            got = point_result(p, w, fit.b, method="fast-path", solver="sparsekm linear-svm ipm")
            got.selected = list(S)
            got.values["alpha"] = fit.alpha
            self.values[(S, C)] = got
        return got


def _as_entry(res: Result, problem: FSLinearProblem, bound: float | None,
              source: str) -> Result:
    """``res``'s point as the entry of (B, C) = ``problem``'s: value at C, bound kept."""
    out = point_result(problem, np.asarray(res.values["w"], float), float(res.values["b"]),
                       method="fast-path", solver=res.solver)
    out.selected = list(res.selected or out.selected or [])
    if "alpha" in res.values:
        out.values["alpha"] = res.values["alpha"]
    out.certify(bound)
    out.extra.update(source=source, perspective_bound=bound)
    return out


def pool_improve(grid: dict[tuple[int, float], Result], pool: SupportPool, plan: SolverPlan,
                 options: SwapOptions | None = None) -> int:
    """Give every entry (B, C) of ``grid`` the best pooled support that fits B, re-solved at
    C, improved by the swap search when it beats the entry; returns the swap searches run."""
    searches = 0
    for _ in range(MAX_PASSES):
        changed = False
        for (B, C), res in sorted(grid.items(), key=lambda kv: (kv[0][1], kv[0][0])):
            if plan.clock.expired():
                return searches
            cut = res.objective - REL_IMPROVE * max(1.0, abs(res.objective))
            cands = [(pool.value(S, C).objective, S) for S in pool.supports(B)]
            better = [(v, S) for v, S in cands if v < cut]
            if not better:
                continue
            v, S = min(better)
            pb = replace(pool.problem, B=B, C=C)
            bound = res.bound
            best = _as_entry(pool.value(S, C), pb, bound, f"pool: {pool.found[S]}")
            found = swap_search(pb, plan, start=list(S), options=options)
            searches += 1
            evals = res.extra.get("evaluations", 0) + found.extra.get("evaluations", 0)
            if found.objective < best.objective:
                best = _as_entry(found, pb, bound,
                                 f"swap search from pool: {pool.found[S]}")
            best.extra["evaluations"] = evals
            best.time_s = res.time_s
            grid[(B, C)] = best
            pool.add(found.selected or [], f"B={B}, C={C:g} (swap search)")
            changed = True
        if not changed:
            break
    return searches


def monotone_sweep(grid: dict[tuple[int, float], Result], base: FSLinearProblem) -> None:
    """Make ``grid`` non-increasing in B and non-decreasing in C, exactly (module doc)."""
    Bs = sorted({B for B, _ in grid})
    Cs = sorted({C for _, C in grid}, reverse=True)
    for k, C in enumerate(Cs):
        for i, B in enumerate(Bs):
            res = grid.get((B, C))
            if res is None:
                continue
            pb = replace(base, B=B, C=C)
            best = res
            left = grid.get((Bs[i - 1], C)) if i else None
            if left is not None and left.objective < best.objective:
                best = _as_entry(left, pb, res.bound, f"budget B={Bs[i - 1]} (same point)")
            up = grid.get((B, Cs[k - 1])) if k else None
            if up is not None:
                cand = _as_entry(up, pb, res.bound, f"C={Cs[k - 1]:g} (same point at this C)")
                if cand.objective < best.objective:
                    best = cand
            if best is not res:
                best.extra["evaluations"] = res.extra.get("evaluations", 0)
                best.time_s = res.time_s
                grid[(B, C)] = best


def entry_dict(res: Result, B: int, C: float) -> dict[str, Any]:
    """A path entry as a dict (the keys of :func:`.budget_path.fs_linear_path`)."""
    w = np.asarray(res.values["w"], dtype=float)
    return {"B": B, "C": C, "selected": list(res.selected or []),
            "objective": res.objective, "lower_bound": res.bound, "status": res.status.value,
            "termination": res.termination.value, "time_s": res.time_s, "w": w,
            "b": float(res.values["b"]), "evaluations": res.extra.get("evaluations"),
            "source": res.extra.get("source", "fast")}
