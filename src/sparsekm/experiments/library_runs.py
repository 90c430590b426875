"""Filling the instance library's records: describe, certify, import, confirm.

* :func:`describe_instance` -- the key, the data's hash and the size of the default file;
* :func:`certify` -- the certifying method through the run layer (``sparsekm solve``'s own
  runner): paper D's ``bnb`` and paper B's ``exact`` on the tree engine, resumed from their
  checkpoint in ``checkpoints/`` (removed once the instance is certified), paper A's
  ``enumerate``;
* :func:`import_runs` -- earlier certification runs of the benchmarks
  (``benchmarks/results/fs_linear_certify_bnb.json``), their incumbent re-valued by the SVM on
  its support (``sparsekm check``'s code) before it is taken;
* :func:`confirm` -- the exported file read by another solver outside sparsekm (SCIP through
  pyscipopt, CPLEX's reader), its optimum compared with the library's.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import platform
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

from sparsekm.algorithms.tree.checkpoint import CheckpointError
from sparsekm.run.errors import UserError

from .library import Instance, load_records, save_record

__all__ = ["AGREE", "certify", "confirm", "describe_instance", "import_runs", "machine",
           "prune_checkpoints"]

AGREE = 1e-6      # relative difference at which a second solver confirms a value


def machine() -> str:
    """The machine a run used, as the manifest states it."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"{platform.machine()}, {os.cpu_count()} cores, {platform.system()} "
            f"{platform.release()}, load {load:.1f}")


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def _size(inst: Instance, m: int, n: int, q: int | None) -> dict[str, Any]:
    """Size of the default file: paper D's BigMP (6), paper A's MINLP (4) with one auxiliary
    per pair i <= h, paper B's MISDP (13) (columns; rows of the PSD block)."""
    if inst.problem == "fs-linear":
        return {"m": m, "n": n, "variables": 2 * n + m + 1, "integer": n,
                "constraints": m + 2 * n + 1}
    if inst.problem == "fs-kernel":
        pairs = m * (m + 1) // 2
        return {"m": m, "n": n, "variables": m + n + pairs, "integer": n,
                "constraints": 2 + pairs}
    q = q or 0
    return {"m": m, "n": n, "q": q, "variables": 2 + 2 * m + 3 * q, "integer": q,
            "constraints": f"{m + 2 + 2 * q} scalar, PSD block of order {m + 1}"}


def describe_instance(inst: Instance, root: Path) -> dict[str, Any]:
    """The record with its key, data hash and size (computed once, kept in the record)."""
    from sparsekm.run.export import describe

    rec = load_records(root, inst)
    if rec.get("key") is None:
        info = describe(inst.problem, inst.given())
        rec.update(key=info["key"], data_sha256=info["data_sha256"], params=info["params"],
                   size=_size(inst, info["m"], info["n"], info.get("q")),
                   sense="min", flags=inst.flags)
        save_record(root, inst, rec)
    return rec


def _children_cpu() -> float:
    """CPU seconds of child processes (an enumeration's or a search's workers): the finished
    ones (``os.times``) and the live ones (psutil)."""
    t = os.times()
    total = t.children_user + t.children_system
    try:
        import psutil

        for child in psutil.Process().children(recursive=True):
            with contextlib.suppress(psutil.Error):
                ct = child.cpu_times()
                total += ct.user + ct.system
    except ImportError:  # pragma: no cover - psutil comes with dask
        pass
    return total


def _checkpoint(root: Path, inst: Instance) -> Path:
    return root / "checkpoints" / f"{inst.name}.ckpt"


