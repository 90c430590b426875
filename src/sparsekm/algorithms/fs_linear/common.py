"""What paper D's Algorithms 1-4 share: the search options, the DSCoP ranking, the restricted
CoP(K) subproblem, the safety-net incumbent and the final bookkeeping."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sparsekm import declare
from sparsekm.declare import ParamError
from sparsekm.models.fs_linear import (
    FSLinearProblem,
    add_new_feature_cut,
    add_objective_cut,
    cop_model,
)
from sparsekm.solvers import Result, SolverPlan, Termination

from ..formulation import solve_formulation
from .points import support_result
from .specs import COP_FORM, K_EXCESS, RHO, STRATEGIES, STRATEGY

__all__ = ["STRATEGIES", "Search", "dscop_ranking", "finish", "rank_features",
           "solve_restricted", "top_b_incumbent"]


@dataclass(frozen=True)
class Search:
    """The upper-bounding strategy of Algorithms 3 and 4 and its parameters.

    ``strategy``: Local Search (Algorithm 1, excess ``k``) or Kernel Search (Algorithm 2,
    bucket size ``rho``); ``cop_form``: the form of the CoP(K) subproblems (see
    :func:`~sparsekm.models.fs_linear.cop_model`).
    """

    strategy: str = declare.field("kernel-search", STRATEGY)
    k: int = declare.field(10, K_EXCESS)
    rho: int = declare.field(10, RHO)
    cop_form: str = declare.field("bilinear", COP_FORM)

    def __post_init__(self) -> None:
        declare.check_fields(self)


def rank_features(u: np.ndarray) -> np.ndarray:
    """Features by increasing u*_j (ties by index): the most promising first (Alg. 1/2 step 3)."""
    return np.lexsort((np.arange(u.size), np.round(np.asarray(u, dtype=float), 9)))


def given_ranking(problem: FSLinearProblem, ranking: Any) -> np.ndarray:
    """A ranking vector u given by the user: n finite values (ParamError naming it)."""
    u = np.asarray(ranking, dtype=float)
    if u.shape != (problem.n,) or not np.all(np.isfinite(u)):
        raise ParamError("ranking", f"{u.size} values", f"give n = {problem.n} finite values "
                         "(the most promising feature smallest)")
    return u


def dscop_ranking(problem: FSLinearProblem, plan: SolverPlan, relaxation: str = "dscop",
                  M: float | None = None) -> Result:
    """Solve the relaxation (13) (or (14) with ``M``) in SOC form for u* and its bound."""
    from sparsekm.relaxations.fs_linear import solve_relaxation

    opts = {"M": M} if relaxation == "dscomp" else {}
    r = solve_relaxation(problem, relaxation, plan, **opts)
    if r.values.get("u") is None:
        raise RuntimeError(f"relaxation {relaxation} failed with status {r.status.value} "
                           f"({r.message}); try another relaxation solver (--relax-solver)")
    return r


def solve_restricted(problem: FSLinearProblem, plan: SolverPlan, K: Sequence[int],
                     cop_form: str, ub: float | None = None,
                     new_features: Sequence[int] | None = None) -> Result:
    """CoP(K) (16) [+ (17) + (18)] under the "<= B" budget (Remark 2.2), within the plan's
    subproblem time limit; its point is polished by the SVM (1). Not built when the time is
    up (building and starting it took 0.7 s past the limit on madelon): then no point."""
    from dataclasses import replace

    if plan.clock.expired():
        return Result(termination=Termination.TIME_LIMIT, method="cop", problem="fs-linear",
                      message="no time left for CoP(K) (16)")
    sub = replace(problem, cardinality="le") if problem.cardinality != "le" else problem
    mdl = cop_model(sub, form=cop_form, K=K, ub=ub)
    add_objective_cut(mdl, ub)
    add_new_feature_cut(mdl, new_features)
    return solve_formulation(sub, mdl, plan, time_limit=plan.subproblem_time_limit)


def top_b_incumbent(problem: FSLinearProblem, plan: SolverPlan, order: np.ndarray) -> Result:
    """The SVM (1) on the B best-ranked features: a feasible point kept as a safety net."""
    return support_result(problem, list(order[:problem.B]), plan, method="top-B")


def finish(best: Result, method: str, plan: SolverPlan, bound: float | None,
           timed_out: bool, **extra: Any) -> Result:
    """Set method, problem, time, the certified bound and the termination of a final result."""
    best.method, best.problem = method, "fs-linear"
    best.time_s = plan.clock.elapsed()
    best.certify(bound)
    if timed_out:
        best.termination = Termination.TIME_LIMIT
    elif best.termination is Termination.TIME_LIMIT:
        best.termination = Termination.CONVERGED
    best.extra.update(extra)
    return best
