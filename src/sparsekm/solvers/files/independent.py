"""Reading a written file back with another program's parser, and solving what it read.

The check that a file says what sparsekm meant must not go through sparsekm's own reading of
it. :func:`read_with_mosek` parses a CBF (or LP, MPS, OPF, ...) file with MOSEK's reader,
which needs no licence, and turns the task it built into :class:`~.conic.ConicData`
(SCS's cone order and svec); :func:`solve_with_clarabel` solves such data with Clarabel
directly (no CVXPY). :func:`read_with_scip` lets SCIP read an LP, MPS or NL file and solve it;
:func:`read_with_highs` does the same with HiGHS (LP, QP and MILP only), optionally with some
columns fixed or the integrality dropped; :func:`read_with_gurobi` and :func:`read_with_cplex`
with the commercial solvers, within what their licences allow (a model over the limit of a
size-limited licence raises its own error).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from .conic import ConicData, psd_entries

__all__ = ["FileSolve", "read_with_cplex", "read_with_gurobi", "read_with_highs",
           "read_with_mosek", "read_with_scip", "solve_with_clarabel"]


@dataclass
class FileSolve:
    """What another solver found on a file: its objective (the file's own, constant
    included), dual bound, status, values by the file's variable names, and times."""

    solver: str
    status: str
    objective: float | None
    bound: float | None
    values: dict[str, float] = field(default_factory=dict)
    time_s: float = 0.0
    cpu_s: float = 0.0
    read_s: float = 0.0


def _domains(task: Any) -> dict[Any, str]:
    import mosek

    d = mosek.domaintype
    return {d.rzero: "zero", d.rplus: "nonneg", d.quadratic_cone: "soc",
            d.svec_psd_cone: "psd", d.primal_exp_cone: "exp", d.r: "free",
            d.rminus: "nonpos"}


def _svec_order(k: int) -> int:
    return int(round((math.sqrt(8 * k + 1) - 1) / 2))


def read_with_mosek(path: str | Path) -> ConicData:
    """Parse ``path`` with MOSEK's reader (no licence needed) into conic data (SCS's order:
    zero, nonnegative, second-order, PSD, exponential rows; ``s = b - A x``).

    MOSEK holds the file as affine conic constraints ``F x + g - h in D`` and bounds on the
    columns; both become rows here. PSD blocks in matrix variables are refused (sparsekm writes
    PSD constraints only as affine matrix constraints, ``PSDCON``)."""
    import mosek

    task = mosek.Task()
    task.readdata(str(path))
    if task.getnumbarvar():
        raise ValueError(f"{path}: matrix variables (PSDVAR) are not read here")
    n = task.getnumvar()
    c = np.array(task.getc(), dtype=float)
    d = float(task.getcfix())
    nafe = task.getnumafe()
    fi, fj, fv = task.getafeftrip() if nafe else ([], [], [])
    F = sp.csr_matrix((fv, (fi, fj)), shape=(nafe, n))
    g = np.array(task.getafegslice(0, nafe), dtype=float) if nafe else np.zeros(0)
    kinds = _domains(task)
    blocks: dict[str, list[tuple[sp.csr_matrix, np.ndarray, int]]] = {
        k: [] for k in ("zero", "nonneg", "soc", "psd", "exp")}
    for acc in range(task.getnumacc()):
        kind = kinds.get(task.getdomaintype(task.getaccdomain(acc)))
        if kind is None or kind in ("free", "nonpos"):
            raise ValueError(f"{path}: constraint domain "
                             f"{task.getdomaintype(task.getaccdomain(acc))} is not read here")
        idx = list(task.getaccafeidxlist(acc))
        val = g[idx] - np.array(task.getaccb(acc), dtype=float)
        Fa = F[idx]
        if kind == "exp":          # MOSEK / CBF bound the first coordinate, SCS the third
            Fa, val = Fa[::-1], val[::-1]
        size = _svec_order(len(idx)) if kind == "psd" else len(idx)
        blocks[kind].append((-Fa, val, size))   # s = b - A x with A = -F, b = g - h
    _linear_rows(task, n, blocks)
    _bound_rows(task, n, blocks)
    A_parts, b_parts, cones = [], [], []
    for kind in ("zero", "nonneg", "soc", "psd", "exp"):
        for Ak, bk, size in blocks[kind]:
            A_parts.append(sp.csr_matrix(Ak))
            b_parts.append(np.asarray(bk, dtype=float))
            cones.append((kind, size))
    A = sp.vstack(A_parts).tocsr() if A_parts else sp.csr_matrix((0, n))
    b = np.concatenate(b_parts) if b_parts else np.zeros(0)
    sense = "max" if task.getobjsense() == mosek.objsense.maximize else "min"
    ints = [j for j in range(n) if task.getvartype(j) == mosek.variabletype.type_int]
    return ConicData(c, d, A, b, _merge(cones), [f"x{j}" for j in range(n)], {}, sense,
                     None, ints)


def _merge(cones: list[tuple[str, int]]) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for kind, size in cones:
        if out and out[-1][0] == kind and kind in ("zero", "nonneg"):
            out[-1] = (kind, out[-1][1] + size)
        else:
            out.append((kind, size))
    return out


