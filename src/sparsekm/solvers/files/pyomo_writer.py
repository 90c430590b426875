"""LP, MPS and NL files written by Pyomo's own writers, with the map of the file's names.

``model.write(path, format=..., io_options={"symbolic_solver_labels": True})`` writes the
file; the symbol map it returns names each variable in the file (``w(3)`` in LP and MPS,
the ``.col`` file beside an NL file). One fix is applied to Pyomo's LP output: it writes a
square as ``w(0) ^ 2``, which SCIP 10's LP reader refuses ("sign after value without
variable"); ``w(0) ^2`` is the form CPLEX itself writes, and SCIP, Gurobi, CPLEX and HiGHS
read it (measured: the same optimum from the LP and the MPS file).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

__all__ = ["PYOMO_FORMATS", "polynomial_degree", "write_pyomo"]

PYOMO_FORMATS = ("lp", "mps", "nl")
_SQUARE = re.compile(r" \^ 2\b")


def polynomial_degree(model: Any) -> int | None:
    """The largest polynomial degree of the active objective and constraints (None: not a
    polynomial, e.g. an exponential)."""
    import pyomo.environ as pyo

    top = 0
    for comp in (pyo.Objective, pyo.Constraint):
        for c in model.component_data_objects(comp, active=True, descend_into=True):
            expr = c.expr if comp is pyo.Objective else c.body
            d = expr.polynomial_degree() if hasattr(expr, "polynomial_degree") else 0
            if d is None:
                return None
            top = max(top, d)
    return top


def write_pyomo(model: Any, path: str | Path, fmt: str) -> dict[str, str]:
    """Write ``model`` as ``fmt`` (lp, mps, nl) at ``path``; returns the file's variable
    names -> the model's (``"w(3)" -> "w[3]"``), in the file's column order for NL."""
    import pyomo.environ as pyo

    if fmt not in PYOMO_FORMATS:
        raise ValueError(f"format {fmt!r}: Pyomo models are written as lp, mps or nl")
    if fmt in ("lp", "mps"):
        degree = polynomial_degree(model)
        if degree is None or degree > 2:
            raise ValueError(f"{fmt.upper()} files hold linear and quadratic models; this one "
                             "is nonlinear: write it as nl")
    from pyomo.opt import ProblemFormat

    path = Path(path)
    kind = {"lp": ProblemFormat.cpxlp, "mps": ProblemFormat.mps, "nl": ProblemFormat.nl}[fmt]
    _, smap_id = model.write(str(path), format=kind,
                             io_options={"symbolic_solver_labels": True})
    smap = model.solutions.symbol_map[smap_id]
    names: dict[str, str] = {}
    for symbol, obj in smap.bySymbol.items():
        if getattr(obj, "ctype", None) is pyo.Var:
            names[symbol] = obj.name
    if fmt == "nl":
        names = _nl_names(path, names)
    if fmt == "lp":
        text = path.read_text()
        path.write_text(_SQUARE.sub(" ^2", text))
    return names


def _nl_names(path: Path, names: dict[str, str]) -> dict[str, str]:
    """An NL file names its columns by position; the ``.col`` file beside it lists them."""
    col = path.with_suffix(".col")
    if not col.is_file():
        return names
    order = [line.strip() for line in col.read_text().splitlines() if line.strip()]
    return {f"x{j}": name for j, name in enumerate(order)}