def certify(inst: Instance, root: Path, time_limit: float) -> dict[str, Any]:
    """Run the instance's certifying method for at most ``time_limit`` s (resuming its
    checkpoint); append the run to the record."""
    from sparsekm.deadline import Deadline
    from sparsekm.run import run as run_command

    rec = describe_instance(inst, root)
    options = dict(inst.method_options)
    ckpt = None
    if inst.method in ("bnb", "exact"):
        ckpt = _checkpoint(root, inst)
        ckpt.parent.mkdir(parents=True, exist_ok=True)
        options["checkpoint"] = str(ckpt)
    resumed = ckpt is not None and ckpt.exists()
    given = {**inst.given(), "method": inst.method, "time_limit": time_limit}
    clock = Deadline(None)            # each run's limit counts from its own start
    t0, c0, k0 = time.perf_counter(), time.process_time(), _children_cpu()
    try:
        payload = run_command("solve", inst.problem, given, options, clock=clock)
    except UserError as err:           # a checkpoint of other search options: start afresh
        if ckpt is None or not isinstance(err.__cause__, CheckpointError):
            raise
        warnings.warn(f"{inst.name}: {err}; the checkpoint is replaced by a new search",
                      stacklevel=2)
        ckpt.unlink()
        resumed = False
        payload = run_command("solve", inst.problem, given, options, clock=clock)
    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0 + _children_cpu() - k0   # worker processes included
    sense = payload.get("sense", "min")
    bound = payload.get("lower_bound" if sense == "min" else "upper_bound")
    run = {"kind": "certify", "method": inst.method, "solver": payload.get("solver"),
           "status": payload.get("status"), "objective": payload.get("objective"),
           "bound": bound, "gap": payload.get("gap"), "time_s": payload.get("time_s"),
           "wall_s": round(wall, 3), "cpu_s": round(cpu, 3), "time_limit": time_limit,
           "nodes": payload.get("nodes"), "resumed": resumed,
           "selected": payload.get("selected"), "options": options, "machine": machine(),
           "date": _now()}
    rec["sense"] = sense
    rec.setdefault("runs", []).append(run)
    if ckpt is not None:
        rec["checkpoint"] = str(ckpt) if ckpt.exists() else None
    save_record(root, inst, rec)
    prune_checkpoints(root)
    return run


def prune_checkpoints(root: Path) -> list[str]:
    """Remove the checkpoints of certified instances (nothing left to resume); the open
    ones stay in the repository for the next call."""
    from .library import instances, manifest_rows

    by_name = {i.name: i for i in instances()}
    removed = []
    for row in manifest_rows(root):
        inst = by_name[row["instance"]]
        ckpt = _checkpoint(root, inst)
        if row["certified"] and ckpt.exists():
            ckpt.unlink()
            rec = load_records(root, inst)
            rec["checkpoint"] = None
            save_record(root, inst, rec)
            removed.append(inst.name)
    return removed


def _support_value(inst: Instance, support: list[int]) -> dict[str, Any]:
    """``sparsekm check`` of a support: the SVM re-solved on it (certified interval)."""
    from sparsekm.run.check import check_commands
    from sparsekm.run.resolve import GRID, resolve

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "support.json"
        path.write_text(json.dumps({"support": support}))
        call = resolve(check_commands()[inst.problem],
                       {**inst.given(), "solution": str(path)}, {}, GRID)
        return call.command.runner(call)


def import_runs(root: Path, source: Path, by_name: dict[str, Instance]) -> list[str]:
    """Paper D's earlier ``bnb`` runs of Tables 3-7 (``fs_linear_certify_bnb.json``): each
    incumbent's support re-valued exactly, its bound taken as recorded (a run of the same
    instance: same data, scaling, B and C)."""
    done = []
    for row in json.loads(source.read_text()):
        inst = by_name.get(f"D-T3to7-{row['dataset']}-B{row['B']}")
        if inst is None or not row.get("selected"):
            continue
        rec = describe_instance(inst, root)
        if any(r.get("source") == str(source) and r.get("time_limit") == row["time_limit"]
               for r in rec["runs"]):
            continue
        check = _support_value(inst, row["selected"])
        recorded = float(row["objective"])
        value = float(check["support_objective"])
        if abs(value - recorded) > 1e-6 * max(1.0, abs(recorded)):
            raise ValueError(f"{inst.name}: the recorded incumbent {recorded} re-values to "
                             f"{value}: not the same instance")
        rec["runs"].append({
            "kind": "import", "source": str(source), "method": row["method"],
            "solver": "sparsekm", "status": row["status"], "objective": value,
            "objective_recorded": recorded, "bound": float(row["bound"]), "gap": row["gap"],
            "time_s": row["time_s"], "time_limit": row["time_limit"], "nodes": row["nodes"],
            "selected": row["selected"], "machine": "the same 2-core machine kind (the "
            "benchmark's report)", "date": None})
        save_record(root, inst, rec)
        done.append(inst.name)
    return done


