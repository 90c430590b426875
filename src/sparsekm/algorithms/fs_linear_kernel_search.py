"""Kernel Search upper-bounding strategy: Algorithm 2 of paper D (Bomze et al., 2024)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from sparsekm.algorithms.fs_linear_common import (
    Deadline,
    dscop_ranking,
    fallback_incumbent,
    finalize,
    rank_features,
    solve_restricted,
)
from sparsekm.models.fs_linear import FSLinearResult, check_fs_inputs


def kernel_search(X: Any, y: Any, B: int, C: float, rho: int = 10, u: np.ndarray | None = None,
                  miqp_solver: str | None = None, relax_solver: str | None = None,
                  time_limit: float | None = None, subproblem_time_limit: float | None = 60.0,
                  cop_form: str = "bilinear", deadline: Deadline | None = None,
                  ) -> FSLinearResult:
    """Kernel Search (Algorithm 2, paper D).

    Features ranked by increasing u* of DSCoP (13) are split into buckets K_1..K_N of ``rho``
    features (N = ceil(n / rho), the last bucket holds the rest). Starting from an empty kernel
    Kbar and UB = inf, iteration k solves CoP(Kbar u K_k) (16) with (17) objective <= UB and
    (18) at least one feature of K_k selected ("<= B" form, Remark 2.2, so buckets smaller than B
    are feasible). If feasible: UB <- its value, K+ = selected features of K_k, K- = kernel
    features unselected in the last two feasible iterations, Kbar <- Kbar u K+ minus K-.
    An infeasible subproblem (normal, due to (17)/(18)) leaves the kernel unchanged.

    Parameters
    ----------
    rho : bucket size >= 1 (clipped to n).
    subproblem_time_limit : seconds per CoP subproblem (paper: 60); its incumbent is used.
    time_limit : global seconds; on the limit the incumbent is returned (status time_limit).
    """
    X, y = check_fs_inputs(X, y, B, C)
    n = X.shape[1]
    if rho < 1:
        raise ValueError(f"rho={rho} must be >= 1 (features per bucket)")
    rho = min(int(rho), n)
    dl = deadline or Deadline(time_limit)
    lb, info = None, {}
    if u is None:
        u, lb, info = dscop_ranking(X, y, B, C, relax_solver, dl)
    order = rank_features(u)
    N = math.ceil(n / rho)
    buckets = [sorted(int(j) for j in order[i * rho:(i + 1) * rho]) for i in range(N)]
    fallback = fallback_incumbent(X, y, B, C, order)
    best: FSLinearResult | None = None
    UB = math.inf
    kernel: set[int] = set()
    unselected: dict[int, int] = {}
    log: list[dict[str, Any]] = []
    timed_out = False
    for it, bucket in enumerate(buckets, start=1):
        if dl.expired():
            timed_out = True
            break
        Kk = sorted(kernel | set(bucket))
        sub, status = solve_restricted(X, y, B, C, Kk, miqp_solver,
                                       dl.cap(subproblem_time_limit),
                                       ub=UB if math.isfinite(UB) else None,
                                       new_features=bucket, form=cop_form)
        row = {"iter": it, "size": len(Kk), "status": status, "UB": None}
        if sub is not None and sub.objective <= UB + 1e-9 * max(1.0, abs(UB)):
            UB, best = sub.objective, sub
            sel = set(sub.selected)
            k_plus = sel & set(bucket)
            for j in kernel:
                unselected[j] = 0 if j in sel else unselected.get(j, 0) + 1
            k_minus = {j for j in kernel if unselected.get(j, 0) >= 2}
            kernel = (kernel | k_plus) - k_minus
            for j in k_minus:
                unselected.pop(j, None)
            row.update(UB=UB, added=sorted(k_plus), removed=sorted(k_minus))
        log.append(row)
        if dl.expired():
            timed_out = True
            break
    if best is None or fallback.objective < best.objective:
        best = fallback
    best.status = "feasible"
    best.log = log
    return finalize(best, "kernel-search", dl, lb, timed_out, ranking=info, u=u,
                    kernel=sorted(kernel))
