"""A CVXPY problem as conic data in one standard form, with the names of its columns.

:func:`conic_data` asks CVXPY for the problem data it would give SCS (``get_problem_data``,
the reductions every conic solve goes through) and keeps it in the form both file writers
read (:mod:`.cbf`, :mod:`.to_pyomo`):

    min/max  c'x + 1/2 x'P x + d    s.t.  s = b - A x  in  K_1 x K_2 x ...,

the cones in SCS's order: zero rows (``"zero"``), nonnegative rows (``"nonneg"``), second-order
cones ``s_0 >= ||s_1:||`` (``"soc"``), PSD cones (``"psd"``, a symmetric matrix of order k
stored as its lower triangle, column by column, off-diagonal entries scaled by sqrt(2): SCS's
svec), exponential cones ``s_2 >= s_1 exp(s_0 / s_1)`` (``"exp"``, CVXPY's order). Column
names come from the CVXPY variables (``w[3]``, ``xi[12]``; a PSD block variable of CVXPY's
own naming keeps it: ``var29[4]`` is the 5th entry of its stored triangle).

``quad_obj=False`` (CBF, which has no quadratic objective) lets CVXPY write a quadratic
objective as a second-order cone; ``True`` keeps ``P`` (LP and MPS files hold a QP as it is).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = ["CONE_KINDS", "ConicData", "conic_data"]

CONE_KINDS = ("zero", "nonneg", "soc", "psd", "exp")


@dataclass
class ConicData:
    """``min/max c'x + 1/2 x'Px + d`` s.t. ``b - A x`` in the cones (see the module doc).

    cones : ``(kind, size)`` in row order; a PSD cone's size is its order k (k(k+1)/2 rows).
    columns : the name of each column of ``x``; ``blocks`` the CVXPY variable each column
        range holds: name -> (first column, shape, stored entries).
    integer : the columns that must take integer values.
    """

    c: np.ndarray
    d: float
    A: sp.csr_matrix
    b: np.ndarray
    cones: list[tuple[str, int]]
    columns: list[str]
    blocks: dict[str, tuple[int, tuple[int, ...], int]]
    sense: str = "min"
    P: sp.csr_matrix | None = None
    integer: list[int] = field(default_factory=list)

    @property
    def n(self) -> int:
        return int(self.c.size)

    def rows(self) -> list[tuple[str, int, int]]:
        """``(kind, size, first row)`` of every cone."""
        out, r = [], 0
        for kind, size in self.cones:
            out.append((kind, size, r))
            r += cone_rows(kind, size)
        return out

    def has(self, *kinds: str) -> bool:
        """Whether any cone is of one of ``kinds``."""
        return any(kind in kinds for kind, _ in self.cones)

    def objective(self, x: np.ndarray) -> float:
        """c'x + 1/2 x'Px + d (in the problem's own sense)."""
        val = float(self.c @ x) + self.d
        if self.P is not None:
            val += 0.5 * float(x @ (self.P @ x))
        return val


def cone_rows(kind: str, size: int) -> int:
    """Rows of a cone: a PSD cone of order k holds k(k+1)/2."""
    return size * (size + 1) // 2 if kind == "psd" else size


def psd_entries(k: int) -> list[tuple[int, int]]:
    """(i, j), i >= j, of SCS's svec rows of an order-k PSD cone: the lower triangle column by
    column."""
    return [(i, j) for j in range(k) for i in range(j, k)]


def _cones(dims: Any) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    if dims.zero:
        out.append(("zero", int(dims.zero)))
    if dims.nonneg:
        out.append(("nonneg", int(dims.nonneg)))
    out += [("soc", int(k)) for k in dims.soc]
    out += [("psd", int(k)) for k in dims.psd]
    out += [("exp", 3)] * int(dims.exp)
    if getattr(dims, "p3d", None) or getattr(dims, "pnd", None):
        raise ValueError("power cones are not written by sparsekm's file writers")
    return out


def _stuffing_offsets(inverse: list[Any]) -> tuple[dict[int, int], dict[int, Any]]:
    """Column offsets and shapes of the variables as the matrix stuffing stored them."""
    for inv in reversed(inverse):
        if hasattr(inv, "var_offsets") and hasattr(inv, "var_shapes"):
            return dict(inv.var_offsets), dict(inv.var_shapes)
    raise ValueError("CVXPY's problem data carry no variable offsets")


def _renamed(inverse: list[Any]) -> dict[int, int]:
    """Variable ids the reductions replaced: CVXPY's CvxAttr2Constr gives a variable with
    attributes (``nonneg=True``, ``PSD=True``) a new variable, its inverse data
    ``(id2new_var, id2old_var, cons_id_map)``."""
    out: dict[int, int] = {}
    for inv in inverse:
        if isinstance(inv, tuple) and len(inv) == 3 and isinstance(inv[0], dict):
            for old, new in inv[0].items():
                if hasattr(new, "id"):
                    out[old] = new.id
    return out


def _names(problem: Any, offsets: dict[int, int], shapes: dict[int, Any], n: int,
           renamed: dict[int, int]) -> tuple[list[str], dict[str, tuple[int, tuple[int, ...],
                                                                      int]]]:
    columns = [f"x{k}" for k in range(n)]
    blocks: dict[str, tuple[int, tuple[int, ...], int]] = {}
    for var in problem.variables():
        vid = renamed.get(var.id, var.id)
        if vid not in offsets:
            continue
        start, shape = offsets[vid], tuple(shapes[vid]) or ()
        size = int(np.prod(shape)) if shape else 1
        name = var.name()
        blocks[name] = (start, tuple(var.shape), size)
        if size == var.size and len(var.shape) <= 1:
            labels = [name] if not var.shape else [f"{name}[{i}]" for i in range(size)]
        elif size == var.size:   # a matrix: CVXPY stores it column by column
            labels = [f"{name}[{i},{j}]" for j in range(var.shape[1])
                      for i in range(var.shape[0])]
        else:                    # a symmetric variable stored as a triangle
            labels = [f"{name}[{t}]" for t in range(size)]
        columns[start:start + size] = labels
    return columns, blocks


def conic_data(problem: Any, *, quad_obj: bool = False,
               integer: tuple[str, ...] = ()) -> ConicData:
    """The conic data of the CVXPY ``problem`` (see the module doc).

    ``integer`` names variables whose columns are integer in the file (a mixed-integer model
    is built continuous, e.g. MISDP (13) as (14) with z in [0, 1], and its integers marked
    here: CVXPY gives no conic data of a mixed-integer SDP without a solver that takes one).
    """
    import cvxpy as cp

    if problem.is_mixed_integer():
        raise ValueError("build the model with continuous variables and name the integer ones "
                         "(integer=...): CVXPY's conic data of a mixed-integer model need a "
                         "mixed-integer solver")
    data, _, inverse = problem.get_problem_data(cp.SCS, solver_opts={"use_quad_obj": quad_obj})
    A = sp.csr_matrix(data["A"])
    b = np.asarray(data["b"], dtype=float)
    c = np.asarray(data["c"], dtype=float)
    d = float(inverse[-1]["offset"]) if "offset" in inverse[-1] else 0.0
    cones = _cones(data["dims"])
    lower, upper = data.get("lower_bounds"), data.get("upper_bounds")
    if lower is not None or upper is not None:   # bounds as nonnegative rows
        A, b, cones = _bounds_as_rows(A, b, cones, lower, upper)
    offsets, shapes = _stuffing_offsets(list(inverse))
    columns, blocks = _names(problem, offsets, shapes, c.size, _renamed(list(inverse)))
    ints: list[int] = []
    for name in integer:
        if name not in blocks:
            raise ValueError(f"no variable {name!r} in the model; its variables: "
                             f"{', '.join(blocks)}")
        start, _, size = blocks[name]
        ints += list(range(start, start + size))
    sense = "max" if isinstance(problem.objective, cp.Maximize) else "min"
    if sense == "max":   # CVXPY minimises -f: give the file f itself
        c, d = -c, -d
    P = data.get("P")
    if P is not None:
        P = sp.csr_matrix(P) * (-1.0 if sense == "max" else 1.0)
        if P.nnz == 0:
            P = None
    return ConicData(c, d, A, b, cones, columns, blocks, sense, P, sorted(ints))


def _bounds_as_rows(A: sp.csr_matrix, b: np.ndarray, cones: list[tuple[str, int]],
                    lower: Any, upper: Any) -> tuple[sp.csr_matrix, np.ndarray, list]:
    """Column bounds l <= x <= u as rows x - l >= 0, u - x >= 0 (b - A x form), placed after
    the zero rows (in the nonnegative block)."""
    n = A.shape[1]
    extra_A, extra_b = [], []
    for bound, sign in ((lower, -1.0), (upper, 1.0)):
        if bound is None:
            continue
        bound = np.asarray(bound, dtype=float)
        cols = np.flatnonzero(np.isfinite(bound))
        if cols.size:
            extra_A.append(sp.csr_matrix((np.full(cols.size, sign), (np.arange(cols.size),
                                                                     cols)),
                                         shape=(cols.size, n)))
            extra_b.append(sign * bound[cols])
    if not extra_A:
        return A, b, cones
    z = cones[0][1] if cones and cones[0][0] == "zero" else 0
    k = sum(e.shape[0] for e in extra_A)
    A = sp.vstack([A[:z], *extra_A, A[z:]]).tocsr()
    b = np.concatenate([b[:z], *extra_b, b[z:]])
    head = cones[:1] if z else []
    rest = cones[1:] if z else cones
    if rest and rest[0][0] == "nonneg":
        rest = [("nonneg", rest[0][1] + k), *rest[1:]]
    else:
        rest = [("nonneg", k), *rest]
    return A, b, head + rest