def _export(inst: Instance, form: str, out: Path) -> dict[str, Any]:
    from sparsekm.run import execute
    from sparsekm.run.export import export_commands
    from sparsekm.run.resolve import GRID, resolve

    fmt = "nl" if inst.problem == "fs-kernel" else ("cbf" if inst.problem == "smkl" else "mps")
    given = {**inst.given(), "form": form, "format": fmt, "out": str(out / f"{form}.{fmt}")}
    return execute(resolve(export_commands()[inst.problem], given, {}, GRID))


def _cplex(path: str, time_limit: float) -> dict[str, Any]:
    import cplex

    c = cplex.Cplex()
    for stream in (c.set_results_stream, c.set_log_stream, c.set_warning_stream,
                   c.set_error_stream):
        stream(None)
    c.read(path)
    c.parameters.mip.tolerances.mipgap.set(1e-9)
    c.parameters.timelimit.set(time_limit)
    c.parameters.threads.set(1)
    t0, c0 = time.perf_counter(), time.process_time()
    c.solve()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    sol = c.solution
    return {"solver": f"CPLEX {c.get_version()}", "status": sol.get_status_string(),
            "objective": sol.get_objective_value(), "bound": sol.MIP.get_best_objective(),
            "time_s": wall, "cpu_s": cpu,
            "optimal": sol.get_status() in (sol.status.MIP_optimal,
                                            sol.status.optimal_tolerance)}


def _scip(path: str, time_limit: float, fix: dict[str, float] | None) -> dict[str, Any]:
    import pyscipopt

    from sparsekm.solvers.files.independent import read_with_scip

    res = read_with_scip(path, time_limit=time_limit, fix=fix)
    return {"solver": f"SCIP {pyscipopt.Model().version()}", "status": res.status,
            "objective": res.objective, "bound": res.bound, "time_s": res.time_s,
            "cpu_s": res.cpu_s, "optimal": res.status == "optimal"}


def confirm(inst: Instance, root: Path, solver: str, time_limit: float,
            form: str | None = None) -> dict[str, Any] | None:
    """Export the instance, let ``solver`` (scip, cplex) read the file and solve it, and
    compare with the library's best objective. Paper A's MINLP (4) is solved with beta
    fixed at the best mask (SCIP does not close the full MINLP here): that confirms the
    value of the certified point, the manifest says so."""
    from .library import manifest_rows

    row = next(r for r in manifest_rows(root) if r["instance"] == inst.name)
    if row["best_objective"] is None:
        return None
    form = form or inst.form
    with tempfile.TemporaryDirectory() as tmp:
        exported = _export(inst, form, Path(tmp))
        path = exported["file"]
        fix, kind = None, "optimum"
        if inst.problem == "fs-kernel":
            fix = {f"beta[{j}]": float(j in row["selected"]) for j in range(row["n"])}
            kind = "value at the certified point"
        out = _cplex(path, time_limit) if solver == "cplex" else _scip(path, time_limit, fix)
    best = float(row["best_objective"])
    diff = None if out["objective"] is None else abs(out["objective"] - best) / \
        max(1.0, abs(best))
    entry = {"kind": kind, "file": f"{form}.{exported['format']}", **out,
             "library_objective": best, "relative_difference": diff,
             "agrees": bool(out["optimal"] and diff is not None and diff <= AGREE),
             "time_limit": time_limit, "machine": machine(), "date": _now()}
    rec = load_records(root, inst)
    rec.setdefault("confirmations", []).append(entry)
    save_record(root, inst, rec)
    return entry
