"""The base of every problem object: data validated once, parameters checked once.

Each problem (``FSLinearProblem``, ``FSKernelProblem``, ...) is a dataclass deriving from
:class:`Problem`, registered with :func:`sparsekm.registry.register_problem`; every model,
relaxation and algorithm of that problem takes it as its first argument.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from sparsekm.data.checks import check_xy

__all__ = ["Problem", "check_budget", "check_positive"]


@dataclass
class Problem:
    """Training data ``X`` (m x n) and labels ``y`` in {-1, +1}; subclasses add parameters.

    Subclasses validate their own parameters in :meth:`validate`, which runs after the data
    check; a bad value raises ``ValueError`` naming the parameter and the fix.
    """

    X: np.ndarray
    y: np.ndarray
    problem_name: ClassVar[str] = ""

    def __post_init__(self) -> None:
        self.X, self.y = check_xy(self.X, self.y)
        self.validate()

    def validate(self) -> None:
        """Check the problem's own parameters (override)."""

    @property
    def m(self) -> int:
        """Number of samples."""
        return int(self.X.shape[0])

    @property
    def n(self) -> int:
        """Number of features."""
        return int(self.X.shape[1])

    def params(self) -> dict[str, Any]:
        """The problem's parameters (every field but the data), for reports."""
        from dataclasses import fields

        return {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("X", "y")}


def check_budget(B: Any, n: int, name: str = "B") -> int:
    """An integer budget ``1 <= B <= n``."""
    if isinstance(B, bool) or B is None or int(B) != B:
        raise ValueError(f"{name}={B!r} must be an integer")
    if B < 1:
        raise ValueError(f"{name}={B} < 1: select at least one feature ({name} >= 1)")
    if n < B:
        raise ValueError(f"{name}={B} > n={n}: choose {name} <= n (the number of features)")
    return int(B)


def check_positive(name: str, value: Any) -> float:
    """A finite number > 0."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}={value!r} must be a number > 0") from None
    if not (v > 0 and math.isfinite(v)):
        raise ValueError(f"{name}={value} must be a finite number > 0")
    return v
