"""The base of every problem object: data validated once, parameters checked once.

Each problem (``FSLinearProblem``, ``FSKernelProblem``, ...) is a dataclass deriving from
:class:`Problem`, registered with :func:`sparsekm.registry.register_problem`; every model,
relaxation and algorithm of that problem takes it as its first argument.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from sparsekm.data.checks import check_xy
from sparsekm.declare import Param, ParamError, params_of

__all__ = ["PointCheck", "Problem", "check_budget", "check_positive", "declared",
           "finite_point"]


@dataclass
class Problem:
    """Training data ``X`` (m x n) and labels ``y`` in {-1, +1}; subclasses add parameters.

    Subclasses validate their own parameters in :meth:`validate`, which runs after the data
    check; a bad value raises ``ValueError`` naming the parameter and the fix.
    """

    X: np.ndarray
    y: np.ndarray
    problem_name: ClassVar[str] = ""
    # the variables of the problem's models (and exported files) -> their meaning in the paper
    variables: ClassVar[dict[str, str]] = {}

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

    def variable_sizes(self) -> dict[str, int]:
        """Entries of each variable of the problem's models: n, m, ... (0 a scalar, -1 a
        matrix or an auxiliary that a check does not read)."""
        raise NotImplementedError(f"{type(self).__name__} declares no model variables")

    def check_point(self, values: Mapping[str, Any],
                    support: Sequence[int] | None = None) -> PointCheck:
        """A point of the problem's models (the paper's variables by name, e.g. ``{"w": ...,
        "b": ...}``) or a support, checked on the problem itself: the largest violation of
        each family of its constraints, its objective recomputed from the data, and the
        exact value of its support (:meth:`support_value`). A non-finite value is a
        ``ValueError`` naming it (:func:`finite_point`)."""
        raise NotImplementedError(f"{type(self).__name__} has no feasibility check")

    def support_value(self, support: Sequence[int]) -> tuple[float, float]:
        """The exact value of the problem on a support (its continuous part re-solved) as
        (value at a feasible point, certified bound): an interval that holds the optimum
        over that support."""
        raise NotImplementedError(f"{type(self).__name__} has no support value")


@dataclass
class PointCheck:
    """A point checked on its problem (:meth:`Problem.check_point`).

    ``violations``: the largest violation of each constraint family (0 when it holds);
    ``objective``: the problem's objective at the point (recomputed from the data);
    ``support`` and its exact value (``support_objective`` at a feasible point,
    ``support_bound`` certified); ``details``: what else the check found (a b it chose,
    the objective with the file's slacks, ...).
    """

    violations: dict[str, float]
    objective: float | None = None
    support: list[int] | None = None
    support_objective: float | None = None
    support_bound: float | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def worst(self) -> str | None:
        """The constraint family violated most (None when there is none)."""
        return max(self.violations, key=self.violations.__getitem__) if self.violations \
            else None

    @property
    def max_violation(self) -> float:
        return float(self.violations[self.worst]) if self.violations else 0.0

    def feasible(self, tol: float = 1e-6) -> bool:
        """Every violation at most ``tol``."""
        return self.max_violation <= tol

    def to_dict(self, tol: float = 1e-6) -> dict[str, Any]:
        """Plain data for a report: feasible, the violations and the values."""
        gap = None
        if self.support_objective is not None and self.support_bound is not None:
            gap = (self.support_objective - self.support_bound) / max(
                abs(self.support_objective), 1e-12)
        return {"feasible": self.feasible(tol), "max_violation": self.max_violation,
                "worst": self.worst, "tol": tol, "violations": dict(self.violations),
                "objective": self.objective, "support": self.support,
                "support_objective": self.support_objective,
                "support_bound": self.support_bound, "support_gap": gap, **self.details}


def finite_point(values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` as float arrays (a scalar a float; None stays None); ValueError naming the
    first entry that is not a finite number (``w[3] = inf``)."""
    out: dict[str, Any] = {}
    for name, val in values.items():
        if val is None:
            out[name] = None
            continue
        arr = np.asarray(val, dtype=float)
        bad = np.flatnonzero(~np.isfinite(arr.ravel()))
        if bad.size:
            where = "" if arr.ndim == 0 else f"[{int(bad[0])}]"
            raise ValueError(f"{name}{where} = {float(arr.ravel()[bad[0]])!r} is not a finite "
                             "number")
        out[name] = float(arr) if arr.ndim == 0 else arr
    return out


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
