"""Heuristic procedure: Algorithm 3 of paper D (H-LS / H-KS)."""

from __future__ import annotations

from typing import Any

import numpy as np

from sparsekm.declare import Annotated, with_
from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.models.fs_linear.bigm import svm_weights
from sparsekm.registry import register, uses_solvers
from sparsekm.solvers import Result, SolverPlan, Termination
from sparsekm.specs import TIME_LIMIT

from ..svm import solve_svm
from .common import Search, dscop_ranking, finish
from .kernel_search import kernel_search
from .local_search import local_search
from .specs import MIQPS, RELAX, SVM_QP

TIGHTEN_TIME_LIMIT = with_(TIME_LIMIT, help="Seconds for the 2n tightening problems (19) of "
                           "Proposition 4.1 (none: the time left); features not reached keep "
                           "the valid bound sqrt(2 UB).")


def run_strategy(problem: FSLinearProblem, plan: SolverPlan, search: Search,
                 ranking: np.ndarray) -> Result:
    """Algorithm 1 or 2 with a given ranking vector u (their DSCoP step skipped)."""
    if search.strategy == "local-search":
        return local_search(problem, plan, k=search.k, cop_form=search.cop_form,
                            ranking=ranking)
    return kernel_search(problem, plan, rho=search.rho, cop_form=search.cop_form,
                         ranking=ranking)


@register("fs-linear", "method", "heuristic", paper="D", ref="Algorithm 3")
@uses_solvers(miqp=MIQPS, relaxation=RELAX, svm=SVM_QP)
def heuristic(problem: FSLinearProblem, plan: SolverPlan, *, search: Search = Search(),
              tighten_time_limit: Annotated[float | None, TIGHTEN_TIME_LIMIT] = None
              ) -> Result:
    """Heuristic procedure H-LS / H-KS: a strategy, then a second pass with a tightened big-M.

    1. DSCoP (13) -> u*, then Algorithm 1/2 (``search.strategy``) -> incumbent, UB;
    2. M from Proposition 4.1 (problems (19): max/min w_j over DSCoP with objective <= UB);
    3. plain SVM (1) -> w*; if M < ||w*||_1 / B (test (9)), DSCoMP (14) with that M is
       tighter than (13): solve it for a new u*, rerun the strategy, keep the better point.

    The bound is the best of the DSCoP and (when solved) DSCoMP bounds, both valid since M of
    Proposition 4.1 is valid. ``tighten_time_limit`` caps the 2n tightening problems (features
    not reached keep the valid bound sqrt(2 UB)). ``extra`` records M, the test (9) and each
    stage's UB.
    """
    from sparsekm.relaxations.fs_linear import bigm_tightening

    plan = plan.start()
    p = problem
    r = dscop_ranking(p, plan)
    bound = r.bound
    best = run_strategy(p, plan, search, r.values["u"])
    info: dict[str, Any] = {"dscop_bound": r.bound, "ub_first": best.objective,
                            "strategy": search.strategy}
    timed_out = best.termination is Termination.TIME_LIMIT
    if not plan.clock.expired():
        M, _, _ = bigm_tightening(p, best.objective, plan,
                                  time_limit=plan.clock.cap(tighten_time_limit))
        w_svm = svm_weights(p) if plan.qp_solver is None else \
            solve_svm(p.X, p.y, p.C, solver=plan.qp_solver)[0]
        thr = float(np.abs(w_svm).sum() / p.B)
        info.update(M=M, svm_l1_over_B=thr, test9=bool(thr > M))
        if thr > M and not plan.clock.expired():
            r2 = dscop_ranking(p, plan, relaxation="dscomp", M=M)
            info["dscomp_bound"] = r2.bound
            if r2.bound is not None:
                bound = r2.bound if bound is None else max(bound, r2.bound)
            second = run_strategy(p, plan, search, r2.values["u"])
            info["ub_second"] = second.objective
            timed_out = second.termination is Termination.TIME_LIMIT
            if second.objective <= best.objective:
                best = second
    return finish(best, "heuristic", plan, bound, timed_out or plan.clock.expired(), **info)
