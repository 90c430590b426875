"""The Conic Benchmark Format (CBF), version 3, written from :class:`~.conic.ConicData`.

The file follows the CBF specification (CBLIB; MOSEK's manual, "The CBF Format"): the
structure items ``VER``, ``OBJSENSE``, ``VAR``, ``INT``, ``PSDCON``, ``CON`` and then the data
items ``OBJACOORD``, ``OBJBCOORD``, ``ACOORD``, ``BCOORD``, ``HCOORD``, ``DCOORD``, each a
keyword line, its header line(s) and one entry a line. Every scalar variable is free (``F``);
the constraints are the affine rows ``g = a'x + b`` in the cones ``L=`` (zero), ``L+``
(nonnegative), ``Q`` (``g_0 >= ||g_1:||``) and ``EXP`` (``g_0 >= g_1 exp(g_2 / g_1)``), in
that order, and the PSD blocks are affine matrix constraints ``G = sum_j x_j H_j + D`` (PSD),
entries of their lower triangles (row >= column, 0-based) in ``HCOORD`` / ``DCOORD``.

From the conic data's ``s = b - A x`` in SCS's cones: a scalar row is written as ``-A x + b``;
an exponential cone's rows in reverse (CBF bounds the first coordinate, CVXPY the third); a
PSD cone's svec rows become matrix entries, off-diagonals divided by sqrt(2). A quadratic
objective has no place in CBF: build the data with ``quad_obj=False`` (a second-order cone).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TextIO

import numpy as np
import scipy.sparse as sp

from .conic import ConicData, psd_entries

__all__ = ["CBF_VERSION", "write_cbf"]

CBF_VERSION = 3
_SCALAR = {"zero": "L=", "nonneg": "L+", "soc": "Q", "exp": "EXP"}


def _num(x: float) -> str:
    """A number as CBF holds it: shortest repr that reads back exactly (17 significant)."""
    return repr(float(x))


def _section(out: TextIO, keyword: str, header: str, lines: list[str]) -> None:
    out.write(f"{keyword}\n{header}\n")
    for line in lines:
        out.write(line + "\n")
    out.write("\n")


def _split(data: ConicData) -> tuple[list[int], list[tuple[str, int]], list[int], list[int]]:
    """The scalar rows of the file (indices into ``b - A x``, EXP rows reversed), their cones,
    and the order of each PSD cone with its first svec row."""
    rows: list[int] = []
    cones: list[tuple[str, int]] = []
    psd_order, psd_first = [], []
    for kind, size, first in data.rows():
        if kind == "psd":
            psd_order.append(size)
            psd_first.append(first)
            continue
        idx = list(range(first, first + size))
        rows += idx[::-1] if kind == "exp" else idx
        if cones and cones[-1][0] == _SCALAR[kind] and kind in ("zero", "nonneg"):
            cones[-1] = (cones[-1][0], cones[-1][1] + size)
        else:
            cones.append((_SCALAR[kind], size))
    return rows, cones, psd_order, psd_first


def _psd_coords(data: ConicData, orders: list[int], firsts: list[int]
                ) -> tuple[list[str], list[str]]:
    """HCOORD and DCOORD lines of the PSD cones: G = sum_j x_j H_j + D from s = b - A x."""
    A = data.A.tocsr()
    h_lines, d_lines = [], []
    for con, (k, first) in enumerate(zip(orders, firsts)):
        for t, (i, j) in enumerate(psd_entries(k)):
            r = first + t
            scale = 1.0 if i == j else 1.0 / math.sqrt(2.0)
            lo, hi = A.indptr[r], A.indptr[r + 1]
            for col, val in zip(A.indices[lo:hi], A.data[lo:hi]):
                if val != 0.0:
                    h_lines.append(f"{con} {col} {i} {j} {_num(-val * scale)}")
            if data.b[r] != 0.0:
                d_lines.append(f"{con} {i} {j} {_num(data.b[r] * scale)}")
    return h_lines, d_lines


def write_cbf(data: ConicData, path: str | Path, comments: list[str] | None = None) -> Path:
    """Write ``data`` as a CBF version 3 file at ``path``; ``comments`` become ``#`` lines at
    the top (what the instance is, where it comes from). Returns the path."""
    if data.P is not None:
        raise ValueError("CBF has no quadratic objective: build the conic data with "
                         "quad_obj=False")
    path = Path(path)
    rows, cones, psd_order, psd_first = _split(data)
    A = data.A.tocsr()[rows].tocoo() if rows else sp.coo_matrix((0, data.n))
    b = data.b[rows] if rows else np.zeros(0)
    with path.open("w", encoding="ascii") as out:
        for line in comments or []:
            out.write(f"# {' '.join(str(line).split())}\n")
        _section(out, "VER", str(CBF_VERSION), [])
        _section(out, "OBJSENSE", data.sense.upper(), [])
        _section(out, "VAR", f"{data.n} 1", [f"F {data.n}"])
        if data.integer:
            _section(out, "INT", str(len(data.integer)), [str(j) for j in data.integer])
        if psd_order:
            _section(out, "PSDCON", str(len(psd_order)), [str(k) for k in psd_order])
        if rows:
            _section(out, "CON", f"{len(rows)} {len(cones)}",
                     [f"{kind} {size}" for kind, size in cones])
        obj = [f"{j} {_num(v)}" for j, v in enumerate(data.c) if v != 0.0]
        if obj:
            _section(out, "OBJACOORD", str(len(obj)), obj)
        if data.d != 0.0:
            _section(out, "OBJBCOORD", _num(data.d), [])
        entries = [f"{i} {j} {_num(-v)}" for i, j, v in zip(A.row, A.col, A.data) if v != 0.0]
        if entries:
            _section(out, "ACOORD", str(len(entries)), entries)
        rhs = [f"{i} {_num(v)}" for i, v in enumerate(b) if v != 0.0]
        if rhs:
            _section(out, "BCOORD", str(len(rhs)), rhs)
        if psd_order:
            h_lines, d_lines = _psd_coords(data, psd_order, psd_first)
            if h_lines:
                _section(out, "HCOORD", str(len(h_lines)), h_lines)
            if d_lines:
                _section(out, "DCOORD", str(len(d_lines)), d_lines)
    return path
