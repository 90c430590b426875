"""Paper D's perspective bound (dual of DSCoP (13)) on the Table-6 sets: the native
interior-point method of ``perspective-dual`` (engines/perspective/ipm.py with working sets of
samples and features) against DSCoP (13) by Clarabel, in one process, same data, B = 10,
C = 10 (the CLI's defaults), standard scaling.

Not part of CI. Usage (repository root):

    PYTHONPATH=src python benchmarks/bench_fs_linear_perspective.py [--datasets ...]
        [--repeat 3] [--cli]

Each data set: DSCoP by Clarabel (the relaxation's own time_s) and the native method (wall,
through the registered relaxation), alternated ``--repeat`` times, best of each; then the
ratio and the relative difference of the two certified bounds. BLAS is limited to one thread
(the shared 2-core machine). ``--cli`` also times the two CLI commands
(``sparsekm relax fs-linear --data D --B 10 --relaxation perspective-dual --json`` and
``... --relaxation dscop --solver clarabel --json``): their JSON time_s and the process wall
time, which includes the CLI's start-up. Writes benchmarks/results/fs_linear_perspective.md
/ .json.
"""

from __future__ import annotations

import os

USER_ENV = dict(os.environ)   # the CLI runs see the caller's environment
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from results_io import write_results  # noqa: E402

from sparsekm.data import Scaler, load_dataset  # noqa: E402
from sparsekm.models.fs_linear import FSLinearProblem  # noqa: E402
from sparsekm.relaxations.fs_linear import solve_relaxation  # noqa: E402
from sparsekm.solvers import SolverPlan  # noqa: E402

DATASETS = ["colorectal", "dlbcl", "lymphoma", "arrhythmia", "madelon", "mfeat"]
CLI = Path(sys.executable).with_name("sparsekm")


def problem(name: str, B: int = 10) -> FSLinearProblem:
    ds = load_dataset(name)
    X = Scaler("standard").fit(ds.X).transform(ds.X)
    return FSLinearProblem(X, ds.y.astype(float), B=B, C=10.0)


def cli(name: str, *args: str) -> tuple[float, float, float]:
    """(lower_bound, JSON time_s, process wall time) of one CLI run."""
    t0 = time.perf_counter()
    out = subprocess.run([str(CLI), "relax", "fs-linear", "--data", name, "--B", "10", *args,
                          "--json"], capture_output=True, text=True, check=True,
                         env=USER_ENV).stdout
    wall = time.perf_counter() - t0
    j = json.loads(out)
    return j["lower_bound"], j["time_s"], wall


def run(name: str, repeat: int, with_cli: bool) -> dict:
    p = problem(name)
    ref_t, nat_t = [], []
    for _ in range(repeat):
        ref = solve_relaxation(p, "dscop", SolverPlan(relax_solver="clarabel"))
        ref_t.append(ref.time_s)
        t0 = time.perf_counter()
        nat = solve_relaxation(p, "perspective-dual", SolverPlan())
        nat_t.append(time.perf_counter() - t0)
    row = {"data": name, "m": p.m, "n": p.n, "dscop_bound": ref.bound,
           "dscop_time_s": min(ref_t), "ipm_bound": nat.bound, "ipm_wall_s": min(nat_t),
           "rel_diff": (nat.bound - ref.bound) / abs(ref.bound),
           **{k: nat.extra[k] for k in ("working_set", "working_rows", "rounds",
                                        "ipm_iterations", "ipm_relative_gap")}}
    if with_cli:
        runs = {"ipm": [], "dscop": []}
        for _ in range(repeat):
            runs["dscop"].append(cli(name, "--relaxation", "dscop", "--solver", "clarabel"))
            runs["ipm"].append(cli(name, "--relaxation", "perspective-dual"))
        for key, rs in runs.items():
            row[f"cli_{key}_time_s"] = min(r[1] for r in rs)
            row[f"cli_{key}_wall_s"] = min(r[2] for r in rs)
            row[f"cli_{key}_bound"] = rs[0][0]
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", nargs="+", default=DATASETS)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cli", action="store_true")
    args = ap.parse_args()
    rows = []
    loads = [os.getloadavg()[0]]
    for name in args.datasets:
        rows.append(run(name, args.repeat, args.cli))
        loads.append(os.getloadavg()[0])
        print(rows[-1], flush=True)
    lines = [
        "# Paper D's perspective bound: native interior point vs DSCoP (13) by Clarabel",
        "",
        f"Run {time.strftime('%Y-%m-%d')} by `benchmarks/bench_fs_linear_perspective.py` "
        f"(one process, one BLAS thread, shared 2-core machine, load {min(loads):.0f}-"
        f"{max(loads):.0f}). B = 10, C = 10, standard scaling; best of {args.repeat} "
        "alternated runs. `ratio` = DSCoP time_s / native wall time (the native time "
        "includes everything: working sets, certificates); `diff` = relative difference of "
        "the certified bounds (native - Clarabel); |W| / |R|: final working sets of "
        "features / samples.",
        "",
        "| data | m | n | DSCoP bound | DSCoP time_s | native bound | native s | ratio | diff "
        "| |W| | |R| | rounds | IPM it. | IPM rel. gap |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['data']} | {r['m']} | {r['n']} | {r['dscop_bound']:.10g} | "
            f"{r['dscop_time_s']:.2f} | {r['ipm_bound']:.10g} | {r['ipm_wall_s']:.2f} | "
            f"{r['dscop_time_s'] / r['ipm_wall_s']:.1f}x | {r['rel_diff']:.1e} | "
            f"{r['working_set']} | {r['working_rows']} | {r['rounds']} | "
            f"{r['ipm_iterations']} | {r['ipm_relative_gap']:.1e} |")
    if args.cli:
        lines += [
            "",
            "CLI (`sparsekm relax fs-linear --data D --B 10 --relaxation perspective-dual "
            "--json` vs `--relaxation dscop --solver clarabel --json`; default BLAS threads; "
            "wall = the whole process, start-up included):",
            "",
            "| data | DSCoP time_s | DSCoP wall | native time_s | native wall | ratio time_s "
            "| ratio wall | bounds diff |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for r in rows:
            diff = (r["cli_ipm_bound"] - r["cli_dscop_bound"]) / abs(r["cli_dscop_bound"])
            lines.append(
                f"| {r['data']} | {r['cli_dscop_time_s']:.2f} | {r['cli_dscop_wall_s']:.2f} | "
                f"{r['cli_ipm_time_s']:.2f} | {r['cli_ipm_wall_s']:.2f} | "
                f"{r['cli_dscop_time_s'] / r['cli_ipm_time_s']:.1f}x | "
                f"{r['cli_dscop_wall_s'] / r['cli_ipm_wall_s']:.1f}x | {diff:.1e} |")
    write_results("fs_linear_perspective", lines, rows)


if __name__ == "__main__":
    main()
