"""Shared pieces of the paper-D algorithms (Algorithms 1-4): deadlines, ranking, subproblems."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from sparsekm.models.fs_linear import (
    FSLinearResult,
    cop_model,
    result_from_support,
    solve_fs_model,
)
from sparsekm.solvers import relative_gap


class Deadline:
    """A global wall-clock budget: ``remaining()`` seconds (inf without a limit)."""

    def __init__(self, time_limit: float | None) -> None:
        self.t0 = time.perf_counter()
        self.limit = time_limit

    def elapsed(self) -> float:
        return time.perf_counter() - self.t0

    def remaining(self) -> float:
        return math.inf if self.limit is None else max(0.0, self.limit - self.elapsed())

    def expired(self) -> bool:
        return self.remaining() <= 0.0

    def cap(self, t: float | None) -> float | None:
        """min(t, remaining) as a solver time limit (None = no limit)."""
        r = self.remaining()
        if t is None:
            return None if math.isinf(r) else max(r, 0.01)
        return max(min(t, r), 0.01)


def rank_features(u: np.ndarray) -> np.ndarray:
    """Features by increasing u*_j (ties by index): the most promising first (Alg. 1/2 step 3)."""
    return np.lexsort((np.arange(u.size), np.round(np.asarray(u, dtype=float), 9)))


def dscop_ranking(X: np.ndarray, y: np.ndarray, B: int, C: float, solver: str | None,
                  deadline: Deadline, relaxation: str = "dscop", M: float | None = None,
                  ) -> tuple[np.ndarray, float | None, dict[str, Any]]:
    """Solve the relaxation (13) (or (14) with ``M``) in SOC form; return u*, its bound, info."""
    from sparsekm.relaxations.fs_linear import solve_relaxation

    r = solve_relaxation(X, y, B, C, relaxation, M=M, solver=solver,
                         time_limit=deadline.cap(None), conic="soc")
    if r.u is None:
        raise RuntimeError(f"relaxation {relaxation} failed with status {r.status}; "
                           "try another relaxation solver (relax_solver=...)")
    return r.u, r.bound, {"relaxation": r.name, "bound": r.bound, "time_s": r.time_s,
                          "solver": r.solver}


def solve_restricted(X: np.ndarray, y: np.ndarray, B: int, C: float, K: Sequence[int],
                     solver: str | None, time_limit: float | None, ub: float | None = None,
                     new_features: Sequence[int] | None = None, form: str = "bilinear",
                     ) -> tuple[FSLinearResult | None, str]:
    """Solve CoP(K) (16) [+ (17) + (18)] with "<= B" (Remark 2.2). None when no point found."""
    mdl = cop_model(X, y, B, C, cardinality="le", K=K, ub=ub, new_features=new_features,
                    form=form)
    res, raw = solve_fs_model(mdl, X, y, solver=solver, time_limit=time_limit)
    return (res if res.has_solution else None), raw.status.value


def fallback_incumbent(X: np.ndarray, y: np.ndarray, B: int, C: float, order: np.ndarray,
                       ) -> FSLinearResult:
    """The SVM (1) on the B best-ranked features: a feasible point of (2) kept as a safety net."""
    return result_from_support(X, y, C, list(order[:B]), method="top-B")


def finalize(best: FSLinearResult, method: str, deadline: Deadline, lb: float | None,
             timed_out: bool, **info: Any) -> FSLinearResult:
    """Set method, time, bound/gap and status (time_limit when the budget ran out)."""
    best.method = method
    best.time_s = deadline.elapsed()
    if lb is not None and best.objective is not None:
        best.lower_bound = min(lb, best.objective)
        best.gap = relative_gap(best.objective, best.lower_bound)
    best.status = "time_limit" if timed_out else best.status
    best.info.update(info)
    return best