def _linear_rows(task: Any, n: int, blocks: dict[str, list]) -> None:
    """MOSEK's plain linear constraints lo <= a'x <= up (an LP or MPS file) as rows."""
    import mosek

    m = task.getnumcon()
    if not m:
        return
    rows = [task.getarow(i) for i in range(m)]
    bk, lo, up = task.getconboundslice(0, m)
    for i, (sub, val) in enumerate(rows):
        a = sp.csr_matrix((val, ([0] * len(sub), sub)), shape=(1, n))
        if bk[i] == mosek.boundkey.fx:
            blocks["zero"].append((a, np.array([lo[i]]), 1))
            continue
        if bk[i] in (mosek.boundkey.lo, mosek.boundkey.ra):   # a'x - lo >= 0
            blocks["nonneg"].append((-a, np.array([-lo[i]]), 1))
        if bk[i] in (mosek.boundkey.up, mosek.boundkey.ra):   # up - a'x >= 0
            blocks["nonneg"].append((a, np.array([up[i]]), 1))


def _bound_rows(task: Any, n: int, blocks: dict[str, list]) -> None:
    import mosek

    bk, lo, up = task.getvarboundslice(0, n)
    for j in range(n):
        e = sp.csr_matrix(([1.0], ([0], [j])), shape=(1, n))
        if bk[j] == mosek.boundkey.fx:
            blocks["zero"].append((e, np.array([lo[j]]), 1))
            continue
        if bk[j] in (mosek.boundkey.lo, mosek.boundkey.ra):
            blocks["nonneg"].append((-e, np.array([-lo[j]]), 1))
        if bk[j] in (mosek.boundkey.up, mosek.boundkey.ra):
            blocks["nonneg"].append((e, np.array([up[j]]), 1))


def _upper_from_lower(k: int) -> np.ndarray:
    """Permutation of svec rows: Clarabel's (upper triangle, column by column) entry t is SCS's
    (lower triangle, column by column) entry perm[t]."""
    lower = {ij: t for t, ij in enumerate(psd_entries(k))}
    upper = [(i, j) for j in range(k) for i in range(j + 1)]   # row i <= column j
    return np.array([lower[(j, i)] for i, j in upper])


def solve_with_clarabel(data: ConicData, *, time_limit: float | None = None,
                        tol: float = 1e-9) -> FileSolve:
    """Solve continuous conic data with Clarabel (called directly): objective and the dual
    objective as the bound (both in the data's sense, its constant included)."""
    import clarabel

    if data.integer:
        raise ValueError("Clarabel solves continuous conic problems: the data have "
                         f"{len(data.integer)} integer columns")
    sign = -1.0 if data.sense == "max" else 1.0
    A, b = data.A.tocsr(), data.b.copy()
    order, cones = [], []
    for kind, size, first in data.rows():
        if kind == "psd":
            perm = first + _upper_from_lower(size)
            order += perm.tolist()
            cones.append(clarabel.PSDTriangleConeT(size))
            continue
        order += list(range(first, first + size))
        cones.append({"zero": lambda k: clarabel.ZeroConeT(k),
                      "nonneg": lambda k: clarabel.NonnegativeConeT(k),
                      "soc": lambda k: clarabel.SecondOrderConeT(k),
                      "exp": lambda k: clarabel.ExponentialConeT()}[kind](size))
    A, b = A[order].tocsc(), b[order]
    P = sp.csc_matrix((data.n, data.n)) if data.P is None else \
        sp.triu(sign * data.P).tocsc()
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = settings.tol_feas = tol
    if time_limit is not None:
        settings.time_limit = float(time_limit)
    t0, c0 = time.perf_counter(), time.process_time()
    sol = clarabel.DefaultSolver(P, sign * data.c, A, b, cones, settings).solve()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    status = str(sol.status).split(".")[-1].lower()
    ok = status in ("solved", "almostsolved")
    obj = sign * float(sol.obj_val) + data.d if ok else None
    bound = sign * float(sol.obj_val_dual) + data.d if ok else None
    values = dict(zip(data.columns, np.asarray(sol.x, dtype=float).tolist())) if ok else {}
    return FileSolve("clarabel", status, obj, bound, values, wall, cpu)


