"""``bnb`` with the active-set node engine (the default) on paper D's wide and Table-7 sets.

Each run is the CLI's default ``bnb`` on 2 workers, one after another (each uses both cores;
run under ``flock /work/wt/bench.lock`` so that no other job shares the machine), its JSON
kept in ``results/fs_linear_node_engine_runs/<suite>_<data>_B<B>_C<C>.json``: a run whose file
exists is not run again, so a suite runs in pieces (``--minutes``: no run starts after that
many minutes) and resumes where it stopped::

    python benchmarks/bench_fs_linear_node_engine.py run wide --minutes 25    # 12 x 600 s
    python benchmarks/bench_fs_linear_node_engine.py run table7 --minutes 25  # 18 x 60 s
    python benchmarks/bench_fs_linear_node_engine.py run check               # colorectal B = 20
    python benchmarks/bench_fs_linear_node_engine.py run wide --case dlbcl:20:1 --tag T  # one case
    python benchmarks/bench_fs_linear_node_engine.py report

Suites: ``wide`` (colorectal, dlbcl, lymphoma; B = 20, 30; C = 1, 10; 600 s), ``table7``
(paper D's Table 7: arrhythmia, colorectal, dlbcl, lymphoma, madelon, mfeat; B = 10, 20, 30;
C = 10; 60 s) and ``check`` (colorectal B = 20, C = 1, 300 s: the issue's check; ``--tag``
keeps repeated runs apart). ``report`` writes ``results/fs_linear_node_engine.md`` and
``.json``: gap, nodes, nodes per second of the tree phase, pruned fraction, the node solver and
the machine's load average at the start and end of each run, beside the interior-point runs
of the same instances (``paperD-node-bounds-trees600.csv``: reliability branching, 600 s, 2
workers; ``paperD-table7-workers.csv``: 60 s, 2 workers).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from results_io import OUT, write_results

RUNS = OUT / "fs_linear_node_engine_runs"
SUITES = {
    "wide": ([(d, B, C) for d in ("colorectal", "dlbcl", "lymphoma") for B in (20, 30)
              for C in (1.0, 10.0)], 600),
    "table7": ([(d, B, 10.0) for d in ("arrhythmia", "colorectal", "dlbcl", "lymphoma",
                                       "madelon", "mfeat") for B in (10, 20, 30)], 60),
    "check": ([("colorectal", 20, 1.0)], 300),
}
BASELINES = {"wide": "paperD-node-bounds-trees600.csv", "table7": "paperD-table7-workers.csv"}


def path(suite: str, case: tuple[str, int, float], tag: str = "") -> Path:
    data, B, C = case
    return RUNS / f"{suite}_{data}_B{B}_C{C:g}{'_' + tag if tag else ''}.json"


def load_avg() -> float:
    return os.getloadavg()[0]


def run_case(suite: str, case: tuple[str, int, float], seconds: int, tag: str,
             options: list[str]) -> None:
    """The CLI's bnb on 2 workers (default options, or ``-o NAME=VALUE`` for each of
    ``options``); its JSON, the load before and after, the wall."""
    data, B, C = case
    exe = Path(sys.executable).with_name("sparsekm")
    cmd = [str(exe), "solve", "fs-linear", "--data", data, "--B", str(B), "--C", f"{C:g}",
           "--method", "bnb", "--workers", "2", "--time-limit", str(seconds),
           *[a for o in options for a in ("-o", o)], "--json"]
    before, t0 = load_avg(), time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    res = json.loads(out)
    res["bench"] = {"command": " ".join(["sparsekm", *cmd[1:]]), "load_before": before,
                    "load_after": load_avg(), "wall_s": time.perf_counter() - t0}
    RUNS.mkdir(parents=True, exist_ok=True)
    path(suite, case, tag).write_text(json.dumps(res))
    print(f"{suite} {data} B={B} C={C:g}: gap {res['gap']:.4f} nodes {res['nodes']}",
          flush=True)


def run(suite: str, minutes: float, tag: str, options: list[str],
        only: list[str] | None = None) -> None:
    """The suite's runs not yet kept (``only``: the cases named ``data:B:C``)."""
    cases, seconds = SUITES[suite]
    if only:
        cases = [c for c in cases if f"{c[0]}:{c[1]}:{c[2]:g}" in only]
    t0 = time.perf_counter()
    for case in cases:
        if path(suite, case, tag).exists():
            continue
        if (time.perf_counter() - t0) / 60 + seconds / 60 > minutes:
            print("time budget reached; run again to continue", flush=True)
            return
        run_case(suite, case, seconds, tag, options)


