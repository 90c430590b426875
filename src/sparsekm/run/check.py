"""``sparsekm check PROBLEM SOLUTION [the problem's flags]``: is a point computed elsewhere
feasible for the paper's problem, and what is it worth there?

The problem is built from the same flags and data preparation as ``sparsekm solve`` and
``sparsekm export``; the point is read by variable name (:mod:`.check_read`). The report:
``feasible`` and the largest violation (``max_violation``, ``worst``) over the paper's
constraints, the ``objective`` of the original problem at the point (recomputed from the
data, not copied from the file), and for feature selection the ``support`` and its exact
value: the SVM re-solved on it with a certified interval (``support_objective`` and
``support_bound``, their ``support_gap``). Status ``infeasible`` exits 1 (the CLI); a
malformed file is a user mistake (exit 2).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

from sparsekm import declare

from .check_read import Point, read_point
from .command import Command
from .data import prepare, ready
from .errors import UserError
from .export import RUN_OPTIONS, data_sha256
from .resolve import Call

__all__ = ["CHECK_COMMANDS", "check_commands"]

# auxiliary names of the export (cones, the constant, CVXPY's unnamed blocks) and those a
# solver adds when it reads a file (SCIP: qmatrixvar for an MPS quadratic objective,
# nlobjvar for an NL objective)
_AUX = re.compile(r"^(cone_t|cone_z|ONE_VAR_CONSTANT|var[0-9]+|qmatrixvar|nlobjvar|objvar)$")


@dataclass(frozen=True)
class CheckOwn:
    """The command's own parameters."""

    solution: str = declare.field(None, "A solver's solution file (SCIP, HiGHS, Gurobi, CPLEX "
                                  ".sol, or 'name value' lines) or a JSON of the paper's "
                                  "variables ({\"w\": [...], \"b\": ...} or {\"support\": "
                                  "[...]}).", path="read", flag="--solution")
    sidecar: str | None = declare.field(None, "The export's sidecar (FILE.json): names the "
                                        "columns of a file with positional names (NL, CBF).",
                                        path="read", flag="--sidecar")
    tol: float = declare.field(1e-6, "Feasibility tolerance: a violation above it makes the "
                               "point infeasible (SCIP's default feastol).", gt=0, lt=1,
                               flag="--tol")


def _sizes(point: Point, sizes: dict[str, int], src: str) -> None:
    """Every name is a variable of the problem's models, every index in range (else the file
    is not a solution of this problem: a user mistake)."""
    for base, vals in point.values.items():
        if _AUX.match(base) or sizes.get(base, 0) == -1:
            continue
        if base not in sizes:
            raise UserError(f"{src}: variable {base!r} is not in the models of this problem "
                            f"(its variables: {', '.join(k for k in sizes if sizes[k] != -1)})")
        size = sizes[base]
        for idx in vals:
            ok = idx is None if size == 0 else (isinstance(idx, int) and 0 <= idx < size)
            if not ok:
                where = "" if idx is None else f"[{idx}]"
                raise UserError(f"{src}: {base}{where} is outside the problem "
                                f"({base} has {size or 'no'} entries here; check the data "
                                "flags)")


def _support(point: Point, ds: Any, src: str) -> list[int] | None:
    if point.support is not None:
        bad = [j for j in point.support if not 0 <= j < ds.n]
        if bad:
            raise UserError(f"{src}: support index {bad[0]} is outside 0..{ds.n - 1}")
        return sorted(set(point.support))
    if point.support_names is not None:
        index = {name: j for j, name in enumerate(ds.feature_names)}
        missing = [s for s in point.support_names if s not in index]
        if missing:
            raise UserError(f"{src}: feature {missing[0]!r} is not in the data")
        return sorted(index[s] for s in point.support_names)
    return None


def _values(point: Point, sizes: dict[str, int]) -> dict[str, Any]:
    """The point's variables of the problem as arrays (a scalar as a float): what
    :meth:`~sparsekm.models.problem.Problem.check_point` reads."""
    out: dict[str, Any] = {}
    for base, size in sizes.items():
        if size > 0:
            out[base] = point.vector(base, size)
        elif size == 0:
            out[base] = point.scalar(base)
    return {k: v for k, v in out.items() if v is not None}


def run_check(call: Call) -> dict[str, Any]:
    """Read the point, build the problem, report feasibility and value (see the module)."""
    from sparsekm.registry import problem as problem_info

    name = call.command.problem
    own = call.own
    src = own["solution"]
    if src is None:
        raise UserError("SOLUTION: give the solution file to check")
    point = read_point(src, own["sidecar"])
    split = prepare(call.opts)
    problem = call.build(problem_info(name).cls, split.train.X, split.train.y)
    ready()
    sizes = problem.variable_sizes()
    _sizes(point, sizes, src)
    support = _support(point, split.ds, src)
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        checked = problem.check_point(_values(point, sizes), support)
    except ValueError as exc:
        raise UserError(f"{src}: {exc}") from None
    report = checked.to_dict(own["tol"])
    feasible = report["feasible"]
    if checked.support is not None and name in ("fs-linear", "fs-kernel"):
        report["support_names"] = [split.ds.feature_names[j] for j in checked.support]
    for key in ("support_objective", "support_bound", "support_gap"):
        if report.get(key) is None:
            report.pop(key, None)
    return {"problem": name, "solution": src, "format": point.kind,
            "values_read": point.count, "data": split.ds.name, "m": problem.m, "n": problem.n,
            "params": problem.params() if name != "smkl" else
            {k: v for k, v in problem.params().items() if k != "kernels"},
            "data_sha256": data_sha256(problem.X, problem.y),
            "status": "feasible" if feasible else "infeasible", **report,
            "objective_in_file": point.objective, "file_status": point.status,
            "time_s": round(time.perf_counter() - t0, 6),
            "cpu_s": round(time.process_time() - c0, 6)}


def check_commands() -> dict[str, Command]:
    """``sparsekm check PROBLEM``, one command per problem."""
    return CHECK_COMMANDS


CHECKED = ("fs-linear", "fs-kernel", "smkl", "minmax-fs")
CHECK_COMMANDS = {
    name: Command("check", name, run_check,
                  f"Check a point of {name} computed elsewhere: feasibility (largest "
                  "violation), objective, and the exact value of its support. Exit 1 when "
                  "infeasible, 2 when the file is malformed.",
                  kind=None, own=CheckOwn, run_options=RUN_OPTIONS,
                  run_defaults=(("scale", "minmax11"),) if name == "minmax-fs" else ())
    for name in CHECKED
}
