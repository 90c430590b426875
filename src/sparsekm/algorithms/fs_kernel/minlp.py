"""Paper A's MINLP (4) solved by a global solver (SCIP by default): the open analogue of its
Baron runs (Section 5.1). Defined for the paper sense only: (4) jointly *minimizes* over alpha
and beta; the margin sense is a max-min (bilevel) problem this single-level model cannot state.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sparsekm.declare import Annotated, ParamError
from sparsekm.models.fs_kernel import FSKernelProblem, fs_kernel_minlp
from sparsekm.models.fs_kernel.specs import BETA_IN
from sparsekm.registry import Part, register, uses_solvers
from sparsekm.solvers import Result, SolverPlan, Termination, solve
from sparsekm.specs import SEED

from .evaluator import Evaluator, mask_result
from .local_search import start_mask

__all__ = ["paper_sense_only", "round_top_B", "solve_minlp"]

DEFAULT_TIME_LIMIT = 60.0


def paper_sense_only(problem: FSKernelProblem, method: str) -> None:
    """Refuse the margin sense for methods that solve the single-level (4)."""
    if problem.sense != "paper":
        raise ParamError(
            "sense", problem.sense,
            f"method {method!r} solves the MINLP (4), a joint minimization over alpha and "
            "beta, so it needs sense='paper'; the margin sense (max over beta of min over "
            "alpha) is bilevel -- use method 'enumerate', 'ls', 'ls-star', 'rfe1' or 'rfe2'")


def round_top_B(beta: Any, B: int) -> np.ndarray:
    """Mask of the ``B`` largest components of ``beta`` (ties to the smaller index)."""
    v = np.asarray(beta, dtype=float)
    out = np.zeros(v.shape[0], dtype=bool)
    out[np.argsort(-v, kind="stable")[:B]] = True
    return out


def load_seconds(m: int) -> float:
    """Seconds to build the MINLP (4) on ``m`` rows and have the solver take it in before its
    own clock starts, a conservative fit of measurements with SCIP: 0.3 / 1.0 / 4.0 / 48 s
    for m = 50, 100, 150, 297 rows of cleveland (1,338 / 5,163 / 11,488 / ~45,000 variables,
    about m^2 / 2), ~5e-6 vars^1.5; no solver time limit covers it (48 s under a 0.8 s
    limit, measured)."""
    return 5e-6 * (m * m / 2.0) ** 1.5


def _start_only(p: FSKernelProblem, beta0: np.ndarray, plan: SolverPlan, load: float
                ) -> Result:
    """No time to load the MINLP: the start mask is the answer (an honest time limit)."""
    alpha, b, obj = Evaluator(p).solve_mask(beta0)
    out = mask_result(p, beta0, obj, alpha, b, "minlp", plan.clock)
    out.termination, out.time_s = Termination.TIME_LIMIT, plan.clock.elapsed()
    out.message = (f"the MINLP (4) on m = {p.m} rows takes about {load:.0f} s to load into "
                   "the solver, more than the time left: the start mask; raise --time-limit "
                   "or use fewer rows (paper A: m = 10, 50)")
    out.extra = {"solver_objective": None, "solver_incumbent": False, "n_evals": 1,
                 "load_estimate_s": load}
    return out


@register("fs-kernel", "method", "minlp", paper="A", ref="eq. (4); Section 5.1",
          problem_class="MINLP")
@uses_solvers(minlp=Part("MINLP (4)", ("solver",), classes=("MINLP",)))
def solve_minlp(problem: FSKernelProblem, plan: SolverPlan, *,
                beta_in: Annotated[Any, BETA_IN] = None,
                seed: Annotated[int, SEED] = 0) -> Result:
    """MINLP (4) by the plan's solver (SCIP; Gurobi where licensed), warm-started at beta_in.

    The start (default: the seeded random mask) and its SVM alpha are a full incumbent. The
    solver's incumbent mask is re-scored by the alpha-subproblem (3) so its objective compares
    with the heuristics'; the solver's bound is kept (``extra["solver_objective"]`` is its
    incumbent value). Without a plan time limit the solver gets 60 s.
    """
    paper_sense_only(problem, "minlp")
    plan = plan.start()
    p = problem
    beta0 = start_mask(p, beta_in, seed)
    a0, _, _ = Evaluator(p).solve_mask(beta0)
    tl = plan.clock.cap(None) if plan.time_limit else DEFAULT_TIME_LIMIT
    load = load_seconds(p.m)
    if load + 0.5 > tl:
        return _start_only(p, beta0, plan, load)
    mdl = fs_kernel_minlp(p, beta_start=beta0)
    for i in range(p.m):
        mdl.alpha[i].set_value(float(a0[i]))
    tl = plan.clock.cap(None) if plan.time_limit else DEFAULT_TIME_LIMIT
    res = solve(mdl, plan.solver, time_limit=tl, warm_start=True)
    vals = res.values.get("beta")
    incumbent = vals is not None and res.has_solution
    beta = round_top_B(vals, p.B) if incumbent else beta0  # no incumbent: keep the start
    alpha, b, obj = Evaluator(p).solve_mask(beta)
    out = mask_result(p, beta, obj, alpha, b, "minlp", plan.clock)
    out.termination, out.solver, out.time_s = res.termination, res.solver, plan.clock.elapsed()
    out.certify(res.bound)
    out.extra = {"solver_objective": res.objective, "solver_time_s": res.time_s,
                 "solver_incumbent": incumbent, "n_evals": 1}
    return out