def read_with_scip(path: str | Path, *, time_limit: float | None = None,
                   gap: float = 1e-9, fix: dict[str, float] | None = None,
                   feastol: float = 1e-9) -> FileSolve:
    """SCIP (pyscipopt) reads ``path`` (LP, MPS, NL, CIP, ...) and solves it; ``fix`` sets
    variables (by SCIP's names: the file's, or for NL the model's from the ``.col`` file) to
    values first. The objective and dual bound as SCIP reports them (the file's objective,
    its constant included).

    ``feastol`` is SCIP's ``numerics/feastol`` (its default 1e-6 let the cones of paper B's
    (16) be violated enough to move the value by 2e-4 relative; 1e-9 gave (16)'s value to
    3e-8, measured)."""
    import pyscipopt

    t0 = time.perf_counter()
    model = pyscipopt.Model()
    model.hideOutput()
    model.readProblem(str(path))
    read_s = time.perf_counter() - t0
    if fix:
        by_name = {v.name: v for v in model.getVars()}
        for name, val in fix.items():
            model.fixVar(by_name[name], float(val))
    if time_limit is not None:
        model.setParam("limits/time", float(time_limit))
    model.setParam("limits/gap", gap)
    model.setParam("numerics/feastol", feastol)
    t0, c0 = time.perf_counter(), time.process_time()
    model.optimize()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    status = model.getStatus()
    has = model.getNSols() > 0
    values = {v.name: model.getVal(v) for v in model.getVars()} if has else {}
    return FileSolve("scip", status, model.getObjVal() if has else None,
                     model.getDualbound(), values, wall, cpu, read_s)


def read_with_highs(path: str | Path, *, relax_integers: bool = False,
                    fix: dict[str, float] | None = None,
                    time_limit: float | None = None) -> FileSolve:
    """HiGHS (highspy) reads ``path`` (LP or MPS: LP, QP, MILP) and solves it;
    ``relax_integers`` drops integrality (a MIQP file then gives its continuous relaxation,
    which HiGHS solves as a QP), ``fix`` fixes columns by name."""
    import highspy

    t0 = time.perf_counter()
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    if h.readModel(str(path)) != highspy.HighsStatus.kOk:
        raise ValueError(f"HiGHS could not read {path}")
    read_s = time.perf_counter() - t0
    lp = h.getLp()
    names = list(lp.col_names_)
    if relax_integers and len(lp.integrality_):
        for j in range(lp.num_col_):
            h.changeColIntegrality(j, highspy.HighsVarType.kContinuous)
    if fix:
        index = {name: j for j, name in enumerate(names)}
        for name, val in fix.items():
            h.changeColBounds(index[name], float(val), float(val))
    t0, c0 = time.perf_counter(), time.process_time()
    h.run()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    status = h.modelStatusToString(h.getModelStatus()).lower()
    info = h.getInfo()
    ok = h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    x = list(h.getSolution().col_value) if ok else []
    bound = info.mip_dual_bound if lp.integrality_ and not relax_integers else \
        (info.objective_function_value if ok else None)
    return FileSolve("highs", status, info.objective_function_value if ok else None,
                     bound, dict(zip(names, x)), wall, cpu, read_s)


def read_with_gurobi(path: str | Path, *, gap: float = 1e-9,
                     time_limit: float | None = None) -> FileSolve:
    """Gurobi (gurobipy) reads ``path`` (LP, MPS) and solves it (nonconvex quadratic rows
    included: Gurobi 11+ branches on them)."""
    import gurobipy as gp

    t0 = time.perf_counter()
    env = gp.Env(params={"OutputFlag": 0})
    model = gp.read(str(path), env=env)
    read_s = time.perf_counter() - t0
    model.Params.MIPGap = gap
    if time_limit is not None:
        model.Params.TimeLimit = float(time_limit)
    t0, c0 = time.perf_counter(), time.process_time()
    model.optimize()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    has = model.SolCount > 0
    status = {2: "optimal", 9: "timelimit", 3: "infeasible"}.get(model.Status,
                                                                 f"status {model.Status}")
    values = {v.VarName: v.X for v in model.getVars()} if has else {}
    bound = model.ObjBound if model.IsMIP else (model.ObjVal if has else None)
    return FileSolve("gurobi", status, model.ObjVal if has else None, bound, values, wall,
                     cpu, read_s)


def read_with_cplex(path: str | Path, *, gap: float = 1e-9,
                    time_limit: float | None = None) -> FileSolve:
    """CPLEX (the cplex package) reads ``path`` (LP, MPS) and solves it (convex quadratic
    rows only: a nonconvex row such as u_j w_j = 0 is CPLEX's error 5002)."""
    import cplex

    t0 = time.perf_counter()
    c = cplex.Cplex()
    for stream in (c.set_log_stream, c.set_results_stream, c.set_warning_stream,
                   c.set_error_stream):
        stream(None)
    c.read(str(path))
    read_s = time.perf_counter() - t0
    c.parameters.mip.tolerances.mipgap.set(gap)
    if time_limit is not None:
        c.parameters.timelimit.set(float(time_limit))
    t0, c0 = time.perf_counter(), time.process_time()
    c.solve()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    sol = c.solution
    has = sol.is_primal_feasible()
    status = "optimal" if sol.get_status() in (sol.status.optimal, sol.status.MIP_optimal,
                                               sol.status.optimal_tolerance) else \
        sol.get_status_string()
    mip = c.get_problem_type() not in (c.problem_type.LP, c.problem_type.QP,
                                       c.problem_type.QCP)
    obj = sol.get_objective_value() if has else None
    values = dict(zip(c.variables.get_names(), sol.get_values())) if has else {}
    return FileSolve("cplex", status, obj, sol.MIP.get_best_objective() if mip else obj,
                     values, wall, cpu, read_s)
