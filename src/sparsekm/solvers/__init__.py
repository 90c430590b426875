"""The pluggable solver layer: one registry, one :func:`solve`, one :class:`Result`.

>>> from sparsekm.solvers import solve
>>> res = solve(model, solver="scip", time_limit=60)      # doctest: +SKIP
>>> res.status, res.objective, res.bound, res.gap          # doctest: +SKIP

Models are Pyomo models, CVXPY problems, :class:`CallbackNLP` (numpy callbacks, for Ipopt) or
:class:`ConicQP` (matrices, for small hot QPs). Methods receive a :class:`SolverPlan` saying
which solver does which part and the time budget they share.
"""

from .api import (
    certifying_solvers,
    check_solver,
    resolve_solver,
    solve,
    solver_table,
    supports,
    usable_solvers,
)
from .backends import BACKENDS, Availability, Backend, canonical_name
from .classify import classify, declare_class, framework_of
from .errors import (
    ModelClassError,
    SolveFailedError,
    SolverCapabilityError,
    SolverError,
    SolverNotAvailableError,
)
from .nlp import CallbackNLP
from .plan import Deadline, SolverPlan
from .qp import ConicQP
from .result import (
    DEFAULT_GAP_TOL,
    Result,
    Status,
    Termination,
    finite_or_none,
    relative_gap,
)
from .types import CONVEX_CLASSES, ProblemClass, SolverOptions

__all__ = [
    "BACKENDS", "CONVEX_CLASSES", "Availability", "Backend", "CallbackNLP", "ConicQP",
    "DEFAULT_GAP_TOL", "Deadline", "ModelClassError", "ProblemClass", "Result", "SolveFailedError",
    "SolverCapabilityError", "SolverError", "SolverNotAvailableError", "SolverOptions",
    "SolverPlan", "Status", "Termination", "canonical_name", "certifying_solvers", "check_solver",
    "classify", "declare_class", "finite_or_none", "framework_of", "relative_gap",
    "resolve_solver", "solve", "solver_table", "supports", "usable_solvers",
]
