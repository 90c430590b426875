"""Run a CVXPY problem through one of CVXPY's solver interfaces."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .errors import SolverNotAvailableError
from .pyomo_adapter import LICENCE_MARKERS
from .types import ProblemClass, SolveResult, SolverOptions, Status, relative_gap


def cvxpy_values(problem: Any) -> dict[str, Any]:
    """Variable values: name -> float or numpy array (None when unsolved)."""
    out: dict[str, Any] = {}
    for v in problem.variables():
        val = v.value
        out[v.name()] = float(val) if val is not None and np.ndim(val) == 0 else val
    return out


class CvxpyAdapter:
    """Solve CVXPY problems with ``problem.solve(solver=cvxpy_name, ...)``."""

    framework = "cvxpy"

    def __init__(self, cvxpy_name: str, classes: set[ProblemClass],
                 map_options: Callable[[SolverOptions], dict[str, Any]]) -> None:
        self.cvxpy_name = cvxpy_name
        self.classes = frozenset(classes)
        self.map_options = map_options

    def solve(self, problem: Any, options: SolverOptions, problem_class: ProblemClass,
              solver_label: str, version: str) -> SolveResult:
        import cvxpy as cp

        kwargs = {**self.map_options(options), **options.extra}
        t0 = time.perf_counter()
        try:
            problem.solve(solver=self.cvxpy_name, verbose=options.verbose,
                          warm_start=options.warm_start, **kwargs)
        except cp.error.SolverError as exc:
            text = str(exc)
            if any(m in text for m in LICENCE_MARKERS):
                raise SolverNotAvailableError(
                    f"{solver_label} refused the problem: {text.strip()[:300]}. Use an "
                    "open-source solver or install a full licence.") from exc
            return SolveResult(status=Status.ERROR, solver=solver_label, version=version,
                               problem_class=problem_class, time_s=time.perf_counter() - t0,
                               message=f"SolverError: {text[:500]}")
        elapsed = time.perf_counter() - t0
        st = problem.status
        value = problem.value
        objective = float(value) if value is not None and np.isfinite(value) else None
        bound = None
        message = st
        if st == cp.OPTIMAL:
            status = Status.OPTIMAL
            bound = objective if not problem_class.is_mixed_integer else \
                _mip_bound(problem, objective)
        elif st in (cp.INFEASIBLE, cp.INFEASIBLE_INACCURATE):
            status, objective = Status.INFEASIBLE, None
        elif st in (cp.UNBOUNDED, cp.UNBOUNDED_INACCURATE):
            status, objective = Status.UNBOUNDED, None
        elif st == cp.USER_LIMIT:
            status = Status.TIME_LIMIT if options.time_limit else Status.FEASIBLE
            bound = _mip_bound(problem, None)
        elif st == cp.OPTIMAL_INACCURATE:
            # Tolerances not met: the point is usable, the value is not a certified bound.
            status = Status.FEASIBLE
            message = "optimal_inaccurate: solver tolerances not met; no certified bound"
        else:
            status = Status.ERROR
        return SolveResult(status=status, objective=objective, bound=bound,
                           gap=relative_gap(objective, bound), time_s=elapsed,
                           solver=solver_label, version=version, problem_class=problem_class,
                           values=cvxpy_values(problem), message=message, raw=problem)


def _mip_bound(problem: Any, fallback: float | None) -> float | None:
    """Best bound reported by a MIP solver through CVXPY (Gurobi exposes ObjBound)."""
    extra = getattr(problem.solver_stats, "extra_stats", None)
    for attr in ("ObjBound", "objbound"):
        try:
            b = float(getattr(extra, attr))
            if np.isfinite(b):
                return b
        except Exception:  # noqa: BLE001 - not every backend exposes it
            continue
    return fallback
