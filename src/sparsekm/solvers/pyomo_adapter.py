"""Run a Pyomo model through a Pyomo solver plugin and return a :class:`SolveResult`."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .errors import SolverNotAvailableError
from .types import ProblemClass, SolveResult, SolverOptions, Status, relative_gap

# Licence-limit messages of the commercial pip packages (see README, solver table).
LICENCE_MARKERS = ("size-limited", "Community Edition", "too many rows and columns",
                   "License", "license", "licence")


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


_TC_MAP = {
    "optimal": Status.OPTIMAL, "globallyOptimal": Status.OPTIMAL,
    "locallyOptimal": Status.OPTIMAL, "maxTimeLimit": Status.TIME_LIMIT,
    "infeasible": Status.INFEASIBLE, "infeasibleOrUnbounded": Status.INFEASIBLE,
    "unbounded": Status.UNBOUNDED, "feasible": Status.FEASIBLE,
    "maxIterations": Status.FEASIBLE, "maxEvaluations": Status.FEASIBLE,
    "userInterrupt": Status.FEASIBLE, "minStepLength": Status.FEASIBLE,
    "other": Status.FEASIBLE, "intermediateNonInteger": Status.FEASIBLE,
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
              solver_label: str, version: str) -> SolveResult:
        import pyomo.environ as pyo

        with warnings.catch_warnings():  # plugin imports emit third-party deprecations
            warnings.simplefilter("ignore", DeprecationWarning)
            opt = pyo.SolverFactory(self.factory_name)
        native = {**self.map_options(options), **options.extra}
        kwargs: dict[str, Any] = {"load_solutions": False, "tee": options.verbose}
        if native:
            kwargs["options"] = native
        if options.warm_start and getattr(opt, "warm_start_capable", lambda: False)():
            kwargs["warmstart"] = True
        t0 = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                results = opt.solve(model, **kwargs)
        except Exception as exc:  # solver raised: licence limits get a clear, typed error
            text = str(exc)
            if any(m in text for m in LICENCE_MARKERS):
                raise SolverNotAvailableError(
                    f"{solver_label} refused the model: {text.strip()[:300]}. Its installed "
                    "licence is size-limited or missing; use an open-source solver (e.g. "
                    "solver='scip') or install a full licence.") from exc
            return SolveResult(status=Status.ERROR, solver=solver_label, version=version,
                               problem_class=problem_class,
                               time_s=time.perf_counter() - t0,
                               message=f"{type(exc).__name__}: {text[:500]}")
        elapsed = time.perf_counter() - t0
        tc = str(results.solver.termination_condition)
        status = _TC_MAP.get(tc, Status.ERROR)
        has_sol = len(results.solution) > 0
        objective = bound = None
        obj = _objective(model)
        if has_sol:
            model.solutions.load_from(results)
            objective = float(pyo.value(obj.expr))
        elif status in (Status.OPTIMAL, Status.FEASIBLE):
            status = Status.ERROR
        minimize = obj.sense == pyo.minimize
        raw_bound = results.problem.lower_bound if minimize else results.problem.upper_bound
        if raw_bound is not None and np.isfinite(float(raw_bound)):
            bound = float(raw_bound)
        certified = self.global_opt or problem_class in _CONVEX
        if not certified:
            bound = None
        elif status is Status.OPTIMAL and bound is None:
            bound = objective
        return SolveResult(
            status=status, objective=objective, bound=bound,
            gap=relative_gap(objective, bound), time_s=elapsed, solver=solver_label,
            version=version, problem_class=problem_class,
            values=pyomo_values(model) if has_sol else {}, message=tc, raw=results)


_CONVEX = {ProblemClass.LP, ProblemClass.QP, ProblemClass.SOCP, ProblemClass.SDP,
           ProblemClass.EXP}
