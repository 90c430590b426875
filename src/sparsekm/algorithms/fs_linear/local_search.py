"""Local Search upper-bounding strategy: Algorithm 1 of paper D."""

from __future__ import annotations

from sparsekm.declare import Annotated
from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.registry import register, uses_solvers
from sparsekm.solvers import Result, SolverPlan, Termination

from .common import (
    dscop_ranking,
    finish,
    given_ranking,
    rank_features,
    solve_restricted,
    top_b_incumbent,
)
from .specs import COP_FORM, K_EXCESS, MIQPS, RANKING, RELAX, SVM_QP


@register("fs-linear", "method", "local-search", paper="D", ref="Algorithm 1")
@uses_solvers(miqp=MIQPS, relaxation=RELAX, svm=SVM_QP)
def local_search(problem: FSLinearProblem, plan: SolverPlan, *,
                 k: Annotated[int, K_EXCESS] = 10,
                 cop_form: Annotated[str, COP_FORM] = "bilinear",
                 ranking: Annotated[list[float] | None, RANKING] = None) -> Result:
    """Local Search: CoP(K) (16) on the k + B features of smallest DSCoP (13) u*.

    1. Solve DSCoP (13) (SOC form, Lemma 4.3) for u* (skipped when ``ranking`` is given:
       Algorithms 3 and 4 pass their own u);
    2. K = the k + B features with the smallest u*_j (k clipped to n - B);
    3. solve the restricted CoP(K) (16) with the plan's MIQP solver.

    On the time limit the incumbent of (16) (or the SVM on the B best-ranked features) is
    returned with termination ``time_limit``; the bound is DSCoP's when (13) was solved here.
    """
    plan = plan.start()
    bound, info = None, {}
    if ranking is None:
        r = dscop_ranking(problem, plan)
        ranking, bound, info = r.values["u"], r.bound, {"bound": r.bound, "time_s": r.time_s}
    else:
        ranking = given_ranking(problem, ranking)
    order = rank_features(ranking)
    K = sorted(int(j) for j in order[:min(problem.n, problem.B + k)])
    best = top_b_incumbent(problem, plan, order)
    sub = solve_restricted(problem, plan, K, cop_form)
    if sub.has_solution and sub.objective <= best.objective:
        best = sub
    timed_out = plan.clock.expired() or sub.termination is Termination.TIME_LIMIT
    return finish(best, "local-search", plan, bound, timed_out, K=K,
                  subproblem_status=sub.status.value, ranking=info, u=ranking)
