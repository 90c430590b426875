"""Problem classes, statuses, options and the uniform solve result."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import numpy as np


class ProblemClass(str, Enum):
    """Mathematical-programming problem classes a backend may declare."""

    LP = "LP"
    QP = "QP"
    MILP = "MILP"
    MIQP = "MIQP"
    SOCP = "SOCP"
    MISOCP = "MISOCP"
    SDP = "SDP"
    EXP = "EXP"
    NLP = "NLP"
    MINLP = "MINLP"

    @property
    def is_mixed_integer(self) -> bool:
        return self in (ProblemClass.MILP, ProblemClass.MIQP, ProblemClass.MISOCP,
                        ProblemClass.MINLP)

    def __str__(self) -> str:
        return self.value


class Status(str, Enum):
    """Uniform termination status."""

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"  # a solution, stopped for a reason other than the time limit
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    TIME_LIMIT = "time_limit"  # stopped by the time limit; incumbent and bound when available
    ERROR = "error"

    def __str__(self) -> str:
        return self.value


@dataclass
class SolverOptions:
    """Common options, mapped onto each backend's own parameter names.

    ``extra`` holds solver-native parameters passed through unchanged.
    """

    time_limit: float | None = None
    mip_gap: float | None = None
    threads: int | None = None
    verbose: bool = False
    warm_start: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class SolveResult:
    """What every backend returns.

    ``objective`` is the incumbent's value, ``bound`` the best proven bound in the objective's
    direction (a lower bound when minimizing), ``gap`` = |objective - bound| / |objective|
    (see :func:`relative_gap`).
    ``values`` maps each variable name to a float (scalar) or a numpy array in index order.
    """

    status: Status
    objective: float | None = None
    bound: float | None = None
    gap: float | None = None
    time_s: float = 0.0
    solver: str = ""
    version: str = ""
    problem_class: ProblemClass | None = None
    values: dict[str, Any] = field(default_factory=dict)
    message: str = ""
    raw: Any = field(default=None, repr=False)

    @property
    def has_solution(self) -> bool:
        """True when a feasible point (incumbent) was returned."""
        return self.objective is not None and math.isfinite(self.objective)

    @property
    def ok(self) -> bool:
        """True for an optimal status."""
        return self.status is Status.OPTIMAL

    def value(self, name: str) -> Any:
        """The value of variable ``name`` (KeyError lists the known names)."""
        try:
            return self.values[name]
        except KeyError:
            raise KeyError(f"no variable {name!r} in the result; known: {sorted(self.values)}")\
                from None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (without variable values)."""
        return {
            "status": self.status.value,
            "objective": _finite_or_none(self.objective),
            "bound": _finite_or_none(self.bound),
            "gap": _finite_or_none(self.gap),
            "time_s": round(self.time_s, 6),
            "solver": self.solver,
            "version": self.version,
            "problem_class": self.problem_class.value if self.problem_class else None,
            "message": self.message,
        }


def _finite_or_none(x: float | None) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


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
