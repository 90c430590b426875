"""Exact procedure: Algorithm 4 of paper D, a sequence of SR-DLMP(K) semi-relaxations."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from sparsekm.declare import Annotated, Spec, with_
from sparsekm.models.fs_linear import SR_FORMS, FSLinearProblem, label_big_m, sr_dlmp_model
from sparsekm.models.fs_linear.specs import BIG_M
from sparsekm.registry import Part, register, uses_solvers
from sparsekm.solvers import Result, SolverPlan, Termination, relative_gap, solve
from sparsekm.specs import GAP_TOL, MAX_ITER

from .common import Search, dscop_ranking, finish, rank_features
from .heuristic import run_strategy
from .points import support_result
from .specs import MIQPS, RELAX, SVM_QP

S_ADD = Spec("Features K+ (largest u~_j - u~_j^2 outside K) added to the kernel K per "
             "iteration of the exact procedure (Algorithm 4).", ge=1, flag="--s")
SR_FORM = Spec("Form of SR-DLMP(K) (21) on K: perspective (the rotated cone, exact for binary "
               "u_j; M only a cut) or paper (the big-M rows of (21); M must be valid).",
               choices=SR_FORMS)
SR_ITERATIONS = with_(MAX_ITER, help="SR-DLMP(K) (21) iterations of Algorithm 4 at most "
                      "(none: until the gap closes or the time limit).", ge=1)


def solve_sr_dlmp(problem: FSLinearProblem, plan: SolverPlan, K: list[int], M: float | None,
                  form: str) -> Result:
    """SR-DLMP(K) (21) with the plan's MISOCP solver; values ``u`` (clipped to [0, 1])."""
    mdl = sr_dlmp_model(problem, K, M=M, form=form)
    res = solve(mdl, solver=plan.misocp, time_limit=plan.clock.cap(None), mip_gap=1e-7)
    if res.has_solution:
        n = problem.n
        res.values["u"] = np.clip(np.array([mdl.u[j].value for j in range(n)], float), 0, 1)
    return res


def next_kernel(K: list[int], ut: np.ndarray, s: int, recent: list[set[int]],
                visited: set[tuple[int, ...]]) -> list[int]:
    """K <- K u K+ minus K- (Algorithm 4): K+ = the ``s`` features outside K with the largest
    u~_j - u~_j^2, K- = features of K unselected in the last two incumbents. Anti-cycling (not
    in the paper): if the new K was visited before, K- is dropped, so K grows."""
    Kset = set(K)
    frac = ut - ut ** 2
    outside = sorted((j for j in range(ut.size) if j not in Kset),
                     key=lambda j: (-round(frac[j], 9), j))
    k_plus = set(outside[:s])
    k_minus = {j for j in Kset if all(j not in sel for sel in recent[-2:])}
    newK = sorted((Kset | k_plus) - k_minus)
    if tuple(newK) in visited:
        newK = sorted(Kset | k_plus)
    visited.add(tuple(newK))
    return newK


@register("fs-linear", "method", "exact", paper="D", ref="Algorithm 4")
@uses_solvers(sr_dlmp=Part("SR-DLMP(K) (21)", ("misocp_solver", "solver"), classes=("MISOCP",)),
              miqp=MIQPS, relaxation=RELAX, svm=SVM_QP)
def exact(problem: FSLinearProblem, plan: SolverPlan, *, search: Search = Search(),
          s: Annotated[int, S_ADD] = 10, gap_tol: Annotated[float, GAP_TOL] = 1e-4,
          M: Annotated[float | None, BIG_M] = None,
          sr_form: Annotated[str, SR_FORM] = "perspective",
          max_iter: Annotated[int | None, SR_ITERATIONS] = None) -> Result:
    """Exact procedure: certified optimum of FS-SVM (2) by a sequence of SR-DLMP(K).

    1. DSCoP (13) -> u*, its bound is the initial LB; Algorithm 1/2 -> incumbent, UB and K (the
       selected features);
    2. until (UB - LB)/UB < ``gap_tol`` (paper: 0.01 % = 1e-4) or the time limit: solve
       SR-DLMP(K) (21) (u_j binary for j in K) -> LB candidate (its proven bound) and u~; rerun
       Algorithm 1/2 ranked by u~ -> UB candidate; update K (:func:`next_kernel`).

    Every SR-DLMP(K) is a relaxation of CoP (7), so LB is certified. In ``sr_form=
    "perspective"`` (default) the rotated cone w_j^2 <= W_jj (1 - u_j) is exact for binary
    u_j and M is only a cut; with ``sr_form="paper"`` the big-M rows of (21) carry the binaries
    and M must be valid. M defaults to sqrt(2 UB), valid for any optimum. SR-DLMP([1:n]) is
    CoP itself, so the loop ends at the latest when K holds every feature.
    """
    plan = plan.start()
    p, n = problem, problem.n
    s = min(int(s), n)
    r = dscop_ranking(p, plan)
    LB = -math.inf if r.bound is None else r.bound
    best = run_strategy(p, plan, search, r.values["u"])
    UB = best.objective
    K = sorted(best.selected)
    Mval = math.sqrt(2.0 * UB) if M is None else M
    log: list[dict[str, Any]] = [{"iter": 0, "LB": LB, "UB": UB, "gap": relative_gap(UB, LB),
                                  "K": len(K), "time_s": plan.clock.elapsed()}]
    recent, visited = [set(best.selected)], {tuple(K)}
    timed_out, it = False, 0
    while (relative_gap(UB, LB) or 0.0) >= gap_tol and not (max_iter and it >= max_iter):
        if plan.clock.expired():
            timed_out = True
            break
        it += 1
        sr = solve_sr_dlmp(p, plan, K, Mval, sr_form)
        if sr.bound is not None:
            LB = max(LB, min(sr.bound, UB))
        row: dict[str, Any] = {"iter": it, "K": len(K), "sr_status": sr.status.value}
        if sr.termination is Termination.TIME_LIMIT or not sr.has_solution:
            row.update(LB=LB, UB=UB, gap=relative_gap(UB, LB), time_s=plan.clock.elapsed())
            log.append(row)
            timed_out = sr.termination is Termination.TIME_LIMIT or plan.clock.expired()
            break
        ut = sr.values["u"]
        if np.all(np.minimum(ut, 1 - ut) < 1e-6):      # u~ integral: SR point feasible for (2)
            cand = support_result(p, [j for j in range(n) if ut[j] < 0.5][:p.B], plan)
            if cand.objective < UB:
                UB, best = cand.objective, cand
        if (relative_gap(UB, LB) or 0.0) >= gap_tol and not plan.clock.expired():
            hat = run_strategy(p, plan, search, ut)
            recent.append(set(hat.selected))
            if hat.objective < UB:
                UB, best = hat.objective, hat
        row.update(LB=LB, UB=UB, gap=relative_gap(UB, LB), time_s=plan.clock.elapsed())
        log.append(row)
        plan.progress(f"exact it {it}: LB {LB:.6g} UB {UB:.6g} gap {row['gap']:.2e} |K| {len(K)}")
        if len(K) == n:  # SR-DLMP([1:n]) is CoP itself: LB is the solver's final word
            break
        K = next_kernel(K, ut, s, recent, visited)
    best.log = log
    res = finish(best, "exact", plan, LB if math.isfinite(LB) else None, timed_out,
                 dscop_bound=r.bound, M=Mval, iterations=it, final_K=K,
                 u_rank=rank_features(r.values["u"])[:p.B].tolist(), gap_tol=gap_tol)
    return label_big_m(p, M, res, ub=UB)     # a given M (a cut, or the paper form's rows)
