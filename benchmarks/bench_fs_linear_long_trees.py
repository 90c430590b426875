"""What ten times the work buys ``bnb`` on colorectal, B = 20, C = 1.

The issue's check asks for a gap of at most 3 % within 300 s on 2 workers. The node-bounds
guide measured that the certified bound rises by about 0.004 per doubling of the work; this
benchmark runs the same command for 3600 s (12 times the time, about 14 times the nodes) per
branching rule, so that what a 10x faster node would reach at 300 s is measured, not
extrapolated::

    python benchmarks/bench_fs_linear_long_trees.py --run     # one hour per rule, 2 workers

Each run is the JSON the CLI wrote (``results/fs_linear_node_bounds_colorectal_B20_<rule>_
3600s.json``); a rule whose file exists is not run again. Without ``--run`` the report is
rebuilt from those files: ``results/fs_linear_long_trees.md`` and ``.json`` (the bound at the
trace points nearest 300, 600, 1200, 2400 and 3600 s, the nodes bounded by then, the gap to
the best incumbent any run found, the bound's rise per doubling of the nodes, and the best
support's objective at C = 10: the optimum of (2) can only rise with C, so where the value is
the same a bound at C = 1 also bounds paper D's C = 10 instance).
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

from results_io import OUT, write_results

RULES = ("fractional", "reliability")
SECONDS = (300, 600, 1200, 2400, 3600)
LIMIT = 3600
COMMAND = ["solve", "fs-linear", "--data", "colorectal", "--B", "20", "--C", "1",
           "--method", "bnb", "--workers", "2", "--json"]


def path(rule: str) -> Path:
    return OUT / f"fs_linear_node_bounds_colorectal_B20_{rule}_{LIMIT}s.json"


def run(rule: str) -> None:
    """The CLI's bnb for LIMIT seconds with ``rule``; its JSON written to :func:`path`."""
    exe = Path(sys.executable).with_name("sparsekm")
    cmd = [str(exe), *COMMAND, "--time-limit", str(LIMIT),
           *(["--option", f"branching={rule}"] if rule != "fractional" else [])]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    path(rule).write_text(out)


def at(trace: list[list[float]], second: float) -> list[float]:
    """The trace point (time, bound, incumbent, nodes) nearest ``second``."""
    return min(trace, key=lambda t: abs(t[0] - second))


def rows_of(runs: dict[str, dict]) -> list[dict]:
    best = min(r["objective"] for r in runs.values())
    rows = []
    for rule, r in runs.items():
        trace = r["bound_trace"]
        prev = None
        for s in SECONDS:
            t, bound, inc, nodes = at(trace, s)
            row = {"rule": rule, "seconds": round(t), "nodes": int(nodes), "bound": bound,
                   "incumbent": inc, "gap_to_own": (inc - bound) / inc,
                   "gap_to_best": (best - bound) / best, "rise_per_doubling": None}
            if prev is not None and nodes > prev["nodes"]:
                row["rise_per_doubling"] = (bound - prev["bound"]) / math.log2(
                    nodes / prev["nodes"])
            rows.append(row)
            prev = row
    return rows


def value_at(support: list[int], C: float) -> float:
    """The objective of (2) on colorectal (the CLI's standard scaling), B = 20, at ``C`` on
    ``support``, by the SVM (1) on it."""
    from sparsekm.algorithms.fs_linear.bnb_heuristics import support_value
    from sparsekm.data import Scaler, load_dataset
    from sparsekm.models.fs_linear import FSLinearProblem
    from sparsekm.solvers import SolverPlan

    ds = load_dataset("colorectal")
    X = Scaler("standard").fit(ds.X).transform(ds.X)
    return support_value(FSLinearProblem(X, ds.y, B=20, C=C), SolverPlan(), tuple(support))


def report(runs: dict[str, dict], rows: list[dict]) -> list[str]:
    best_run = min(runs.values(), key=lambda r: r["objective"])
    best = best_run["objective"]
    lines = ["# Ten times the work on colorectal, B = 20, C = 1", "",
             "Produced by `benchmarks/bench_fs_linear_long_trees.py` from the JSON of "
             f"`sparsekm {' '.join(COMMAND)} --time-limit {LIMIT}` per branching rule (the "
             "perspective bound, the default root heuristic). The bound trace's points nearest "
             "each time; gap to the run's own incumbent and to the best incumbent of the runs "
             f"({best:.7f}); the bound's rise per doubling of the nodes since the row above.",
             "", "| rule | s | nodes | certified bound | incumbent | gap | gap to best | "
             "rise per doubling |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        rise = "" if r["rise_per_doubling"] is None else f"{r['rise_per_doubling']:.4f}"
        lines.append(f"| {r['rule']} | {r['seconds']} | {r['nodes']:,} | {r['bound']:.5f} | "
                     f"{r['incumbent']:.6f} | {100 * r['gap_to_own']:.2f} % | "
                     f"{100 * r['gap_to_best']:.2f} % | {rise} |")
    for rule, r in runs.items():
        lines += ["", f"{rule}: {r['nodes']:,} nodes, {r['nodes_per_s']:.0f} per second, "
                  f"{r['closed_nodes']:,} closed, {r['open_nodes']:,} open at the end; node "
                  f"task p50 {1e3 * r['node_time']['p50']:.1f} ms; final support "
                  f"{r['selected']}."]
    at10 = value_at(best_run["selected"], 10.0)
    lines += ["", f"The best support ({best:.10f} at C = 1) has the objective {at10:.10f} at "
              f"C = 10 (relative difference {abs(at10 - best) / best:.1e})."]
    target = 0.97 * best
    lines += ["", f"A 3 % gap to the best incumbent needs a certified bound of {target:.5f}."]
    for rule in runs:
        mine = [x for x in rows if x["rule"] == rule]
        rises = [x["rise_per_doubling"] for x in mine if x["rise_per_doubling"] is not None]
        rise = sum(rises) / len(rises)
        short = target - mine[-1]["bound"]
        more = max(short / rise, 0.0)
        factor = 2 ** more * mine[-1]["nodes"] / mine[0]["nodes"]
        lines.append(f"{rule}: {short:.4f} short at {LIMIT} s; at its mean rise of "
                     f"{rise:.4f} per doubling that is {more:.1f} more doublings, {factor:.0f}x "
                     f"the nodes it bounds in 300 s (an extrapolation).")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", action="store_true", help="run the rules whose JSON is missing")
    args = ap.parse_args()
    for rule in RULES:
        if args.run and not path(rule).exists():
            run(rule)
    runs = {rule: json.loads(path(rule).read_text()) for rule in RULES if path(rule).exists()}
    rows = rows_of(runs)
    write_results("fs_linear_long_trees", report(runs, rows), rows)


if __name__ == "__main__":
    main()
