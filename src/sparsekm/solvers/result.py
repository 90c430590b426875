"""The one result type of sparsekm: every solve, relaxation and algorithm returns a :class:`Result`.

As in SCIP and Pyomo's ``contrib.solver``, *why a run stopped* (:class:`Termination`) is kept
apart from *what it holds* (:attr:`Result.status`), and the status is never typed in by a
method: it is derived, in this one place, from the numbers the result holds.

* ``objective`` is the incumbent's value, ``bound`` a bound on the optimum that a solver or a
  proof certified (None otherwise), on the side of ``sense``: a lower bound when minimising,
  an upper bound when maximising (read them as :attr:`Result.lower_bound` /
  :attr:`Result.upper_bound`).
* ``gap`` = |objective - bound| / |objective| (Gurobi's ``MIPGap``), purely relative: no
  absolute slack decides it (0 only when the two are equal).
* ``status`` is ``optimal`` exactly when ``gap <= gap_tol``, the tolerance the method declares
  (:data:`DEFAULT_GAP_TOL` unless it says otherwise); ``locally_optimal`` when a local method
  recorded the condition it met (:meth:`Result.mark_local`); ``feasible`` for any other point;
  ``bound_only`` for a certified bound without a point; ``infeasible`` / ``unbounded`` when a
  solver proved it; ``error`` when the run holds nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from .types import ProblemClass

__all__ = ["DEFAULT_GAP_TOL", "Result", "Status", "Termination", "finite_or_none",
           "relative_gap"]

DEFAULT_GAP_TOL = 1e-4   # Gurobi's MIPGap default; paper D's 0.01 %
CROSSING_SHARE = 1e-2   # a bound past the objective by at most this share of the tolerance


class Termination(str, Enum):
    """Why a solver or an algorithm stopped (never what it holds: that is the status)."""

    CONVERGED = "converged"              # its own stopping rule was met
    TIME_LIMIT = "time_limit"
    NODE_LIMIT = "node_limit"
    ITERATION_LIMIT = "iteration_limit"
    STALLED = "stalled"                  # a stall guard: no progress
    INFEASIBLE = "infeasible"            # proven infeasible
    UNBOUNDED = "unbounded"              # proven unbounded
    INTERRUPTED = "interrupted"          # the user stopped it (Ctrl-C): like a time limit
    ERROR = "error"

    def __str__(self) -> str:
        return self.value


class Status(str, Enum):
    """What a result holds (the CLI's ``status``), derived by :attr:`Result.status`."""

    OPTIMAL = "optimal"                  # certified: gap <= the method's tolerance
    LOCALLY_OPTIMAL = "locally_optimal"  # a local method's condition met, with its measure
    FEASIBLE = "feasible"                # a point, optimality not proven
    INFEASIBLE = "infeasible"            # proven
    UNBOUNDED = "unbounded"              # proven
    BOUND_ONLY = "bound_only"            # a certified bound and no point
    ERROR = "error"                      # neither a point nor a bound

    def __str__(self) -> str:
        return self.value


def relative_gap(objective: float | None, bound: float | None) -> float | None:
    """|objective - bound| / |objective| (Gurobi's convention, paper D's gap).

    None when either side is missing or not finite; 0 when the two are equal, inf when only the
    objective is 0. No absolute slack: a tiny objective gets a relative gap like any other.
    """
    if objective is None or bound is None:
        return None
    if not (math.isfinite(objective) and math.isfinite(bound)):
        return None
    diff = abs(float(objective) - float(bound))
    if diff == 0.0:
        return 0.0
    return math.inf if objective == 0 else diff / abs(float(objective))


def _crossing(objective: float, bound: float, sense: str) -> float:
    """How far ``bound`` lies past ``objective`` on the wrong side (0 when on its side)."""
    return max(0.0, bound - objective) if sense == "min" else max(0.0, objective - bound)


@dataclass
class Result:
    """Outcome of a solve, a relaxation or an algorithm.

    Attributes
    ----------
    objective : incumbent value (None without a point).
    bound : certified bound on the optimum, on ``sense``'s side (lower for ``"min"``, upper
        for ``"max"``); None unless a solver or a proof certified it. Set it with
        :meth:`certify`, which keeps it on its side.
    termination : why it stopped.
    sense : ``"min"`` or ``"max"`` (the direction of ``objective``).
    gap_tol : the relative gap at which the method counts its incumbent as proven optimal.
    local : the local optimality condition met (``{"condition", "residual"}``), or None.
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
    sense: str = "min"
    gap_tol: float = DEFAULT_GAP_TOL
    local: dict[str, Any] | None = None
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

    def __post_init__(self) -> None:
        if self.sense not in ("min", "max"):
            raise ValueError(f"sense={self.sense!r}: use 'min' or 'max'")
        bound, self.bound = self.bound, None
        self.certify(bound)

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
    def lower_bound(self) -> float | None:
        """The certified bound when minimising (None when maximising or without one)."""
        return self.bound if self.sense == "min" else None

    @property
    def upper_bound(self) -> float | None:
        """The certified bound when maximising (None when minimising or without one)."""
        return self.bound if self.sense == "max" else None

    @property
    def status(self) -> Status:
        """What the result holds, from its numbers (see the module docstring)."""
        if self.termination is Termination.INFEASIBLE:
            return Status.INFEASIBLE
        if self.termination is Termination.UNBOUNDED:
            return Status.UNBOUNDED
        if self.has_solution:
            gap = self.gap
            if gap is not None and gap <= self.gap_tol:
                return Status.OPTIMAL
            if self.local is not None:
                return Status.LOCALLY_OPTIMAL
            return Status.FEASIBLE
        return Status.BOUND_ONLY if self.has_bound else Status.ERROR

    @property
    def ok(self) -> bool:
        """True for a certified optimum."""
        return self.status is Status.OPTIMAL

    def value(self, name: str) -> Any:
        """The value of variable ``name`` (KeyError lists the known names)."""
        try:
            return self.values[name]
        except KeyError:
            raise KeyError(f"no variable {name!r} in the result; known: {sorted(self.values)}")\
                from None

    def certify(self, bound: float | None) -> Result:
        """Take a certified ``bound``, the best of it and the one held, on ``sense``'s side.

        A bound past the incumbent by the solver's round-off (at most ``CROSSING_SHARE`` of
        ``gap_tol``, relative: too little to change a verdict) is clipped to it; one past it
        by more contradicts the incumbent (a numerical failure of the bound or of the point)
        and is dropped, with a message, so that no status rests on it.
        """
        if bound is None or not math.isfinite(bound):
            return self
        bound = float(bound)
        if self.has_bound:   # keep the stronger of the two certified bounds
            bound = max(bound, self.bound) if self.sense == "min" else min(bound, self.bound)
        if self.has_solution:
            over = _crossing(float(self.objective), bound, self.sense)
            if over > CROSSING_SHARE * self.gap_tol * abs(float(self.objective)):
                note = (f"bound {bound:.10g} dropped: it lies past the objective "
                        f"{self.objective:.10g} by {over:.3g} (numerical error)")
                self.message = f"{self.message}; {note}" if self.message else note
                return self
            if over > 0:
                bound = float(self.objective)
        self.bound = bound
        return self

    def withhold(self, reason: str) -> Result:
        """Drop the bound: the problem's data do not let any bound be certified (``reason``,
        e.g. an indefinite kernel); the point stays, the status can no longer be optimal."""
        self.bound = None
        self.message = f"{reason}; {self.message}" if self.message else reason
        return self

    def mark_local(self, condition: str, residual: float | None = None) -> Result:
        """Record that the point meets a local optimality ``condition`` (e.g. "KKT of (20)",
        "no 1-swap neighbour improves"), measured by ``residual`` (a KKT residual; 0 for an
        exact combinatorial condition). A certified optimum stays ``optimal``."""
        self.local = {"condition": condition,
                      "residual": None if residual is None else float(residual)}
        return self

    def bound_fields(self) -> dict[str, float | None]:
        """``{"lower_bound": ...}`` when minimising, ``{"upper_bound": ...}`` when maximising
        (the JSON's key: never a field named for the other side)."""
        key = "lower_bound" if self.sense == "min" else "upper_bound"
        return {key: finite_or_none(self.bound)}

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (without the variable values)."""
        return {
            "status": self.status.value,
            "termination": self.termination.value,
            "sense": self.sense,
            "objective": finite_or_none(self.objective),
            **self.bound_fields(),
            "gap": finite_or_none(self.gap),
            "gap_tol": self.gap_tol,
            "local_optimality": self.local,
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
