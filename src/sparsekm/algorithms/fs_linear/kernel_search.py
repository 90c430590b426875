"""Kernel Search upper-bounding strategy: Algorithm 2 of paper D."""

from __future__ import annotations

import math
from typing import Any

from sparsekm.declare import Annotated
from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.registry import register, uses_solvers
from sparsekm.solvers import Result, SolverPlan

from .common import (
    dscop_ranking,
    finish,
    given_ranking,
    rank_features,
    solve_restricted,
    top_b_incumbent,
)
from .specs import COP_FORM, MIQPS, RANKING, RELAX, RHO, SVM_QP


@register("fs-linear", "method", "kernel-search", paper="D", ref="Algorithm 2")
@uses_solvers(miqp=MIQPS, relaxation=RELAX, svm=SVM_QP)
def kernel_search(problem: FSLinearProblem, plan: SolverPlan, *,
                  rho: Annotated[int, RHO] = 10,
                  cop_form: Annotated[str, COP_FORM] = "bilinear",
                  ranking: Annotated[list[float] | None, RANKING] = None) -> Result:
    """Kernel Search: CoP(K) (16) over a growing kernel of features, bucket by bucket.

    Features ranked by increasing u* of DSCoP (13) are split into buckets K_1..K_N of ``rho``
    features (N = ceil(n / rho), the last bucket holds the rest). Starting from an empty kernel
    Kbar and UB = inf, iteration k solves CoP(Kbar u K_k) (16) with (17) objective <= UB and
    (18) at least one feature of K_k selected ("<= B" form, Remark 2.2, so buckets smaller than B
    are feasible). If feasible: UB <- its value, K+ = selected features of K_k, K- = kernel
    features unselected in the last two feasible iterations, Kbar <- Kbar u K+ minus K-.
    An infeasible subproblem (normal, due to (17)/(18)) leaves the kernel unchanged. Each
    subproblem gets the plan's ``subproblem_time_limit`` (paper: 60 s); its incumbent is used.
    """
    plan = plan.start()
    n = problem.n
    rho = min(int(rho), n)
    bound, info = None, {}
    if ranking is None:
        r = dscop_ranking(problem, plan)
        ranking, bound, info = r.values["u"], r.bound, {"bound": r.bound, "time_s": r.time_s}
    else:
        ranking = given_ranking(problem, ranking)
    order = rank_features(ranking)
    buckets = [sorted(int(j) for j in order[i * rho:(i + 1) * rho])
               for i in range(math.ceil(n / rho))]
    best = top_b_incumbent(problem, plan, order)
    UB = math.inf
    kernel: set[int] = set()
    unselected: dict[int, int] = {}
    log: list[dict[str, Any]] = []
    for it, bucket in enumerate(buckets, start=1):
        if plan.clock.expired():
            break
        Kk = sorted(kernel | set(bucket))
        sub = solve_restricted(problem, plan, Kk, cop_form,
                               ub=UB if math.isfinite(UB) else None, new_features=bucket)
        row: dict[str, Any] = {"iter": it, "size": len(Kk), "status": sub.status.value,
                               "UB": None}
        if sub.has_solution and sub.objective <= UB + 1e-9 * max(1.0, abs(UB)):
            UB = sub.objective
            if sub.objective <= best.objective:
                best = sub
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
    best.log = log
    return finish(best, "kernel-search", plan, bound, plan.clock.expired(), ranking=info,
                  u=ranking, kernel=sorted(kernel))
