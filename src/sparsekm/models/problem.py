"""The base of every problem object: data validated once, parameters checked once.

Each problem (``FSLinearProblem``, ``FSKernelProblem``, ...) is a dataclass deriving from
:class:`Problem`, registered with :func:`sparsekm.registry.register_problem`; every model,
relaxation and algorithm of that problem takes it as its first argument.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from sparsekm.data.checks import check_xy
from sparsekm.declare import Param, ParamError, params_of

__all__ = ["Problem", "check_budget", "check_positive", "declared"]


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
        for name, param in declared(type(self)).items():  # type, range, choices: declared
            setattr(self, name, param.check(getattr(self, name)))
        self.validate()

    def validate(self) -> None:
        """Checks that involve the data or several parameters (override); each field's own
        type and range are checked from its declaration before."""

    def certificate_defect(self, result: Any = None) -> str | None:
        """Why no bound can be certified on these data for ``result`` (a method's
        :class:`~sparsekm.solvers.Result`; e.g. an indefinite kernel: every duality
        certificate assumes a PSD kernel matrix), or None; the front door then withholds the
        bound (:meth:`~sparsekm.solvers.Result.withhold`)."""
        return None

    @property
    def m(self) -> int:
        """Number of samples."""
        return int(self.X.shape[0])

    @property
    def n(self) -> int:
        """Number of features."""
        return int(self.X.shape[1])

    def params(self) -> dict[str, Any]:
        """The problem's declared parameters and their values, for reports."""
        return {name: getattr(self, name) for name in declared(type(self))}


@functools.cache
def declared(cls: type) -> dict[str, Param]:
    """The declared parameters of a problem class (its fields with a spec), in field order."""
    return params_of(cls)


def check_budget(B: Any, n: int, name: str = "B") -> int:
    """An integer budget ``1 <= B <= n`` (ParamError naming ``name`` otherwise)."""
    if isinstance(B, bool) or B is None or int(B) != B or B < 1:
        raise ParamError(name, B, "give an integer >= 1")
    if n < B:
        raise ParamError(name, B, f"at most n = {n}, the number of features; choose "
                                  f"{name} <= {n}")
    return int(B)


def check_positive(name: str, value: Any) -> float:
    """A finite number > 0 (ParamError naming ``name`` otherwise)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ParamError(name, value, "give a finite number > 0") from None
    if not (v > 0 and math.isfinite(v)):
        raise ParamError(name, value, "give a finite number > 0")
    return v