def _baseline(suite: str) -> dict[tuple[str, int, float], dict]:
    name = BASELINES.get(suite)
    if name is None or not (OUT / name).exists():
        return {}
    out = {}
    with open(OUT / name) as fh:
        for row in csv.DictReader(fh):
            if suite == "table7" and row.get("workers") != "2":
                continue
            out[(row["data"], int(row["B"]), float(row["C"]))] = row
    return out


def rows_of(suite: str) -> list[dict]:
    cases, seconds = SUITES[suite]
    base = _baseline(suite)
    rows = []
    for case in cases:
        stem = path(suite, case).stem  # the untagged run, then its tagged variants
        files = [RUNS / f"{stem}.json", *sorted(RUNS.glob(f"{stem}_*.json"))]
        for f in (f for f in files if f.exists()):
            r = json.loads(f.read_text())
            b = base.get(case, {})
            rows.append({
                "suite": suite, "data": case[0], "B": case[1], "C": case[2], "file": f.name,
                "tag": f.stem[len(stem) + 1:],
                "seconds": seconds, "objective": r["objective"], "bound": r["lower_bound"],
                "gap": r["gap"], "nodes": r["nodes"], "nodes_per_s": r.get("nodes_per_s"),
                "deferred": r.get("deferred", 0),
                "pruned_fraction": r.get("pruned_fraction"), "root_gap": r.get("root_gap"),
                "solver": r.get("solver"), "open_nodes": r.get("open_nodes"),
                "load": [None if r["bench"].get(k) is None else round(r["bench"][k], 1)
                         for k in ("load_before", "load_after")],
                "options": " ".join(r["bench"]["command"].split(" --json")[0].split()[15:]),
                "ipm_gap": float(b["gap"]) if b.get("gap") else None,
                "ipm_nodes": int(float(b["nodes"])) if b.get("nodes") else None})
    return rows


def _load(load: list) -> str:
    return "not recorded" if None in load else f"{load[0]}-{load[1]}"


