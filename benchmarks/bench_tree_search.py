"""The tree-search engine at 1 and 2 workers, kill -9 + resume, and a model at 8-128 workers.

Not part of CI. Usage (from the repository root):

    PYTHONPATH=src python benchmarks/bench_tree_search.py run fs-linear --workers 1
    PYTHONPATH=src python benchmarks/bench_tree_search.py run fs-linear --workers 2
    PYTHONPATH=src python benchmarks/bench_tree_search.py replay fs-linear --batch 8 32 128
    PYTHONPATH=src python benchmarks/bench_tree_search.py kill fs-linear --workers 1
    PYTHONPATH=src python benchmarks/bench_tree_search.py report

``run`` times one search (wall, CPU of the driver and of its workers, the load average);
``replay`` runs the search *serially* with batch size b (the same tree a b-worker run
bounds, since for a fixed batch the run is deterministic) and records each node task's CPU
time and the batch schedule; the model (:func:`simulate`) then plays that schedule on W
workers: batch k starts when the batches it was released after are merged, idle workers take
tasks first-in first-out, the driver merges in order at its measured CPU cost per node, and the
root phase is its serial part (the root relaxation) plus the rest divided by W. ``kill`` runs the
search in a child process, kills it with SIGKILL halfway through the uninterrupted time and
reruns it with the same checkpoint. Results accumulate in benchmarks/results/tree_search.json;
``report`` writes tree_search.md. Instances (1-3 minutes on one worker of a quiet machine):
paper D: ionosphere B = 6, C = 1; paper A: ionosphere B = 4 (margin, poly d = 2); paper B:
heart (80 % train, seed 0), paper10, k0 = 2, C = 10, lam = 100.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from results_io import OUT

from sparsekm import registry
from sparsekm.solvers import SolverPlan

RESULTS = OUT / "tree_search.json"
METHOD = {"fs-linear": "bnb", "fs-kernel": "bnb", "smkl": "exact"}
INSTANCE = {"fs-linear": "ionosphere B=6 C=1", "fs-kernel": "ionosphere B=4 poly d=2 margin",
            "smkl": "heart (80 % train) paper10 k0=2 C=10 lam=100"}


def problem(name: str) -> Any:
    from sparsekm.data import Scaler, load_dataset, train_test_split

    if name == "fs-linear":
        from sparsekm.models.fs_linear import FSLinearProblem

        ds = load_dataset("ionosphere")
        X = Scaler("standard").fit(ds.X).transform(ds.X)
        return FSLinearProblem(X, ds.y.astype(float), B=6, C=1.0)
    if name == "fs-kernel":
        from sparsekm.models.fs_kernel import FSKernelProblem

        ds = load_dataset("ionosphere")
        X = Scaler("standard").fit(ds.X).transform(ds.X)
        return FSKernelProblem(X, ds.y.astype(float), B=4, C=10.0, kernel="poly", degree=2,
                               gamma=0.1, coef0=1.0, sense="margin")
    from sparsekm.models.smkl.problem import SMKLProblem

    train, _ = train_test_split(load_dataset("heart"), test_size=0.2, seed=0)
    X = Scaler("standard").fit(train.X).transform(train.X)
    return SMKLProblem(X, train.y.astype(float), "paper10", 2, 10.0, 100.0)


def solve(name: str, **kw: Any) -> Any:
    return registry.get(name, "method", METHOD[name]).run(problem(name), SolverPlan(), **kw)


def _load() -> float:
    return round(os.getloadavg()[0], 1)


def cmd_run(args: argparse.Namespace) -> dict:
    kw: dict[str, Any] = {"workers": args.workers}
    if args.batch:
        kw["batch"] = args.batch
    load0, t0, c0 = _load(), time.perf_counter(), time.process_time()
    res = solve(args.method, **kw)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    s = res.raw
    return {"kind": "run", "method": args.method, "instance": INSTANCE[args.method],
            "workers": args.workers, "batch": res.extra["batch"], "wall_s": wall,
            "cpu_driver_s": cpu, "cpu_workers_s": kids.ru_utime + kids.ru_stime,
            "load_before": load0, "load_after": _load(), "status": res.status.value,
            "objective": res.objective, "bound": res.bound, "nodes": res.extra["nodes"],
            "root_s": s.timing.get("root_s"), "root_cpu": s.timing.get("root_cpu"),
            "driver_cpu_per_node": s.timing["driver_cpu"] / max(s.nodes, 1),
            "node_cpu": _quantiles([c for _, cs in s.schedule for c in cs]),
            "timing": s.timing, **(_replay_fields(res) if args.workers == 1 else {})}


def _replay_fields(res: Any) -> dict:
    """What the model needs from a run on one worker (its tree is a batch-b run's tree)."""
    s = res.raw
    return {"root_cpu": s.timing.get("root_cpu"),
            "root_serial_cpu": s.timing.get("stage_relaxation_cpu", 0.0),
            "driver_cpu_per_node": s.timing["driver_cpu"] / max(s.nodes, 1),
            "schedule": [[a, c] for a, c in s.schedule]}


def _quantiles(x: list[float]) -> dict:
    a = np.asarray(x)
    if not a.size:
        return {}
    q = np.quantile(a, [0.1, 0.5, 0.9, 0.99])
    return {"n": int(a.size), "mean": float(a.mean()), "p10": q[0], "p50": q[1], "p90": q[2],
            "p99": q[3], "max": float(a.max()), "cv": float(a.std() / max(a.mean(), 1e-12))}


def simulate(schedule: list, workers: int, root: float, d_node: float) -> float:
    """Makespan of ``schedule`` (per batch: batches merged before its release, task CPU
    times) on ``workers`` workers after a root phase of ``root`` seconds, the driver spending
    ``d_node`` s per node (dispatch + merge), serially."""
    free = np.full(workers, root)
    merged: list[float] = []
    driver = root
    for after, cpus in schedule:
        release = root if after == 0 else merged[after - 1]
        end = release
        for c in cpus:
            w = int(np.argmin(free))
            start = max(free[w], release) + d_node / 2      # dispatch by the driver
            free[w] = start + c
            end = max(end, free[w])
        driver = max(end, driver) + d_node / 2 * len(cpus)  # merge, in order
        merged.append(driver)
    return max(driver, float(free.max()))


def cmd_replay(args: argparse.Namespace) -> list[dict]:
    rows = []
    for b in args.batch:
        t0 = time.perf_counter()
        res = solve(args.method, workers=1, batch=b)
        rows.append({"kind": "replay", "method": args.method, "instance": INSTANCE[args.method],
                     "batch": b, "nodes": res.extra["nodes"], "status": res.status.value,
                     "objective": res.objective, "bound": res.bound, **_replay_fields(res),
                     "wall_s": time.perf_counter() - t0, "load": _load()})
        print(json.dumps({k: v for k, v in rows[-1].items() if k != "schedule"}), flush=True)
    return rows


CHILD = """
import sys
sys.path.insert(0, {bench!r})
from bench_tree_search import solve
solve({method!r}, workers={workers}, checkpoint=sys.argv[1])
"""


def cmd_kill(args: argparse.Namespace) -> dict:
    """Uninterrupted run, then a run killed at ``fraction`` of its time and a rerun."""
    path = Path(args.dir) / f"kill-{args.method}-{args.workers}.ckpt"
    for f in path.parent.glob(path.name + "*"):
        f.unlink()
    code = CHILD.format(bench=str(Path(__file__).parent), method=args.method,
                        workers=args.workers)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")}

    def child(timeout: float | None) -> tuple[float, int | None]:
        t0 = time.perf_counter()
        p = subprocess.Popen([sys.executable, "-c", code, str(path)], env=env)
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.kill(p.pid, signal.SIGKILL)
            p.wait()
        return time.perf_counter() - t0, p.returncode

    load0 = _load()
    full, _ = child(None)
    for f in path.parent.glob(path.name + "*"):
        f.unlink()
    killed_at, code_k = child(args.fraction * full)
    from sparsekm.algorithms.tree import checkpoint

    meta, _, _ = checkpoint.load(path)
    t0 = time.perf_counter()
    res = solve(args.method, workers=args.workers, checkpoint=str(path))
    rerun = time.perf_counter() - t0
    return {"kind": "kill", "method": args.method, "instance": INSTANCE[args.method],
            "workers": args.workers, "uninterrupted_s": full, "killed_after_s": killed_at,
            "returncode": code_k, "nodes_in_checkpoint": meta["nodes_total"],
            "root_done_in_checkpoint": meta["root_done"], "rerun_s": rerun,
            "rerun_over_uninterrupted": rerun / full, "lost_s": killed_at + rerun - full,
            "status": res.status.value, "objective": res.objective, "bound": res.bound,
            "load_before": load0, "load_after": _load()}


def _save(rows: list[dict]) -> None:
    old = json.loads(RESULTS.read_text()) if RESULTS.exists() else []
    RESULTS.write_text(json.dumps(old + rows, indent=1, default=float))


def _model(rep: dict, workers: int, t1: float, d_node: float) -> dict:
    """The model at ``workers`` from a replay; ``d_node``: the driver's CPU per node when it
    ships nodes to processes (measured on 2 workers: pickling and pipes included)."""
    root = rep["root_serial_cpu"] + (rep["root_cpu"] - rep["root_serial_cpu"]) / workers
    busy = d_node * rep["nodes"]          # the driver is one server: it bounds the tree phase
    tw = max(simulate(rep["schedule"], workers, root, d_node), root + busy)
    serial_root = max(simulate(rep["schedule"], workers, rep["root_cpu"], d_node),
                      rep["root_cpu"] + busy)
    tasks = sum(sum(c) for _, c in rep["schedule"])
    driver = d_node * rep["nodes"]
    return {"W": workers, "nodes": rep["nodes"], "T_W": tw, "efficiency": t1 / (workers * tw),
            "efficiency_serial_root": t1 / (workers * serial_root),
            "root_share": root / tw, "driver_share": driver / tw,
            "driver_bound_W": tasks / rep["nodes"] / max(d_node, 1e-9)}


def cmd_report(args: argparse.Namespace) -> None:
    rows = json.loads(RESULTS.read_text())
    L = ["# Tree-search engine: scaling, driver overhead, kill -9 + resume", "",
         f"Report of {time.strftime('%Y-%m-%d')} from `benchmarks/bench_tree_search.py` "
         "(rows in tree_search.json). The machine has 2 cores shared with other jobs: the "
         "load average is given with each wall time, which it inflates (a load of L on 2 "
         "cores gives a process about 2/L of a core). CPU times and the model do not depend "
         "on the load.", ""]
    for m in ("fs-linear", "fs-kernel", "smkl"):
        runs = [r for r in rows if r["method"] == m and r["kind"] == "run"]
        reps = {r["batch"]: r for r in rows if r["method"] == m and (
            r["kind"] == "replay" or (r["kind"] == "run" and r["workers"] == 1
                                      and "schedule" in r))}
        kills = [r for r in rows if r["method"] == m and r["kind"] == "kill"]
        if not (runs or reps or kills):
            continue
        L += [f"## {m} `{METHOD[m]}`: {INSTANCE[m]}", ""]
        if runs:
            L += ["| workers | batch | wall s | load | CPU driver s | CPU workers s | nodes | "
                  "status | objective | bound | root s | driver CPU / node ms | node CPU "
                  "mean / p50 / p90 / max ms |", "|" + "---|" * 14]
            for r in runs:
                q = r["node_cpu"]
                L.append(f"| {r['workers']} | {r['batch']} | {r['wall_s']:.1f} | "
                         f"{r['load_before']}-{r['load_after']} | {r['cpu_driver_s']:.1f} | "
                         f"{r['cpu_workers_s']:.1f} | {r['nodes']} | {r['status']} | "
                         f"{r['objective']:.8g} | {r['bound']:.8g} | {r['root_s']:.1f} | "
                         f"{1e3 * r['driver_cpu_per_node']:.2f} | {1e3 * q['mean']:.1f} / "
                         f"{1e3 * q['p50']:.1f} / {1e3 * q['p90']:.1f} / {1e3 * q['max']:.1f} |")
            L.append("")
        if 1 in reps:
            base = reps[1]
            t1 = base["root_cpu"] + sum(sum(c) for _, c in base["schedule"]) + \
                base["driver_cpu_per_node"] * base["nodes"]
            q1 = _quantiles([c for _, cs in base["schedule"] for c in cs])
            par = [r for r in runs if r["workers"] > 1]
            d_node = par[-1]["driver_cpu_per_node"] if par else base["driver_cpu_per_node"]
            L += [f"Model (CPU seconds, no load): T_1 = {t1:.1f} s serial "
                  f"({base['nodes']} nodes, root phase {base['root_cpu']:.1f} s of which the "
                  f"root relaxation {base['root_serial_cpu']:.2f} s is serial); "
                  f"node CPU s {json.dumps({k: round(v, 4) for k, v in q1.items()})}; "
                  f"driver CPU per node (2 processes) {1e3 * d_node:.2f} ms.",
                  "", "| W = batch | nodes | T_W s | efficiency T_1 / (W T_W) | same, root "
                  "phase serial | root share | driver share | W where the driver saturates |",
                  "|---|---|---|---|---|---|---|---|"]
            for b in sorted(reps):
                if b == 1:
                    continue
                mm = _model(reps[b], b, t1, d_node)
                L.append(f"| {b} | {mm['nodes']} | {mm['T_W']:.2f} | {mm['efficiency']:.2f} | "
                         f"{mm['efficiency_serial_root']:.2f} | "
                         f"{mm['root_share']:.2f} | {mm['driver_share']:.3f} | "
                         f"{mm['driver_bound_W']:.0f} |")
            L.append("")
        for r in kills:
            L.append(f"kill -9 + resume ({r['workers']} worker(s)): uninterrupted "
                     f"{r['uninterrupted_s']:.1f} s; killed after {r['killed_after_s']:.1f} s "
                     f"({r['nodes_in_checkpoint']} nodes in the checkpoint, root phase done: "
                     f"{r['root_done_in_checkpoint']}); rerun {r['rerun_s']:.1f} s = "
                     f"{r['rerun_over_uninterrupted']:.2f} of the uninterrupted time; lost "
                     f"{r['lost_s']:.1f} s; {r['status']}, objective {r['objective']:.8g} "
                     f"(load {r['load_before']}-{r['load_after']}).")
        L.append("")
    (OUT / "tree_search.md").write_text("\n".join(L))
    print("\n".join(L))


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("run", "replay", "kill"):
        s = sub.add_parser(name)
        s.add_argument("method", choices=list(METHOD))
        s.add_argument("--workers", type=int, default=1)
        s.add_argument("--batch", type=int, nargs="*", default=None)
        s.add_argument("--fraction", type=float, default=0.5)
        s.add_argument("--dir", default="/tmp")
    sub.add_parser("report")
    args = ap.parse_args()
    if args.cmd == "report":
        cmd_report(args)
        return
    if args.cmd == "run":
        args.batch = args.batch[0] if args.batch else None
        row = cmd_run(args)
        print(json.dumps(row, default=float), flush=True)
        _save([row])
    elif args.cmd == "replay":
        _save(cmd_replay(args))
    else:
        row = cmd_kill(args)
        print(json.dumps(row, default=float), flush=True)
        _save([row])


if __name__ == "__main__":
    main()
