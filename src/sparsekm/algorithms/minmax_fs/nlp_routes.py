"""The paper's route: the single-level reformulation (20) handed to an off-the-shelf solver.

* ``ipopt`` -- Ipopt (cyipopt) on (20) from Algorithm 1's start (gamma0 and the lower-level
  duals (18) at gamma0), through exact numpy callbacks (``model="callbacks"``, default) or the
  declarative Pyomo model compiled by the solver layer (``model="pyomo"``, small data only).
* ``scip`` -- SCIP (or another global solver given as ``plan.solver``) on the Pyomo model
  (20); its dual bound is a certified lower bound on (14), because (20) and (14) have the same
  optimal value.

Both end as Algorithm 1 does: the SVM (10) is re-solved at the returned gamma.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from sparsekm.declare import Annotated, Spec
from sparsekm.models.minmax_fs import MinMaxFSProblem, check_model_size, lower_level
from sparsekm.models.minmax_fs import single_level_model as pyomo_20
from sparsekm.models.minmax_fs.nlp import single_level_nlp
from sparsekm.models.minmax_fs.specs import BOX, GAMMA0, OBJECTIVE
from sparsekm.registry import Part, register, uses_solvers
from sparsekm.solvers import Result, SolverPlan, Termination, solve

from .common import finish
from .specs import TOL

__all__ = ["ipopt", "scip"]

MODELS = ("callbacks", "pyomo")
HESSIANS = ("auto", "exact", "lbfgs")
IPOPT_MAX_ITER = 3000
MODEL = Spec("How Ipopt gets (20): callbacks (exact vectorised numpy derivatives) or pyomo "
             "(the declarative model; small data only).", choices=MODELS)
HESSIAN = Spec("Hessian of (20) for Ipopt (callbacks only): exact, lbfgs (Ipopt's "
               "limited-memory quasi-Newton) or auto (exact for at most 200 features).",
               choices=HESSIANS)


def _lower_gap(res: Result) -> Result:
    """Record how far the solver's own lower-level variables were from optimal.

    (20a) at any point feasible for (20b) is at least f(gamma) = (14a) (weak duality of the
    lower level), with equality iff its (alpha, nu, lambda) solve (18) at gamma; f(gamma) is
    the value after the final SVM solve. ``extra["lower_level_gap"]`` = ((20a) at the solver's
    point - f(gamma)) / max(1, |f(gamma)|) (0: the solver's alpha already solved the SVM).
    """
    raw, f = res.extra.get("solver_objective"), res.extra.get("method_objective")
    res.extra["lower_level_gap"] = None if raw is None or f is None else \
        float((raw - f) / max(1.0, abs(f)))
    return res


def _info(res: Result, extra: dict[str, Any]) -> dict[str, Any]:
    converged = res.status.value in ("optimal", "locally_optimal")
    return {"termination": res.termination, "converged": converged, "message": res.message,
            **extra}


def _gamma(problem: MinMaxFSProblem, res: Result, fallback: np.ndarray) -> np.ndarray:
    if res.has_solution and "gamma" in res.values:
        g = np.asarray(res.values["gamma"], dtype=float).ravel()
        if g.shape == (problem.n,) and np.all(np.isfinite(g)):
            return np.maximum(g, 0.0)
    return fallback


FIRST_ITERATION_S = 6.7e-10   # s per m^2 (n + m): Ipopt's first iteration on (20), measured


def first_iteration_s(problem: MinMaxFSProblem) -> float:
    """A low estimate of Ipopt's first iteration on (20) in seconds: the dense Jacobian of
    (20b) and the KKT factorization scale as m^2 (n + m) (spambase, 1840 x 57: 4.3 s with
    the exact Hessian, 2.6 s with L-BFGS, whatever ``max_cpu_time``). Half the measured rate,
    so Ipopt is skipped only when a machine twice as fast could not finish that iteration."""
    m, n = problem.m, problem.n
    return 0.5 * FIRST_ITERATION_S * m * m * (n + m)


@register("minmax-fs", "method", "ipopt", paper="E", ref="eq. (20), Algorithm 1 (Ipopt)",
          problem_class="NLP")
@uses_solvers(nlp=Part("(20) from gamma0", ("solver",), default="ipopt", classes=("NLP",),
                       only=("ipopt",)))
def ipopt(problem: MinMaxFSProblem, plan: SolverPlan | None = None, *,
          gamma0: Annotated[float | None, GAMMA0] = None,
          model: Annotated[str, MODEL] = "callbacks",
          objective: Annotated[str, OBJECTIVE] = "printed",
          hessian: Annotated[str, HESSIAN] = "auto", box: Annotated[bool, BOX] = True,
          tol: Annotated[float, TOL] = 1e-8) -> Result:
    """Local optimum of (20) by Ipopt, started at gamma0 and the duals (18) there.

    ``model``: "callbacks" (exact vectorised derivatives) or "pyomo" (the declarative model;
    refused past :data:`~sparsekm.models.minmax_fs.pyomo_models.MODEL_TERM_LIMIT`).
    ``objective``: "printed" (20a) or "reduced" (equal on (20b)). ``hessian``: "auto", "exact"
    or "lbfgs" (callbacks only). ``box`` keeps the redundant (20d). ``tol``: Ipopt's tolerance
    (at most IPOPT_MAX_ITER iterations).
    """
    plan = (plan or SolverPlan()).start()
    if plan.solver not in (None, "ipopt", "cyipopt"):
        raise ValueError(f"method 'ipopt' runs Ipopt, not {plan.solver!r}; use method 'scip' "
                         "for other Pyomo NLP solvers")
    t0 = time.perf_counter()
    g0 = problem.start(gamma0)
    start = lower_level(problem, g0)              # Algorithm 1: (18) at gamma0
    # The limit goes to Ipopt as max_cpu_time: the solver layer maps that status (-4) to a
    # time limit with the last iterate, but not max_wall_time's (-5), which would lose it.
    opts: dict[str, Any] = {"tol": tol, "max_iter": IPOPT_MAX_ITER}
    cap = plan.clock.cap()
    first = first_iteration_s(problem)
    if cap is not None and cap < first:   # Ipopt reads its clock only after an iteration
        return finish(problem, g0, start, t0, method="ipopt", solver="ipopt (not started)",
                      info={"termination": Termination.TIME_LIMIT, "converged": False,
                            "message": f"the {cap:.2f} s left are less than Ipopt's first "
                                       f"iteration on {problem.m} rows (about {first:.1f} s):"
                                       " the start point is returned", "model": model})
    if cap is not None:
        opts["max_cpu_time"] = float(cap)
    if model == "callbacks":
        nlp = single_level_nlp(problem, start, box=box, objective=objective, hessian=hessian)
        res = solve(nlp, solver="ipopt", verbose=plan.verbose, **opts)
    else:
        check_model_size(problem, "ipopt")
        mdl = pyomo_20(problem, gamma0=g0, box=box, start=start.point(), objective=objective)
        res = solve(mdl, solver="ipopt", verbose=plan.verbose, **opts)
    extra = {"solver_objective": res.objective, "solver_status": res.status.value,
             "solver_time_s": res.time_s, "model": model, "hessian": hessian}
    return _lower_gap(finish(problem, _gamma(problem, res, g0), start, t0, method="ipopt",
                             solver=f"{res.solver} {res.version}".strip(),
                             info=_info(res, extra)))


@register("minmax-fs", "method", "scip", paper="E", ref="eq. (20) (global solver)",
          problem_class="NLP")
@uses_solvers(nlp=Part("(20) by spatial branch and bound", ("solver",), default="scip",
                       classes=("NLP",)))
def scip(problem: MinMaxFSProblem, plan: SolverPlan | None = None, *,
         gamma0: Annotated[float | None, GAMMA0] = None,
         objective: Annotated[str, OBJECTIVE] = "reduced",
         box: Annotated[bool, BOX] = True) -> Result:
    """(20) by SCIP (spatial branch and bound) on the Pyomo model, from gamma0 and (18) there.

    Global: with enough time it proves optimality; within a time limit it returns its
    incumbent and a certified lower bound on (14). ``objective="reduced"`` (default) drops
    the unbounded bilinear terms of (20a) (same problem on (20b), much tighter relaxations).
    Small data only (:func:`~sparsekm.models.minmax_fs.check_model_size`).
    """
    plan = (plan or SolverPlan()).start()
    solver = plan.solver or "scip"
    check_model_size(problem, solver)
    t0 = time.perf_counter()
    g0 = problem.start(gamma0)
    start = lower_level(problem, g0)
    mdl = pyomo_20(problem, gamma0=g0, box=box, start=start.point(), objective=objective)
    res = solve(mdl, solver=solver, time_limit=plan.clock.cap(), verbose=plan.verbose,
                warm_start=True)
    extra = {"solver_objective": res.objective, "solver_status": res.status.value,
             "solver_time_s": res.time_s, "solver_bound": res.bound}
    out = finish(problem, _gamma(problem, res, g0), start, t0, method="scip",
                 solver=f"{res.solver} {res.version}".strip(), info=_info(res, extra))
    _lower_gap(out)
    return out.certify(res.bound) if res.bound is not None else out
