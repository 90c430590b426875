"""A convex QP / SOCP given as matrices: the solver layer's route for small, hot subproblems.

The SVM (1) on a fixed support is solved thousands of times by paper D's methods; building a
modelling-layer problem for each costs more than the solve. :class:`ConicQP` is Clarabel's
standard form, solved by Clarabel natively (the default) or, when another solver is named, by
that solver through CVXPY: one route, the solver flag reaches it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .result import Result, Termination
from .types import ProblemClass, SolverOptions

__all__ = ["ConicQP"]

CONES = ("zero", "nonneg", "soc", "psd")


@dataclass
class ConicQP:
    """min 1/2 x'Px + q'x  s.t.  A x + s = b,  s in K = K_1 x ... x K_r.

    ``cones`` lists ``(kind, size)`` blocks of rows of A in order: ``"zero"`` (equalities),
    ``"nonneg"`` (A x <= b), ``"soc"`` (s_1 >= ||s_2:||) and ``"psd"`` (s = svec of a PSD
    n x n matrix: its upper triangle column by column, off-diagonals times sqrt(2), size
    n(n+1)/2 -- Clarabel's convention; used by paper B's 3x3-minor relaxation (18)).
    ``P`` and ``A`` are scipy sparse;
    ``names`` maps a variable name to its slice of x (reported in ``Result.values``).
    """

    P: Any
    q: np.ndarray
    A: Any
    b: np.ndarray
    cones: list[tuple[str, int]]
    names: dict[str, slice] = field(default_factory=dict)
    name: str = "conic QP"

    def __post_init__(self) -> None:
        for kind, size in self.cones:
            if kind not in CONES or size < 1:
                raise ValueError(f"cone ({kind!r}, {size}): use one of {CONES} with size >= 1")
        if sum(s for _, s in self.cones) != self.A.shape[0]:
            raise ValueError("the cone sizes must add up to the rows of A")

    @property
    def problem_class(self) -> ProblemClass:
        if any(k == "psd" for k, _ in self.cones):
            return ProblemClass.SDP
        if any(k == "soc" for k, _ in self.cones):
            return ProblemClass.SOCP
        return ProblemClass.QP if self.P.nnz else ProblemClass.LP

    def named_values(self, x: np.ndarray) -> dict[str, Any]:
        out: dict[str, Any] = {"x": x}
        out.update({k: x[sl] for k, sl in self.names.items()})
        return out

    def to_cvxpy(self) -> tuple[Any, Any]:
        """The same problem in CVXPY, and its variable x."""
        import cvxpy as cp

        x = cp.Variable(self.q.size, name="x")
        obj = self.q @ x
        if self.P.nnz:
            obj = obj + 0.5 * cp.quad_form(x, cp.psd_wrap(self.P))
        cons, row = [], 0
        for kind, size in self.cones:
            Ak, bk = self.A[row:row + size], self.b[row:row + size]
            s = bk - Ak @ x
            if kind == "psd":
                cons.append(_svec_matrix(s, _psd_dim(size)) >> 0)
            else:
                cons.append(s == 0 if kind == "zero" else s >= 0 if kind == "nonneg"
                            else cp.SOC(s[0], s[1:]))
            row += size
        return cp.Problem(cp.Minimize(obj), cons), x


def _psd_dim(rows: int) -> int:
    """n with n(n+1)/2 == rows."""
    return int(round((np.sqrt(8 * rows + 1) - 1) / 2))


def _svec_matrix(s: Any, n: int) -> Any:
    """The symmetric CVXPY matrix whose svec (upper triangle by columns, sqrt 2) is ``s``."""
    import cvxpy as cp

    entries: list[list[Any]] = [[None] * n for _ in range(n)]
    r = 0
    for j in range(n):
        for i in range(j + 1):
            v = s[r] if i == j else s[r] / np.sqrt(2.0)
            entries[i][j] = entries[j][i] = v
            r += 1
    return cp.bmat(entries)


# Clarabel's status -> (why it stopped, whether it returned a point, whether it is solved)
_CLARABEL_STATUS = {
    "Solved": (Termination.CONVERGED, True, True),
    "AlmostSolved": (Termination.CONVERGED, True, False),
    "PrimalInfeasible": (Termination.INFEASIBLE, False, False),
    "AlmostPrimalInfeasible": (Termination.INFEASIBLE, False, False),
    "DualInfeasible": (Termination.UNBOUNDED, False, False),
    "MaxTime": (Termination.TIME_LIMIT, True, False),
    "MaxIterations": (Termination.ITERATION_LIMIT, True, False),
}


class ClarabelMatrixAdapter:
    """Clarabel called directly on a :class:`ConicQP` (tolerances 1e-10)."""

    framework = "matrix"
    classes = frozenset({ProblemClass.LP, ProblemClass.QP, ProblemClass.SOCP, ProblemClass.SDP})

    def solve(self, qp: ConicQP, options: SolverOptions, problem_class: ProblemClass,
              solver_label: str, version: str) -> Result:
        import clarabel

        t0 = time.perf_counter()
        kinds = {"zero": clarabel.ZeroConeT, "nonneg": clarabel.NonnegativeConeT,
                 "soc": clarabel.SecondOrderConeT,
                 "psd": lambda rows: clarabel.PSDTriangleConeT(_psd_dim(rows))}
        settings = clarabel.DefaultSettings()
        settings.verbose = options.verbose
        settings.tol_gap_abs = settings.tol_gap_rel = settings.tol_feas = 1e-10
        if options.time_limit:
            settings.time_limit = float(options.time_limit)
        for key, val in options.extra.items():
            setattr(settings, key, val)
        sol = clarabel.DefaultSolver(qp.P, qp.q, qp.A, qp.b,
                                     [kinds[k](s) for k, s in qp.cones], settings).solve()
        term, has_point, solved = _CLARABEL_STATUS.get(str(sol.status).split(".")[-1],
                                                        (Termination.ERROR, False, False))
        x = np.asarray(sol.x, dtype=float)
        return Result(
            objective=float(sol.obj_val) if has_point else None,
            bound=float(sol.obj_val_dual) if solved else None,
            termination=term, time_s=time.perf_counter() - t0,
            solver=solver_label, version=version, problem_class=problem_class,
            values=qp.named_values(x) if has_point else {}, message=str(sol.status),
            raw=sol)


class MatrixViaCvxpy:
    """Any CVXPY backend on a :class:`ConicQP` (built as a CVXPY problem first)."""

    framework = "matrix"

    def __init__(self, cvxpy_adapter: Any) -> None:
        self.inner = cvxpy_adapter
        self.classes = cvxpy_adapter.classes & ClarabelMatrixAdapter.classes

    def solve(self, qp: ConicQP, options: SolverOptions, problem_class: ProblemClass,
              solver_label: str, version: str) -> Result:
        prob, x = qp.to_cvxpy()
        res = self.inner.solve(prob, options, problem_class, solver_label, version)
        if x.value is not None:
            res.values = qp.named_values(np.asarray(x.value, dtype=float))
        return res


def matrix_adapter(adapters: dict[str, Any]) -> Callable[[], Any] | None:
    """The matrix adapter a backend gets from its CVXPY adapter (None without one)."""
    cv = adapters.get("cvxpy")
    return MatrixViaCvxpy(cv) if cv is not None else None
