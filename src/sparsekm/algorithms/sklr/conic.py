"""The dual (22) solved as an exponential-cone program (method ``conic``), for cross-checks."""

from __future__ import annotations

import time

import numpy as np

from sparsekm.declare import Annotated, ParamError, Spec
from sparsekm.models.sklr.dual import dual_model, dual_objective
from sparsekm.models.sklr.problem import SKLRProblem
from sparsekm.registry import Part, register, uses_solvers
from sparsekm.solvers import Result, SolverPlan, solve

__all__ = ["conic"]

MAX_ROWS = Spec("Training rows m at most for the conic model of (22) (its m x m dense "
                "quadratic form is too large for an interior-point method beyond).", ge=1)


@register("sklr", "method", "conic", paper="C", ref="eq. (22) (exponential cone)",
          problem_class="EXP")
@uses_solvers(dual=Part("dual (22)", ("solver",), classes=("EXP",), framework="cvxpy"))
def conic(problem: SKLRProblem, plan: SolverPlan | None = None, *,
          max_rows: Annotated[int, MAX_ROWS] = 2000) -> Result:
    """Solve (22) with a conic solver (``plan.solver``, default the configured EXP solver).

    ``objective`` is (22a) evaluated at the returned alpha (clipped to the box), ``bound``
    the solver's certified bound; b and rho come from the KKT system (Observation 1).
    ``max_rows`` guards against dense models too large for an interior-point method.
    """
    from sparsekm.engines.smo import KernelSource, Logistic, dual_gradient, kkt_intercept
    from sparsekm.models.sklr.properties import kkt_rho_b

    if problem.m > max_rows:
        raise ParamError("max_rows", max_rows, f"the conic model has an m x m = "
                         f"{problem.m}^2 dense quadratic form, m above max_rows: use method "
                         f"smo2, or raise max_rows to {problem.m}")
    plan = (plan or SolverPlan()).start()
    t0 = time.perf_counter()
    res = solve(dual_model(problem), solver=plan.solver, time_limit=plan.clock.cap())
    res.problem, res.method = "sklr", "conic"
    if not res.has_solution or res.values.get("alpha") is None:
        return res
    lo, hi = problem.lower, problem.upper
    alpha = np.clip(np.asarray(res.values["alpha"], dtype=float), lo, hi)
    loss = Logistic(problem.C, problem.lam, problem.gamma_bound)
    grad = dual_gradient(KernelSource.from_matrix(problem.K), problem.y, alpha, loss)
    rho, _ = kkt_rho_b(problem, alpha)
    m = problem.m
    bound, res.bound = res.bound, None
    res.objective = dual_objective(problem, alpha)
    res.certify(bound)     # the solver's dual bound, on the clipped point's side
    res.values = {"alpha": alpha,
                  "b": kkt_intercept(alpha, grad, problem.y, np.full(m, lo), np.full(m, hi)),
                  "rho": rho, "dual_coef": alpha * problem.y,
                  "support": np.flatnonzero(alpha > lo + 1e-6 * problem.C), "grad": grad}
    res.extra.update({"iterations": None, "solver_time_s": res.time_s})
    res.time_s = time.perf_counter() - t0
    return res
