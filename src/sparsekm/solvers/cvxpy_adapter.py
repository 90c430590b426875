"""Run a CVXPY problem through one of CVXPY's solver interfaces."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from sparsekm.parallel.stoppable import Stopped

from .errors import SolverNotAvailableError, licence_error
from .result import DEFAULT_GAP_TOL, Result, Termination
from .types import ProblemClass, SolverOptions

DualBound = Callable[[Any, float], "float | None"]


def cvxpy_values(problem: Any) -> dict[str, Any]:
    """Variable values: name -> float or numpy array (None when unsolved)."""
    out: dict[str, Any] = {}
    for v in problem.variables():
        val = v.value
        out[v.name()] = float(val) if val is not None and np.ndim(val) == 0 else val
    return out


def no_certified_bound(problem: Any, objective: float) -> None:
    """For first-order solvers: neither the primal nor the reported dual value is a bound.

    Measured: SCS's dual objective on DSCoP (13) exceeded the interior-point optimum by 5e-6
    relative (its dual residual), so it is not a certificate; relaxations with a closed-form
    dual certify their bound from the multipliers instead.
    """
    return None


def interior_point_bound(tol_abs: float = 1e-8, tol_rel: float = 1e-8) -> DualBound:
    """An interior-point solver's value moved past its own duality-gap tolerance: below it when
    minimising, above it when maximising (the side a bound of that sense lies on)."""

    def bound(problem: Any, objective: float) -> float:
        import cvxpy as cp  # at a solve: the backends' table is built without cvxpy

        slack = tol_abs + tol_rel * abs(objective)
        return objective + slack if isinstance(problem.objective, cp.Maximize) else \
            objective - slack

    return bound


class CvxpyAdapter:
    """Solve CVXPY problems with ``problem.solve(solver=cvxpy_name, ...)``.

    ``dual_bound(problem, objective)`` turns a solved continuous problem into a certified
    bound (or None when the solver certifies none); without it the optimal value is taken as
    the bound.
    """

    framework = "cvxpy"

    @property
    def certifies(self) -> bool:
        """False for a first-order solver whose values are not a certified bound."""
        return self.dual_bound is not no_certified_bound

    def __init__(self, cvxpy_name: str, classes: set[ProblemClass],
                 map_options: Callable[[SolverOptions], dict[str, Any]],
                 dual_bound: DualBound | None = None) -> None:
        self.cvxpy_name = cvxpy_name
        self.classes = frozenset(classes)
        self.map_options = map_options
        self.dual_bound = dual_bound

    def solve(self, problem: Any, options: SolverOptions, problem_class: ProblemClass,
              solver_label: str, version: str) -> Result:
        import cvxpy as cp

        base = {"solver": solver_label, "version": version, "problem_class": problem_class}
        t0 = time.perf_counter()
        try:
            self._compile_and_solve(problem, options)
        except Stopped:
            return Result(termination=Termination.TIME_LIMIT, time_s=time.perf_counter() - t0,
                          message=f"{solver_label} was stopped at the time limit (a step it "
                          "could not interrupt itself: its set-up or one iteration)", **base)
        except Exception as exc:  # noqa: BLE001 - CVXPY's or the solver's own (e.g. Xpress)
            text = str(exc)
            if licence_error(text):
                raise SolverNotAvailableError(
                    f"{solver_label} refused the problem: {text.strip()[:300]}. Use an "
                    "open-source solver or install a full licence.") from exc
            if isinstance(exc, cp.error.DCPError | ValueError | TypeError):
                raise  # a modelling mistake, not a solver failure
            return Result(termination=Termination.ERROR, time_s=time.perf_counter() - t0,
                          message=f"{type(exc).__name__}: {text[:500]}", **base)
        elapsed = time.perf_counter() - t0
        st = problem.status
        value = problem.value
        objective = float(value) if value is not None and np.isfinite(value) else None
        term, bound = Termination.CONVERGED, None
        message = st
        if st == cp.OPTIMAL:
            if problem_class.is_mixed_integer:
                bound = _mip_bound(problem, objective)
            elif objective is not None:
                bound = self.dual_bound(problem, objective) if self.dual_bound else objective
                if bound is None:  # converged to its tolerances: a point, not a certificate
                    message = (f"{solver_label} converged to its tolerances, but a first-order "
                               "solver's value is not a certified bound")
        elif st in (cp.INFEASIBLE, cp.INFEASIBLE_INACCURATE):
            term, objective = Termination.INFEASIBLE, None
        elif st in (cp.UNBOUNDED, cp.UNBOUNDED_INACCURATE):
            term, objective = Termination.UNBOUNDED, None
        elif st == cp.USER_LIMIT:
            term = Termination.TIME_LIMIT if options.time_limit else Termination.ITERATION_LIMIT
            bound = _mip_bound(problem, None) if problem_class.is_mixed_integer else None
        elif st == cp.OPTIMAL_INACCURATE:
            # Tolerances not met: the point is usable, its value is not a certified bound.
            term = Termination.ITERATION_LIMIT
            message = "optimal_inaccurate: solver tolerances not met; no certified bound"
        else:
            term, objective = Termination.ERROR, None
        sense = "max" if isinstance(problem.objective, cp.Maximize) else "min"
        return Result(objective=objective, bound=bound, termination=term, sense=sense,
                      gap_tol=options.mip_gap if options.mip_gap is not None else
                      DEFAULT_GAP_TOL, time_s=elapsed, values=cvxpy_values(problem),
                      message=message, raw=problem, **base)

    def _compile_and_solve(self, problem: Any, options: SolverOptions) -> None:
        """CVXPY's ``problem.solve`` in its two steps, so that the solver's time limit is what
        the compilation left (DSCoP on madelon: 0.43 s of a 2.9 s limit went to it), less the
        compilation time again: an interior-point solver reads its clock between iterations,
        and one iteration costs about as much as compiling (madelon: 0.5-0.7 s)."""
        t0 = time.perf_counter()
        kwargs = {**self.map_options(options), **options.extra}
        data, chain, inverse = problem.get_problem_data(self.cvxpy_name,
                                                        verbose=options.verbose,
                                                        solver_opts=kwargs)
        if options.time_limit is None:
            solution = chain.solve_via_data(problem, data, options.warm_start, options.verbose,
                                            kwargs)
            problem.unpack_results(solution, chain, inverse)
            return
        compile_s = time.perf_counter() - t0
        left = max(options.time_limit - 2.0 * compile_s, MIN_SOLVER_TIME_S)
        kwargs.update(self.map_options(replace(options, time_limit=left)))
        kwargs.update(options.extra)   # a solver-native limit given by name stays
        args = (chain, problem, data, inverse, (options.warm_start, options.verbose, kwargs))
        if not _heavy(data):
            solution = chain.solve_via_data(problem, data, *args[4])
            problem.unpack_results(solution, chain, inverse)
            return
        # a step the solver cannot interrupt may outlast the limit: solved where it can be
        # stopped (the time left after compiling, plus what compiling took: the solver's own
        # stop between iterations comes first when it can)
        from sparsekm.parallel.stoppable import call_until

        _unpack(problem, chain, call_until(_solve_inverted, args,
                                           options.time_limit - compile_s + STOP_GRACE_S))


MIN_SOLVER_TIME_S = 0.01   # the solver's limit when compiling used up the time
HEAVY_NNZ = 200_000        # constraint nonzeros from which a solve runs where it can be stopped
HEAVY_PSD = 50             # ... or a PSD cone of at least this order
STOP_GRACE_S = 0.25        # seconds past the solver's own limit before it is stopped


def _heavy(data: dict[str, Any]) -> bool:
    """A model whose set-up or single iteration may outlast a time limit (see
    :mod:`sparsekm.parallel.stoppable`): many constraint nonzeros, or a large PSD cone."""
    A = data.get("A")
    dims = data.get("dims")
    psd = list(getattr(dims, "psd", []) or [])
    return (A is not None and getattr(A, "nnz", 0) >= HEAVY_NNZ) or \
        any(k >= HEAVY_PSD for k in psd)


def _solve_inverted(chain: Any, problem: Any, data: Any, inverse: Any, opts: tuple) -> Any:
    """The solver's answer on ``data``, inverted to the problem's variables (a picklable
    :class:`cvxpy.Solution`, without the solver's raw objects)."""
    warm, verbose, kwargs = opts
    solution = chain.solve_via_data(problem, data, warm, verbose, kwargs)
    inverted = chain.invert(solution, inverse)
    inverted.attr = {k: v for k, v in inverted.attr.items()
                     if isinstance(v, int | float | str | type(None))}
    return inverted


def _unpack(problem: Any, chain: Any, solution: Any) -> None:
    """What ``Problem.unpack_results`` does, from an inverted solution."""
    import warnings

    from cvxpy import error
    from cvxpy import settings as s
    from cvxpy.problems.problem import SolverStats

    if solution.status in s.INACCURATE:
        warnings.warn("Solution may be inaccurate. Try another solver, adjusting the solver "
                      "settings, or solve with verbose=True for more information.",
                      stacklevel=3)
    if solution.status in s.ERROR:
        raise error.SolverError(f"Solver '{chain.solver.name()}' failed. Try another solver, "
                                "or solve with verbose=True for more information.")
    problem.unpack(solution)
    problem._solver_stats = SolverStats.from_dict(solution.attr, chain.solver.name())


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
