"""Round trip of exported files: sparsekm writes, other solvers read the file
directly, and their optimum / bound is compared with sparsekm's certified values.

Usage (from the repository root; about 5 min on the shared 2-core machine, run with nice):

    nice -n 19 .venv/bin/python benchmarks/bench_export_roundtrip.py

Writes benchmarks/results/export_roundtrip.md and .json: per file, the reader, its status,
objective and dual bound, sparsekm's value, the relative difference, wall and CPU seconds of
the reader's solve, and the export's own wall and CPU seconds.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

from results_io import write_results  # noqa: E402

from sparsekm.run import execute, run  # noqa: E402
from sparsekm.run.export import export_commands  # noqa: E402
from sparsekm.run.resolve import GRID, resolve  # noqa: E402
from sparsekm.solvers.files.independent import (  # noqa: E402
    read_with_highs,
    read_with_mosek,
    read_with_scip,
    solve_with_clarabel,
)

T8 = {"data": "cleveland", "B": 5, "C": 10.0, "test_size": 0.2, "seed": 0}
SONAR = {"data": "sonar", "rows": 200, "B": 7, "C": 10.0}
IRIS = {"data": "iris", "test_size": 0.2, "seed": 0, "C": 10.0, "lam": 1.0, "k0": 2,
        "kernels": "paper10"}


def export(problem: str, flags: dict, form: str, fmt: str, folder: Path, **extra) -> dict:
    given = {**flags, "form": form, "format": fmt,
             "out": str(folder / f"{problem}-{form}-{fmt}.{fmt}"), **extra}
    return execute(resolve(export_commands()[problem], given, {}, GRID))


def cplex_read(path: str, limit: float) -> tuple[str, float, float, float, float]:
    import cplex

    c = cplex.Cplex()
    for s in (c.set_results_stream, c.set_log_stream, c.set_warning_stream,
              c.set_error_stream):
        s(None)
    c.read(path)
    c.parameters.mip.tolerances.mipgap.set(1e-9)
    c.parameters.timelimit.set(limit)
    c.parameters.threads.set(1)
    t0, c0 = time.perf_counter(), time.process_time()
    c.solve()
    sol = c.solution
    return (sol.get_status_string(), sol.get_objective_value(), sol.MIP.get_best_objective(),
            time.perf_counter() - t0, time.process_time() - c0)


def row(case: str, exp: dict, reader: str, r: Any, ref: float) -> dict:
    """One table row: the reader's outcome ``r`` (status, objective, bound, time_s, cpu_s)
    against sparsekm's value ``ref``."""
    obj = r.objective
    diff = None if obj is None else abs(obj - ref) / max(1.0, abs(ref))
    return {"case": case, "file": Path(exp["file"]).name, "bytes": exp["bytes"],
            "export_s": exp["time_s"], "export_cpu_s": exp["cpu_s"], "reader": reader,
            "status": r.status, "objective": obj, "bound": r.bound, "sparsekm": ref,
            "relative_difference": diff, "wall_s": round(r.time_s, 3),
            "cpu_s": round(r.cpu_s, 3)}


