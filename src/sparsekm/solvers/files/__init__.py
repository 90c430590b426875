"""Standard instance files: writing a model (Pyomo or CVXPY) as LP, MPS, NL or CBF, and
reading solvers' solution files back by variable name.

=======  =========================================  ==========================================
format   holds                                      written by
=======  =========================================  ==========================================
``lp``   LP, QP, MILP, MIQP, (MI)QCQP: quadratic     Pyomo's LP writer (CPLEX LP); second-order
         objective and constraints, so (MI)SOCP     cones as ``z'z - t^2 <= 0``, ``t >= 0``
``mps``  the same (``QUADOBJ``, ``QCMATRIX``)        Pyomo's MPS writer (free MPS)
``nl``   every Pyomo model, NLP and MINLP too        Pyomo's NL writer (AMPL), ``.col``/``.row``
``cbf``  conic models: linear, second-order, PSD,    :mod:`.cbf` (CBF version 3), from the
         exponential cones, integer columns         conic data CVXPY builds for SCS
=======  =========================================  ==========================================

A CVXPY model is written as LP, MPS or NL through its conic data (:mod:`.to_pyomo`) when it
has no PSD or exponential cone; a Pyomo model is not written as CBF (its conic structure is
not declared in Pyomo). :func:`write_model` returns the map from the file's variable names to
the model's (``"w(3)" -> "w[3]"``; CBF and NL name columns by position, ``x0``, ``x1``, ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .conic import ConicData, conic_data
from .solution import SolutionFile, SolutionFileError, parse_solution, read_solution

__all__ = ["FORMATS", "ConicData", "SolutionFile", "SolutionFileError", "Written",
           "conic_data", "parse_solution", "read_solution", "write_model"]

FORMATS = {
    "lp": "CPLEX LP: linear and quadratic objective and constraints, integer columns",
    "mps": "free MPS with QUADOBJ / QCMATRIX: the same models as LP",
    "nl": "AMPL NL: any Pyomo model (nonlinear ones too)",
    "cbf": "Conic Benchmark Format 3: linear, second-order, PSD and exponential cones, "
           "integer columns (CVXPY models)",
}


@dataclass
class Written:
    """A written file: its path and format, the map of its variable names to the model's,
    the objective's sense and constant (included in the file), and counts."""

    path: Path
    fmt: str
    names: dict[str, str]
    sense: str
    constant: float
    variables: int
    integer: int
    cones: dict[str, int] = field(default_factory=dict)
    companions: list[Path] = field(default_factory=list)


def _framework(model: Any) -> str:
    from ..classify import framework_of

    return framework_of(model)


def _pyomo_info(model: Any) -> tuple[str, float, int, int]:
    import pyomo.environ as pyo
    from pyomo.repn import generate_standard_repn

    obj = next(model.component_data_objects(pyo.Objective, active=True))
    repn = generate_standard_repn(obj.expr, compute_values=True, quadratic=False)
    constant = float(repn.constant)
    variables = list(model.component_data_objects(pyo.Var, descend_into=True))
    ints = sum(1 for v in variables if v.is_integer() or v.is_binary())
    return ("max" if obj.sense == pyo.maximize else "min"), constant, len(variables), ints


def write_model(model: Any, path: str | Path, fmt: str, *, integer: tuple[str, ...] = (),
                comments: list[str] | None = None, name: str | None = None) -> Written:
    """Write ``model`` (a Pyomo model or a CVXPY problem) at ``path`` as ``fmt``.

    ``integer`` names the CVXPY variables that are integer in the file (see
    :func:`.conic.conic_data`); ``comments`` go at the top of a CBF file; ``name`` is the
    model's name in LP and MPS files. A format the model's class cannot go into is a
    ValueError that says which formats can take it.
    """
    from .cbf import write_cbf
    from .pyomo_writer import write_pyomo
    from .to_pyomo import to_pyomo

    fmt = fmt.lower()
    if fmt not in FORMATS:
        raise ValueError(f"format {fmt!r}: choose one of {', '.join(FORMATS)}")
    path = Path(path)
    framework = _framework(model)
    if framework == "cvxpy":
        data = conic_data(model, quad_obj=fmt != "cbf", integer=integer)
        cones = {}
        for kind, _ in data.cones:
            cones[kind] = cones.get(kind, 0) + 1
        if fmt == "cbf":
            write_cbf(data, path, comments)
            names = {f"x{j}": label for j, label in enumerate(data.columns)}
            return Written(path, fmt, names, data.sense, data.d, data.n, len(data.integer),
                           cones)
        model = to_pyomo(data, name or "sparsekm")
    elif framework != "pyomo":
        raise ValueError(f"a {framework} model is not written to files: build it in Pyomo "
                         "or CVXPY")
    elif fmt == "cbf":
        raise ValueError("CBF files are written from CVXPY (conic) models; write this Pyomo "
                         "model as lp, mps or nl")
    elif integer:
        raise ValueError("integer= names CVXPY variables; a Pyomo model declares its own")
    old = model.name
    if name:
        model.name = name
    try:
        names = write_pyomo(model, path, fmt)
    finally:
        model.name = old
    sense, constant, nvar, nint = _pyomo_info(model)
    companions = [p for p in (path.with_suffix(".col"), path.with_suffix(".row"))
                  if fmt == "nl" and p.is_file()]
    return Written(path, fmt, names, sense, constant, nvar, nint,
                   cones=_quadratic_rows(model), companions=companions)


def _quadratic_rows(model: Any) -> dict[str, int]:
    import pyomo.environ as pyo

    count = 0
    for c in model.component_data_objects(pyo.Constraint, active=True):
        if c.body.polynomial_degree() not in (0, 1):
            count += 1
    return {"nonlinear_rows": count} if count else {}
