"""Exact procedure: Algorithm 4 of paper D (Bomze et al., 2024), a sequence of SR-DLMP(K)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from sparsekm.algorithms.fs_linear_common import (
    Deadline,
    dscop_ranking,
    finalize,
    rank_features,
)
from sparsekm.algorithms.fs_linear_heuristic import STRATEGIES, run_strategy
from sparsekm.models.fs_linear import (
    FSLinearResult,
    check_fs_inputs,
    result_from_support,
    sr_dlmp_model,
)
from sparsekm.solvers import relative_gap, solve


def solve_sr_dlmp(X: np.ndarray, y: np.ndarray, B: int, C: float, K: list[int],
                  M: float | None, solver: str | None, time_limit: float | None,
                  form: str = "perspective") -> dict[str, Any]:
    """Solve SR-DLMP(K) (21); return its proven lower bound, u~, w~ and status."""
    mdl = sr_dlmp_model(X, y, B, C, K, M=M, form=form)
    res = solve(mdl, solver=solver, time_limit=time_limit, mip_gap=1e-7)
    n = X.shape[1]
    out: dict[str, Any] = {"status": res.status.value, "bound": None, "u": None,
                           "objective": res.objective, "time_s": res.time_s,
                           "solver": res.solver}
    if res.bound is not None and math.isfinite(res.bound):
        out["bound"] = float(res.bound)
    elif res.status.value == "optimal" and res.has_solution:
        out["bound"] = float(res.objective)
    if res.has_solution:
        out["u"] = np.clip(np.array([mdl.u[j].value for j in range(n)], dtype=float), 0, 1)
        out["w"] = np.array([mdl.w[j].value for j in range(n)], dtype=float)
    return out


def exact(X: Any, y: Any, B: int, C: float, s: int = 10, strategy: str = "kernel-search",
          k: int = 10, rho: int = 10, miqp_solver: str | None = None,
          misocp_solver: str | None = None, relax_solver: str | None = None,
          time_limit: float | None = 1800.0, subproblem_time_limit: float | None = 60.0,
          gap_tol: float = 1e-4, M: float | None = None, sr_form: str = "perspective",
          max_iter: int | None = None, cop_form: str = "bilinear") -> FSLinearResult:
    """Exact procedure (Algorithm 4, paper D): certified optimum of FS-SVM (2).

    1. DSCoP (13) -> u*, its bound is the initial LB; Algorithm 1/2 -> incumbent, UB and K (the
       selected features);
    2. repeat until (UB - LB)/UB < ``gap_tol`` (paper: 0.01% = 1e-4) or the time limit:
       solve SR-DLMP(K) (21) (u_j binary for j in K) -> LB candidate (its proven bound) and u~;
       rerun Algorithm 1/2 ranked by u~ -> UB candidate; K+ = the ``s`` features outside K
       with largest u~_j - u~_j^2; K- = features of K unselected in the last two incumbents;
       K <- K u K+ minus K-.

    Every SR-DLMP(K) is a relaxation of CoP (7), so LB is a certified bound. M: in
    ``sr_form="perspective"`` (default) the rotated cone w_j^2 <= W_jj (1 - u_j) is exact for
    binary u_j and M is only a cut; with ``sr_form="paper"`` the big-M rows of (21) carry the
    binaries and M must be valid. M defaults to sqrt(2 UB), valid for any optimum.
    Anti-cycling (not in the paper): if K <- K u K+ minus K- revisits an earlier K, K- is
    dropped, so K grows and SR-DLMP([1:n]) = CoP ends the loop at the latest.

    Returns
    -------
    FSLinearResult with ``lower_bound``, ``gap`` and ``log`` (iter, LB, UB, gap, |K|, time).
    Status ``optimal`` when the gap closed, ``time_limit`` on the limit (incumbent returned).
    """
    X, y = check_fs_inputs(X, y, B, C)
    n = X.shape[1]
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy={strategy!r}: use one of {STRATEGIES}")
    if s < 1:
        raise ValueError(f"s={s} must be >= 1 (features added to K per iteration)")
    s = min(int(s), n)
    dl = Deadline(time_limit)
    u, lb0, rinfo = dscop_ranking(X, y, B, C, relax_solver, dl)
    LB = -math.inf if lb0 is None else lb0
    best = run_strategy(strategy, X, y, B, C, u, dl, k, rho, miqp_solver,
                        subproblem_time_limit, cop_form)
    UB = best.objective
    K = sorted(best.selected)
    Mval = math.sqrt(2.0 * UB) if M is None else M
    log: list[dict[str, Any]] = [{"iter": 0, "LB": LB, "UB": UB, "gap": relative_gap(UB, LB),
                                  "K": len(K), "time_s": dl.elapsed()}]
    recent = [set(best.selected)]
    visited = {tuple(K)}
    timed_out = False
    it = 0
    while (relative_gap(UB, LB) or 0.0) >= gap_tol:
        if dl.expired():
            timed_out = True
            break
        if max_iter is not None and it >= max_iter:
            break
        it += 1
        sr = solve_sr_dlmp(X, y, B, C, K, Mval, misocp_solver, dl.cap(None), form=sr_form)
        if sr["bound"] is not None:
            LB = max(LB, min(sr["bound"], UB))
        row: dict[str, Any] = {"iter": it, "K": len(K), "sr_status": sr["status"]}
        if sr["status"] == "time_limit" or sr["u"] is None:
            row.update(LB=LB, UB=UB, gap=relative_gap(UB, LB), time_s=dl.elapsed())
            log.append(row)
            timed_out = sr["status"] == "time_limit" or dl.expired()
            break
        ut = sr["u"]
        if np.all(np.minimum(ut, 1 - ut) < 1e-6):      # u~ integral: SR point feasible for (2)
            cand = result_from_support(X, y, C, [j for j in range(n) if ut[j] < 0.5])
            if len(cand.selected) <= B and cand.objective < UB:
                UB, best = cand.objective, cand
        if (relative_gap(UB, LB) or 0.0) >= gap_tol and not dl.expired():
            hat = run_strategy(strategy, X, y, B, C, ut, dl, k, rho, miqp_solver,
                               subproblem_time_limit, cop_form)
            recent.append(set(hat.selected))
            if hat.objective < UB:
                UB, best = hat.objective, hat
        row.update(LB=LB, UB=UB, gap=relative_gap(UB, LB), time_s=dl.elapsed())
        log.append(row)
        if len(K) == n:  # SR-DLMP([1:n]) is CoP itself: LB is the solver's final word
            break
        Kset = set(K)
        outside = [j for j in range(n) if j not in Kset]
        frac = ut - ut ** 2
        order = sorted(outside, key=lambda j: (-round(frac[j], 9), j))
        k_plus = set(order[:s])
        last2 = recent[-2:]
        k_minus = {j for j in Kset if all(j not in sel for sel in last2)}
        newK = sorted((Kset | k_plus) - k_minus)
        if tuple(newK) in visited:
            newK = sorted(Kset | k_plus)
        visited.add(tuple(newK))
        K = newK
    gap = relative_gap(UB, LB)
    best.status = "optimal" if gap is not None and gap < gap_tol else "feasible"
    best.log = log
    name = "exact"
    return finalize(best, name, dl, LB if math.isfinite(LB) else None, timed_out,
                    dscop_bound=lb0, M=Mval, iterations=it, ranking=rinfo,
                    final_K=K, u_rank=rank_features(u)[:B].tolist())