def fs_linear_cases(folder: Path, flags: dict, tag: str, rows: list[dict]) -> None:
    t0, c0 = time.perf_counter(), time.process_time()
    opt = run("solve", "fs-linear", {**flags, "method": "bnb", "time_limit": 600.0},
              {"gap_tol": 1e-6})
    rows.append({"case": f"{tag}: bnb (sparsekm)", "file": "", "reader": "sparsekm bnb",
                 "status": opt["status"], "objective": opt["objective"],
                 "bound": opt["lower_bound"], "sparsekm": opt["objective"],
                 "relative_difference": 0.0, "wall_s": round(time.perf_counter() - t0, 3),
                 "cpu_s": round(time.process_time() - c0, 3)})
    ref = opt["objective"]
    for form in ("bigm", "cop"):
        for fmt in ("lp", "mps"):
            exp = export("fs-linear", flags, form, fmt, folder)
            r = read_with_scip(exp["file"], time_limit=600)
            rows.append(row(f"{tag}: {form}", exp, "SCIP", r, ref))
    exp = export("fs-linear", flags, "bigm", "mps", folder)
    try:
        st, obj, bnd, wall, cpu = cplex_read(exp["file"], 600)
        rows.append(row(f"{tag}: bigm", exp, "CPLEX", SimpleNamespace(
            status=st, objective=obj, bound=bnd, time_s=wall, cpu_s=cpu), ref))
    except Exception as exc:  # noqa: BLE001 - the community edition's size limit
        rows.append(row(f"{tag}: bigm", exp, "CPLEX", SimpleNamespace(
            status=f"refused: {exc}"[:80], objective=None, bound=None, time_s=0.0, cpu_s=0.0),
            ref))
    side = json.loads(Path(exp["sidecar"]).read_text())
    box = run("relax", "fs-linear", {**flags, "relaxation": "box"},
              {"M": side["options"]["M"]})
    r = read_with_highs(exp["file"], relax_integers=True)
    rows.append(row(f"{tag}: bigm, integrality dropped = box (8)", exp, "HiGHS", r,
                    box["objective"]))
    fix = {f"v({j})": float(j in opt["selected"]) for j in range(opt["n"])}
    r = read_with_highs(exp["file"], relax_integers=True, fix=fix)
    rows.append(row(f"{tag}: bigm, v fixed at the optimal support", exp, "HiGHS", r, ref))
    rel = run("relax", "fs-linear", {**flags, "relaxation": "dscop"})
    for fmt in ("lp", "mps"):
        exp = export("fs-linear", flags, "dscop", fmt, folder)
        r = read_with_scip(exp["file"], time_limit=600)
        rows.append(row(f"{tag}: dscop (13)", exp, "SCIP", r, rel["objective"]))
    for conic in ("soc", "sdp"):
        exp = export("fs-linear", flags, "dscop", "cbf", folder, conic=conic)
        r = solve_with_clarabel(read_with_mosek(exp["file"]))
        rows.append(row(f"{tag}: dscop (13), {conic} blocks", exp, "MOSEK reader + Clarabel",
                        r, rel["objective"]))


def smkl_cases(folder: Path, rows: list[dict]) -> None:
    for form, fmts in (("soc-basis", ("lp", "cbf")), ("sdp-full", ("cbf",))):
        rel = run("relax", "smkl", {**IRIS, "relaxation": form})
        for fmt in fmts:
            exp = export("smkl", IRIS, form, fmt, folder)
            if fmt == "cbf":
                r = solve_with_clarabel(read_with_mosek(exp["file"]))
                reader = "MOSEK reader + Clarabel"
            else:
                r = read_with_scip(exp["file"], time_limit=600)
                reader = "SCIP"
            rows.append(row(f"iris (B, Table 6): {form}", exp, reader, r, rel["objective"]))
    exp = export("smkl", IRIS, "misdp", "cbf", folder)
    data = read_with_mosek(exp["file"])
    rows.append({"case": "iris (B, Table 6): misdp (13)", "file": Path(exp["file"]).name,
                 "bytes": exp["bytes"], "reader": "MOSEK reader", "status":
                 f"parsed: {len(data.integer)} integer columns, PSD orders "
                 f"{[k for kind, k in data.cones if kind == 'psd']}", "objective": None,
                 "bound": None, "sparsekm": None, "relative_difference": None,
                 "wall_s": None, "cpu_s": None})


def main() -> None:
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        fs_linear_cases(folder, T8, "cleveland (D, Table 8)", rows)
        fs_linear_cases(folder, SONAR, "sonar 200 x 60, B = 7", rows)
        smkl_cases(folder, rows)
    lines = ["# Round trip of exported files", "",
             "sparsekm writes the file (`sparsekm export`); the reader parses it and solves "
             "what it read. `sparsekm` = the certified value the reader's result is compared "
             "with (bnb's optimum, or the relaxation's value from `sparsekm relax`); diff = "
             "|reader - sparsekm| / max(1, |sparsekm|). Shared 2-core machine, other jobs "
             "running; reader wall / CPU seconds.", "",
             "| case | file | reader | status | objective | bound | sparsekm | diff | wall s |"
             " cpu s |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        def f(x, fmt=".10g"):
            return "" if x is None else format(x, fmt)
        lines.append(f"| {r['case']} | {r['file']} | {r['reader']} | {r['status']} | "
                     f"{f(r['objective'])} | {f(r['bound'])} | {f(r['sparsekm'])} | "
                     f"{f(r['relative_difference'], '.1e')} | {f(r['wall_s'], '.2f')} | "
                     f"{f(r['cpu_s'], '.2f')} |")
    write_results("export_roundtrip", lines, rows)


if __name__ == "__main__":
    main()
