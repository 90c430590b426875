"""Conic data without PSD or exponential cones as a Pyomo model, for the LP, MPS and NL files.

A second-order cone ``t >= ||(z_1, ..., z_k)||`` is written as the quadratic constraint
``z_1^2 + ... + z_k^2 - t^2 <= 0`` with ``t >= 0``, the form SCIP, Gurobi, CPLEX and Xpress
recognise as a cone in an LP or MPS file. Each cone entry that is not a single column of the
model (``W_j + s_j``, ``2 w_j``) gets an auxiliary variable ``cone_t[k]`` / ``cone_z[k, i]``
defined by a linear equality, so the quadratic rows stay in the solvers' canonical form.
The variables keep the CVXPY names (``w[3]``, ``xi[12]``, ``u[0]``); a quadratic objective
(``P``) is written as it is (an LP or MPS file holds a QP; HiGHS reads it).
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

import numpy as np

from .conic import ConicData

__all__ = ["to_pyomo"]

_NAME = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?:\[([0-9,]+)\])?$")


def _index(text: str | None) -> Any:
    if text is None:
        return None
    parts = tuple(int(p) for p in text.split(","))
    return parts[0] if len(parts) == 1 else parts


def _columns(mdl: Any, data: ConicData) -> list[Any]:
    """One Pyomo variable per column, grouped into indexed components by name."""
    import pyomo.environ as pyo

    groups: dict[str, list[tuple[int, Any]]] = defaultdict(list)
    for j, label in enumerate(data.columns):
        match = _NAME.match(label)
        if match is None:
            raise ValueError(f"column {j} has a name ({label!r}) a file cannot hold")
        groups[match.group(1)].append((j, _index(match.group(2))))
    ints = set(data.integer)
    cols: list[Any] = [None] * data.n
    for name, members in groups.items():
        if name in ("cone_t", "cone_z"):
            raise ValueError(f"a model variable is named {name!r}, a name kept for the cones")
        if members[0][1] is None:
            var = pyo.Var(domain=pyo.Integers if members[0][0] in ints else pyo.Reals)
            mdl.add_component(name, var)
            cols[members[0][0]] = var
            continue
        index = [idx for _, idx in members]
        var = pyo.Var(index, dense=True)
        mdl.add_component(name, var)
        for j, idx in members:
            cols[j] = var[idx]
            if j in ints:
                var[idx].domain = pyo.Integers
    return cols


def _row(A: Any, r: int) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = A.indptr[r], A.indptr[r + 1]
    keep = A.data[lo:hi] != 0.0
    return A.indices[lo:hi][keep], A.data[lo:hi][keep]


def _affine(cols: list[Any], A: Any, b: np.ndarray, r: int) -> Any:
    """The cone entry s_r = b_r - a_r'x as a Pyomo expression."""
    import pyomo.environ as pyo

    idx, val = _row(A, r)
    return float(b[r]) - pyo.quicksum(float(v) * cols[j] for j, v in zip(idx, val))


def _single(cols: list[Any], A: Any, b: np.ndarray, r: int) -> Any | None:
    """The column s_r is, when s_r = x_j exactly (else None)."""
    idx, val = _row(A, r)
    if idx.size == 1 and val[0] == -1.0 and b[r] == 0.0:
        return cols[idx[0]]
    return None


def _cone(mdl: Any, cols: list[Any], data: ConicData, cone: int, rows: range) -> None:
    """t >= ||z||: t = s_first (>= 0), z_i = s_first+i; sum z_i^2 - t^2 <= 0."""
    A, b = data.A, data.b
    first = rows[0]
    t = mdl.cone_t[cone]
    mdl.cone_def.add(t == _affine(cols, A, b, first))
    zs = []
    for i, r in enumerate(rows[1:]):
        col = _single(cols, A, b, r)
        if col is None:
            col = mdl.cone_z[cone, i]
            mdl.cone_def.add(col == _affine(cols, A, b, r))
        zs.append(col)
    mdl.cone.add(sum(z * z for z in zs) - t * t <= 0)


def _objective(data: ConicData, cols: list[Any]) -> Any:
    import pyomo.environ as pyo

    lin = pyo.quicksum(float(v) * cols[j] for j, v in enumerate(data.c) if v != 0.0)
    expr = lin + float(data.d) if data.d else lin
    if data.P is not None:
        P = data.P.tocoo()
        quad = pyo.quicksum((0.5 if i == j else 1.0) * float(v) * cols[i] * cols[j]
                            for i, j, v in zip(P.row, P.col, P.data) if i <= j and v != 0.0)
        expr = expr + quad
    return expr


def to_pyomo(data: ConicData, name: str = "sparsekm model") -> Any:
    """The Pyomo model of ``data`` (no PSD or exponential cones: those need CBF)."""
    import pyomo.environ as pyo

    if data.has("psd", "exp"):
        kinds = sorted({k for k, _ in data.cones if k in ("psd", "exp")})
        raise ValueError(f"the model has {' and '.join(kinds)} cones, which LP, MPS and NL "
                         "files cannot hold: write it as CBF")
    mdl = pyo.ConcreteModel(name=name)
    cols = _columns(mdl, data)
    A = data.A.tocsr()
    socs = [(size, first) for kind, size, first in data.rows() if kind == "soc"]
    mdl.cone_t = pyo.Var(range(len(socs)), bounds=(0, None))
    mdl.cone_z = pyo.Var([(k, i) for k, (size, _) in enumerate(socs) for i in range(size - 1)])
    mdl.rows_eq = pyo.ConstraintList()
    mdl.rows_ge = pyo.ConstraintList()
    mdl.cone_def = pyo.ConstraintList()
    mdl.cone = pyo.ConstraintList()
    for kind, size, first in data.rows():
        if kind == "zero":
            for r in range(first, first + size):
                mdl.rows_eq.add(_affine(cols, A, data.b, r) == 0)
        elif kind == "nonneg":
            for r in range(first, first + size):
                mdl.rows_ge.add(_affine(cols, A, data.b, r) >= 0)
    for k, (size, first) in enumerate(socs):
        _cone(mdl, cols, data, k, range(first, first + size))
    sense = pyo.maximize if data.sense == "max" else pyo.minimize
    mdl.obj = pyo.Objective(expr=_objective(data, cols), sense=sense)
    return mdl
