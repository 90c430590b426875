"""The one result type of sparsekm: every solve, relaxation and algorithm returns a :class:`Result`.

As in Pyomo's new solver interface, *why it stopped* (:class:`Termination`) is kept apart from
*what it holds* (:class:`SolutionStatus`); the one-word :attr:`Result.status` of the CLI's JSON
is derived from the two. ``objective`` is the incumbent's value and ``bound`` a bound on the
optimum in the objective's direction that a solver or a proof certified (None otherwise).

The words mean the same for every problem: ``optimal`` is certified (a global solver, an
enumeration, a closed tree, a duality gap within tolerance); ``locally_optimal`` is a local
method's stopping point with its measure in ``extra["local_optimality"]`` (the condition met
and its residual, e.g. a KKT residual or "no 1-swap neighbour improves"); ``feasible`` is a
point without either. A result may hold a certified bound and no incumbent (``bound_only``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import numpy as np

from .types import ProblemClass


class Termination(str, Enum):
    """Why a solver or an algorithm stopped."""

    CONVERGED = "converged"              # its own stopping rule was met (optimality, local opt.)
    TIME_LIMIT = "time_limit"
    ITERATION_LIMIT = "iteration_limit"
    INFEASIBLE = "infeasible"            # proven infeasible
    UNBOUNDED = "unbounded"
    ERROR = "error"

    def __str__(self) -> str:
        return self.value


class SolutionStatus(str, Enum):
    """What the result holds."""

    OPTIMAL = "optimal"      # certified: ``bound`` closes the gap (global solver, proof, ...)
    LOCALLY_OPTIMAL = "locally_optimal"  # a local method's optimality conditions are met
    FEASIBLE = "feasible"    # a feasible point, optimality not proven
    INFEASIBLE = "infeasible"
    NONE = "none"            # no point

    def __str__(self) -> str:
        return self.value


class Status(str, Enum):
    """The one-word summary of a result (the CLI's ``status``)."""

    OPTIMAL = "optimal"    # certified optimum
    LOCALLY_OPTIMAL = "locally_optimal"  # a local method's optimum, with its measure
    FEASIBLE = "feasible"  # a solution, stopped for a reason other than the time limit
    BOUND_ONLY = "bound_only"  # a certified bound and no incumbent (e.g. a node limit)
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    TIME_LIMIT = "time_limit"  # stopped by the time limit; incumbent and bound when available
    ERROR = "error"

    def __str__(self) -> str:
        return self.value


def relative_gap(objective: float | None, bound: float | None) -> float | None:
    """|objective - bound| / |objective| (Gurobi's convention and paper D's gap).

    None when either side is missing or infinite; 0 when both are 0 (within 1e-9) and inf when
    only the objective is 0 (a relative gap is then undefined).
    """
    if objective is None or bound is None:
        return None
    if not (np.isfinite(objective) and np.isfinite(bound)):
        return None
    diff = abs(objective - bound)
    if abs(objective) < 1e-9:
        return 0.0 if diff < 1e-9 else math.inf
    return diff / abs(objective)


@dataclass
class Result:
    """Outcome of a solve, a relaxation or an algorithm.

    Attributes
    ----------
    objective : incumbent value (None without a point).
    bound : certified bound on the optimum (lower when ``sense="min"``, upper for ``"max"``);
        None unless a solver or a proof certified it.
    termination, solution_status : why it stopped / what it holds.
    sense : ``"min"`` or ``"max"`` (the direction of ``objective``).
    time_s, solver, version, method, problem, problem_class : provenance.
    selected : 0-based indices of the selected features / kernels, when the problem has them.
    values : the point, by the paper's variable names (``w``, ``b``, ``alpha``, ``beta``, ...);
        also readable as attributes (``res.alpha``).
    log : per-iteration or per-start history (a list of dicts).
    extra : anything else a method reports.
    message : the solver's or method's own words on how it ended.
    """

    objective: float | None = None
    bound: float | None = None
    termination: Termination = Termination.CONVERGED
    solution_status: SolutionStatus = SolutionStatus.NONE
    sense: str = "min"
    time_s: float = 0.0
    solver: str = ""
    version: str = ""
    method: str = ""
    problem: str = ""
    problem_class: ProblemClass | None = None
    selected: list[int] | None = None
    values: dict[str, Any] = field(default_factory=dict)
    log: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    message: str = ""
    raw: Any = field(default=None, repr=False, compare=False)

    def __getattr__(self, name: str) -> Any:
        """Variables of the point as attributes: ``res.w`` is ``res.values["w"]``."""
        if name.startswith("_"):
            raise AttributeError(name)
        values = self.__dict__.get("values") or {}
        if name in values:
            return values[name]
        raise AttributeError(f"{type(self).__name__} has no attribute or value {name!r}; "
                             f"values: {sorted(values)}")

    @property
    def gap(self) -> float | None:
        """|objective - bound| / |objective|, None without a certified bound."""
        return relative_gap(self.objective, self.bound)

    @property
    def has_solution(self) -> bool:
        """True when a point with a finite objective was returned."""
        return self.objective is not None and math.isfinite(self.objective)

    @property
    def has_bound(self) -> bool:
        """True when a finite certified bound was returned."""
        return self.bound is not None and math.isfinite(self.bound)

    @property
    def status(self) -> Status:
        """One word: time_limit, error, infeasible, unbounded, optimal, locally_optimal,
        feasible or bound_only (a certified bound without an incumbent is not an error)."""
        t = self.termination
        if t is Termination.TIME_LIMIT:
            return Status.TIME_LIMIT
        if t is Termination.INFEASIBLE or self.solution_status is SolutionStatus.INFEASIBLE:
            return Status.INFEASIBLE
        if t is Termination.UNBOUNDED:
            return Status.UNBOUNDED
        if t is Termination.ERROR:
            return Status.ERROR
        if not self.has_solution:
            return Status.BOUND_ONLY if self.has_bound else Status.ERROR
        if self.solution_status is SolutionStatus.OPTIMAL:
            return Status.OPTIMAL
        if self.solution_status is SolutionStatus.LOCALLY_OPTIMAL:
            return Status.LOCALLY_OPTIMAL
        return Status.FEASIBLE

    @property
    def ok(self) -> bool:
        """True for a proven optimum."""
        return self.status is Status.OPTIMAL

    def value(self, name: str) -> Any:
        """The value of variable ``name`` (KeyError lists the known names)."""
        try:
            return self.values[name]
        except KeyError:
            raise KeyError(f"no variable {name!r} in the result; known: {sorted(self.values)}")\
                from None

    def certify(self, bound: float | None, tol: float = 1e-4) -> Result:
        """Record a certified ``bound`` (clipped to the objective) and mark a closed gap optimal.

        A bound past the incumbent by round-off is clipped to it; ``tol`` is the relative gap
        at which the incumbent counts as proven optimal (paper D: 0.01 %).
        """
        if bound is None or not math.isfinite(bound):
            return self
        if self.has_solution:
            bound = min(bound, self.objective) if self.sense == "min" else \
                max(bound, self.objective)
        self.bound = float(bound)
        gap = self.gap
        if gap is not None and gap <= tol and self.has_solution:
            self.solution_status = SolutionStatus.OPTIMAL
        return self

    def mark_local(self, condition: str, residual: float | None = None) -> Result:
        """Mark the point a local optimum: ``condition`` says which (e.g. "KKT of (20)",
        "no 1-swap neighbour improves"), ``residual`` measures it (a KKT residual; 0 for an
        exact combinatorial condition). A certified optimum stays ``optimal``."""
        if self.solution_status is not SolutionStatus.OPTIMAL and self.has_solution:
            self.solution_status = SolutionStatus.LOCALLY_OPTIMAL
        self.extra["local_optimality"] = {
            "condition": condition, "residual": None if residual is None else float(residual)}
        return self

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (without the variable values)."""
        return {
            "status": self.status.value,
            "termination": self.termination.value,
            "solution_status": self.solution_status.value,
            "objective": finite_or_none(self.objective),
            "bound": finite_or_none(self.bound),
            "gap": finite_or_none(self.gap),
            "time_s": round(self.time_s, 6),
            "solver": self.solver,
            "version": self.version,
            "method": self.method,
            "problem_class": self.problem_class.value if self.problem_class else None,
            "message": self.message,
        }


def finite_or_none(x: float | None) -> float | None:
    """``float(x)`` when finite, else None (JSON has no inf/NaN)."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None