def report() -> None:
    lines = ["# The active-set node engine in the tree: paper D's wide and Table-7 sets", "",
             "Produced by `benchmarks/bench_fs_linear_node_engine.py report` from the runs in "
             "`results/fs_linear_node_engine_runs/` (the CLI's default `bnb`, 2 workers, one "
             "run at a time). `IPM` columns: the interior-point node bound's runs of the same "
             "instances (wide: reliability branching, 600 s, "
             "`paperD-node-bounds-trees600.csv`; Table 7: fractional branching, 60 s, "
             "`paperD-table7-workers.csv`). `load`: the machine's 1-minute load average "
             "before and after the run (2 cores). `run`: the tag of a repeated run (tags that "
             "start with `restrict` ran after strong branching's probes after fixings "
             "started from the node's own state; untagged runs and other tags ran before). "
             "Runs tagged `defer-*` ran with deferred branching (`defer`; the default, "
             "1e-4, since then: `defer-default`), all others before it existed. `held`: "
             "the engine that checks its optimum before it says optimal; `pivot-8us`: that "
             "engine with the cheaper pivot (8.3 us instead of 10.2 on the replayed "
             "nodes, `fs_linear_node_cost.md`); `pivot-7us`: the engine of the 9.9x replay "
             "(7.4 us a pivot, a pricing pass every 50 pivots, the state packed for "
             "Python); `replay-10x`: the engine of the 10.2x replay (7.0 us a pivot, the "
             "correction onto the constraints only beyond round-off); `tall-engine`: "
             "that engine on every m (before, the tall sets' nodes went to the interior "
             "point), its solves in chunks resumed from their state; `tall-copy`: that "
             "engine with strong branching's forks copying Q and R whole again unless "
             "their leading blocks are under a quarter of them (the `tall-engine` check "
             "copied the blocks alone at m = 62: 1.106 ms a node against 1.026); "
             "`tall-thaw`: that engine reading its partition again at a pricing pass "
             "whose g its model no longer equals (a dependent tie drifted). `nodes`: "
             "nodes bounded, a deferred node bounded again counting twice; `deferred`: "
             "nodes sent back to the queue unbranched.",
             ""]
    table = []
    for suite in SUITES:
        rows = rows_of(suite)
        if not rows:
            continue
        table += rows
        lines += [f"## {suite} ({SUITES[suite][1]} s)", "",
                  "| data | B | C | incumbent | certified bound | gap | IPM gap | nodes | "
                  "deferred | IPM nodes | nodes/s | pruned | root gap | load | options | run |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in rows:
            ipm = "" if r["ipm_gap"] is None else f"{100 * r['ipm_gap']:.2f} %"
            lines.append(
                f"| {r['data']} | {r['B']} | {r['C']:g} | {r['objective']:.6g} | "
                f"{r['bound']:.6g} | {100 * r['gap']:.2f} % | {ipm} | {r['nodes']:,} | "
                f"{r['deferred']:,} | "
                f"{'' if r['ipm_nodes'] is None else format(r['ipm_nodes'], ',')} | "
                f"{(r['nodes_per_s'] or 0):.0f} | {100 * (r['pruned_fraction'] or 0):.2f} % | "
                f"{100 * (r['root_gap'] or 0):.1f} % | {_load(r['load'])} | "
                f"{r['options'] or 'default'} | {r['tag'] or '-'} |")
        lines.append("")
    lines += _rise_lines(table) + _scaling_lines() + _dask_lines()
    write_results("fs_linear_node_engine", lines, table)


def _rise_lines(table: list[dict]) -> list[str]:
    """The certified bound's rise per doubling of the time, from each Table-7 run (60 s) to
    the wide run of the same instance (C = 10, 600 s, untagged), and the time 1 % would take
    at that rate (with the wide run's incumbent)."""
    first = {(r["data"], r["B"], r["C"]): r for r in table
             if r["suite"] == "table7" and not r["tag"]}
    out = ["## The bound's rise per doubling of the time (60 s to 600 s, C = 10)", "",
           "From each Table-7 run to the wide run of the same instance: rise = (bound at "
           "600 s - bound at 60 s) / log2(10); the bound 1 % needs is 0.99 x the incumbent; at "
           "that rise it is reached after 2^((needed - bound at 600 s) / rise) x 600 s.", "",
           "| data | B | bound 60 s | bound 600 s | rise per doubling | bound for 1 % | "
           "time for 1 % at that rise |", "|---|---|---|---|---|---|---|"]
    rows = 0
    for r in table:
        a = first.get((r["data"], r["B"], r["C"]))
        if r["suite"] != "wide" or a is None or r["tag"]:
            continue
        rise = (r["bound"] - a["bound"]) / np.log2(r["seconds"] / a["seconds"])
        need = 0.99 * r["objective"]
        when = "reached" if r["bound"] >= need else (
            "never" if rise <= 0 else f"{2 ** ((need - r['bound']) / rise):.3g} x 600 s")
        out.append(f"| {r['data']} | {r['B']} | {a['bound']:.6g} | {r['bound']:.6g} | "
                   f"{rise:.4f} | {need:.6g} | {when} |")
        rows += 1
    checks = [r for r in table if r["suite"] == "check"]
    if checks:
        ubs = sorted({round(r["objective"], 7) for r in checks}, reverse=True)
        out += ["", "The `check` instance: 3 % needs the certified bound at "
                + ", ".join(f"{0.97 * ub:.4f} with the incumbent {ub:.7g}" for ub in ubs)
                + " (0.97 x the incumbent; each run's gap is to its own incumbent)."]
    return out + [""] if rows or checks else []


def _scaling_lines() -> list[str]:
    f = RUNS / "scaling.json"
    if not f.exists():
        return []
    d = json.loads(f.read_text())
    out = ["## More workers: the scaling model with the active-set node cost", "",
           f"A colorectal B = 20, C = 1 run on 2 workers (`scaling`, load {d['load']}): "
           f"{d['nodes']:,} nodes, T_1 = {d['T_1']:.0f} s of node and driver CPU, node CPU mean "
           f"{1e3 * d['node_cpu_mean']:.2f} ms (p50 {1e3 * d['node_cpu_p50']:.2f}, p90 "
           f"{1e3 * d['node_cpu_p90']:.2f}; a node's CPU includes bounding its children and "
           f"the strong-branching probes), driver {1e3 * d['driver_cpu_per_node']:.3f} ms CPU "
           f"per node, so the driver saturates near {d['driver_saturates_at']:.0f} workers. "
           "Measured node times played on W workers with the engine's schedule (batch = W "
           "tasks of 16 nodes, two batches in flight, one driver); T_1 counts the driver's "
           "time serially, so efficiency can pass 1 at W = 2.", "",
           "| W | T_W s | efficiency T_1 / (W T_W) | driver busy |", "|---|---|---|---|"]
    out += [f"| {r['W']} | {r['T_W']:.2f} | {r['efficiency']:.2f} | "
            f"{100 * r['driver_busy']:.0f} % |" for r in d["model"]]
    return out + [""]


def _dask_lines() -> list[str]:
    f = RUNS / "dask.json"
    if not f.exists():
        return []
    d = json.loads(f.read_text())
    out = [f"## Dask LocalCluster: {d['workers'][1]} worker processes against one", "",
           f"{d['instance']}, batch 32 (`dask`).", "",
           "| workers | status | objective | certified bound | support | nodes | time s |",
           "|---|---|---|---|---|---|---|"]
    for i in range(2):
        out.append(f"| {d['workers'][i]} | {d['status'][i]} | {d['objective'][i]:.12g} | "
                   f"{d['bound'][i]:.12g} | {d['selected'][i]} | {d['nodes'][i]:,} | "
                   f"{d['time_s'][i]:.1f} |")
    return out + ["", "The 8 processes share 2 cores here, so their wall time is no speed-up "
                  "measure; the point is the same optimum, bound and tree.", ""]


def colorectal(B: int = 20, C: float = 1.0):
    from sparsekm.data import Scaler, load_dataset
    from sparsekm.models.fs_linear import FSLinearProblem

    ds = load_dataset("colorectal")
    X = Scaler("standard").fit(ds.X).transform(ds.X)
    return FSLinearProblem(X, ds.y.astype(float), B=B, C=C)


def _makespan(tasks: list[float], workers: int, batch_tasks: int, d_task: float) -> float:
    """The tree phase on ``workers`` workers: tasks released in batches of ``batch_tasks``,
    at most two batches in flight, the driver (one server) spending ``d_task`` per task
    (dispatch, unpickling, merge) in release order; the engine's schedule
    (:mod:`sparsekm.algorithms.tree.driver`)."""
    free = np.zeros(workers)
    merged: list[float] = []
    driver = 0.0
    batches = [tasks[i:i + batch_tasks] for i in range(0, len(tasks), batch_tasks)]
    for b, cpus in enumerate(batches):
        release = 0.0 if b < 2 else merged[b - 2]
        end = release
        for c in cpus:
            w = int(np.argmin(free))
            free[w] = max(free[w], release) + c
            end = max(end, free[w])
        driver = max(end, driver) + d_task * len(cpus)
        merged.append(driver)
    return max(driver, float(free.max()))


def scaling(seconds: float) -> None:
    """A 2-worker colorectal B = 20 run (its node CPU times and the driver's CPU per node),
    played on 8, 32 and 128 workers with the default batch (16 nodes per task, one task per
    worker and batch)."""
    from sparsekm.algorithms.fs_linear import solve_fs_linear
    from sparsekm.solvers import SolverPlan

    res = solve_fs_linear(colorectal(), "bnb", SolverPlan(time_limit=seconds), workers=2)
    tr = res.raw
    nodes = [c for _, cpus in tr.schedule for c in cpus]
    d_node = tr.timing["driver_cpu"] / max(tr.nodes, 1)
    chunk = 16
    tasks = [sum(nodes[i:i + chunk]) for i in range(0, len(nodes), chunk)]
    t1 = sum(nodes) + d_node * len(nodes)
    rows = []
    for W in (2, 8, 32, 128):
        tw = _makespan(tasks, W, W, d_node * chunk)
        rows.append({"W": W, "T_W": tw, "efficiency": t1 / (W * tw),
                     "driver_busy": d_node * len(nodes) / tw})
    out = {"nodes": tr.nodes, "node_cpu_mean": float(np.mean(nodes)),
           "node_cpu_p50": float(np.median(nodes)), "node_cpu_p90": float(
               np.quantile(nodes, 0.9)), "driver_cpu_per_node": d_node,
           "driver_saturates_at": float(np.mean(nodes) / d_node), "T_1": t1, "model": rows,
           "gap": res.gap, "load": round(load_avg(), 1)}
    RUNS.mkdir(parents=True, exist_ok=True)
    (RUNS / "scaling.json").write_text(json.dumps(out, indent=1))
    print(json.dumps(out, indent=1))


def dask_check(workers: int) -> None:
    """The same search on one process and on a Dask LocalCluster of ``workers`` worker
    processes, batch 32: the same certificate and optimum (and, for a fixed batch, the same
    nodes)."""
    from dask.distributed import Client, LocalCluster

    from sparsekm.algorithms.fs_linear import solve_fs_linear
    from sparsekm.solvers import SolverPlan

    p = colorectal(B=4)
    keep = np.argsort(-np.abs(p.X.T @ p.y))[:150]      # 150 features: a tree that closes
    p = type(p)(p.X[:, np.sort(keep)], p.y, B=4, C=1.0)
    one = solve_fs_linear(p, "bnb", SolverPlan(time_limit=900), batch=32)
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        many = solve_fs_linear(p, "bnb", SolverPlan(time_limit=900), batch=32,
                               scheduler=client)
    out = {"instance": "colorectal, 150 features most correlated with y, B = 4, C = 1",
           "workers": [one.extra["workers"], many.extra["workers"]],
           "status": [one.status.value, many.status.value],
           "objective": [one.objective, many.objective], "bound": [one.bound, many.bound],
           "selected": [one.selected, many.selected],
           "nodes": [one.extra["nodes"], many.extra["nodes"]],
           "time_s": [one.time_s, many.time_s]}
    RUNS.mkdir(parents=True, exist_ok=True)
    (RUNS / "dask.json").write_text(json.dumps(out, indent=1, default=str))
    print(json.dumps(out, indent=1, default=str))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("step", choices=("run", "report", "scaling", "dask"))
    ap.add_argument("--seconds", type=float, default=120.0)
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("suite", nargs="?", choices=tuple(SUITES))
    ap.add_argument("--minutes", type=float, default=25.0)
    ap.add_argument("--tag", default="")
    ap.add_argument("--option", action="append", default=[],
                    help="NAME=VALUE passed to bnb as -o (repeatable; give a --tag too)")
    ap.add_argument("--case", action="append", default=[],
                    help="run only this case of the suite, DATA:B:C (repeatable)")
    args = ap.parse_args()
    if args.step == "run":
        run(args.suite, args.minutes, args.tag, args.option, args.case)
    elif args.step == "scaling":
        scaling(args.seconds)
    elif args.step == "dask":
        dask_check(args.workers)
    else:
        report()


if __name__ == "__main__":
    main()
