"""Run a Pyomo model through a Pyomo solver plugin and return a :class:`Result`."""

from __future__ import annotations

import logging
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .errors import SolverNotAvailableError, licence_error
from .result import DEFAULT_GAP_TOL, Result, Termination
from .types import CONVEX_CLASSES, ProblemClass, SolverOptions


def pyomo_values(model: Any) -> dict[str, Any]:
    """Variable values of a Pyomo model: name -> float or array (index order; NaN if unset)."""
    import pyomo.environ as pyo

    out: dict[str, Any] = {}
    for comp in model.component_objects(pyo.Var, active=True, descend_into=True):
        if comp.is_indexed():
            out[comp.name] = np.array(
                [np.nan if v.value is None else float(v.value) for v in comp.values()])
        else:
            out[comp.name] = np.nan if comp.value is None else float(comp.value)
    return out


def _objective(model: Any) -> Any:
    import pyomo.environ as pyo

    return next(model.component_data_objects(pyo.Objective, active=True, descend_into=True))


_T = Termination
# Pyomo's termination condition -> (why it stopped, whether the solver claims an optimum)
_TC_MAP = {
    "optimal": (_T.CONVERGED, True), "globallyOptimal": (_T.CONVERGED, True),
    "locallyOptimal": (_T.CONVERGED, True), "maxTimeLimit": (_T.TIME_LIMIT, False),
    "infeasible": (_T.INFEASIBLE, False), "infeasibleOrUnbounded": (_T.INFEASIBLE, False),
    "unbounded": (_T.UNBOUNDED, False), "feasible": (_T.CONVERGED, False),
    "maxIterations": (_T.ITERATION_LIMIT, False), "maxEvaluations": (_T.ITERATION_LIMIT, False),
    "userInterrupt": (_T.ERROR, False), "minStepLength": (_T.ERROR, False),
    "other": (_T.CONVERGED, False), "intermediateNonInteger": (_T.CONVERGED, False),
}


class PyomoAdapter:
    """Solve Pyomo models through ``SolverFactory(factory_name)``.

    ``map_options`` turns :class:`SolverOptions` into the plugin's native option dict.
    ``global_opt`` says whether an optimal status certifies the bound (global solvers, or any
    solver on a convex class).
    """

    framework = "pyomo"

    def __init__(self, factory_name: str, classes: set[ProblemClass],
                 map_options: Callable[[SolverOptions], dict[str, Any]],
                 global_opt: bool = True) -> None:
        self.factory_name = factory_name
        self.classes = frozenset(classes)
        self.map_options = map_options
        self.global_opt = global_opt

    def solve(self, model: Any, options: SolverOptions, problem_class: ProblemClass,
              solver_label: str, version: str) -> Result:
        import pyomo.environ as pyo

        with warnings.catch_warnings():  # plugin imports emit third-party deprecations
            warnings.simplefilter("ignore", DeprecationWarning)
            opt = pyo.SolverFactory(self.factory_name)
        native = {**self.map_options(options), **options.extra}
        kwargs: dict[str, Any] = {"load_solutions": False, "tee": options.verbose}
        if native:
            kwargs["options"] = native
        warm = options.warm_start and _has_integer_start(model)
        if warm and getattr(opt, "warm_start_capable", lambda: False)():
            kwargs["warmstart"] = True
        elif warm and hasattr(getattr(opt, "config", None), "warmstart_discrete_vars"):
            # Pyomo's legacy wrapper of its new SCIP interface does not map ``warmstart``:
            # set the new interface's option (a partial start of the integer variables)
            opt.config.warmstart_discrete_vars = True
        base = {"solver": solver_label, "version": version, "problem_class": problem_class}
        t0 = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                results = opt.solve(model, **kwargs)
        except Exception as exc:  # solver raised: licence limits get a clear, typed error
            text = str(exc)
            if licence_error(text):
                raise SolverNotAvailableError(
                    f"{solver_label} refused the model: {text.strip()[:300]}. Its installed "
                    "licence is size-limited or missing; use an open-source solver (e.g. "
                    "solver='scip') or install a full licence.") from exc
            return Result(termination=Termination.ERROR, time_s=time.perf_counter() - t0,
                          message=f"{type(exc).__name__}: {text[:500]}", **base)
        elapsed = time.perf_counter() - t0
        tc = str(results.solver.termination_condition)
        term, claims_optimum = _TC_MAP.get(tc, (Termination.ERROR, False))
        has_sol = len(results.solution) > 0
        objective = bound = None
        obj = _objective(model)
        if has_sol:
            _load_quietly(model, results)
            objective = float(pyo.value(obj.expr))
        elif term is Termination.CONVERGED:
            term = Termination.ERROR   # "optimal" without a solution to load
        minimize = obj.sense == pyo.minimize
        raw_bound = results.problem.lower_bound if minimize else results.problem.upper_bound
        if raw_bound is not None and np.isfinite(float(raw_bound)):
            bound = float(raw_bound)
        certified = self.global_opt or problem_class in CONVEX_CLASSES
        if not certified:
            bound = None  # a local solver on a nonconvex model: no bound
        elif claims_optimum and bound is None:
            bound = objective  # a certifying solver's optimum, within its own tolerances
        res = Result(objective=objective, bound=bound, termination=term,
                     sense="min" if minimize else "max", time_s=elapsed,
                     gap_tol=options.mip_gap if options.mip_gap is not None else
                     DEFAULT_GAP_TOL, values=pyomo_values(model) if has_sol else {},
                     message=tc, raw=results, **base)
        local = claims_optimum and not certified and has_sol
        return res.mark_local(f"{solver_label}: {tc}") if local else res


def _has_integer_start(model: Any) -> bool:
    """True when every integer variable has a value (a start a MIP solver can use)."""
    import pyomo.environ as pyo

    ints = [v for v in model.component_data_objects(pyo.Var, active=True, descend_into=True)
            if v.is_integer() and not v.fixed]
    return bool(ints) and all(v.value is not None for v in ints)


def _load_quietly(model: Any, results: Any) -> None:
    """Load the solution without Pyomo's 'aborted status' warning (a time limit is normal)."""
    log = logging.getLogger("pyomo.core")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        model.solutions.load_from(results)
    finally:
        log.setLevel(level)
