"""Problem classes and the common solver options."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


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


CONVEX_CLASSES = frozenset({ProblemClass.LP, ProblemClass.QP, ProblemClass.SOCP,
                            ProblemClass.SDP, ProblemClass.EXP})
"""Classes on which a local optimum certifies its value as a bound."""
