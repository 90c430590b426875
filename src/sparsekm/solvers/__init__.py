"""The pluggable solver layer: one registry, one :func:`solve`, one :class:`SolveResult`.

>>> from sparsekm.solvers import solve
>>> res = solve(model, solver="scip", time_limit=60)      # doctest: +SKIP
>>> res.status, res.objective, res.bound, res.gap          # doctest: +SKIP
"""

from .api import resolve_solver, solve, solver_table, supports, usable_solvers
from .backends import BACKENDS, Availability, Backend, canonical_name
from .classify import classify, declare_class, framework_of
from .errors import (
    ModelClassError,
    SolverCapabilityError,
    SolverError,
    SolverNotAvailableError,
)
from .types import ProblemClass, SolveResult, SolverOptions, Status, relative_gap

__all__ = [
    "BACKENDS", "Availability", "Backend", "ModelClassError", "ProblemClass", "SolveResult",
    "SolverCapabilityError", "SolverError", "SolverNotAvailableError", "SolverOptions", "Status",
    "canonical_name", "classify", "declare_class", "framework_of", "relative_gap",
    "resolve_solver", "solve", "solver_table", "supports", "usable_solvers",
]
