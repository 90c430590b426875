"""Where a serial ``bnb`` tree's CPU goes: colorectal B = 20, C = 1, the default options.

One process, one worker (the nodes run in the profiled process), under cProfile for
``--seconds`` (default 120) of time limit; it writes ``results/fs_linear_node_profile.md``
and ``.json``: the CPU of the run, the nodes, and the cumulative CPU of each part of a node
(the node's own solve, strong branching's probes, the fixing rule, the pairwise cuts and
children, the incumbent heuristics) and of the root phase, as shares of the run's CPU;
then the nodes per second in each quarter of the tree phase (from the bound trace: a serial
run's wall is its CPU, so a falling rate is a node that costs more). cProfile adds its own
overhead to every Python call (not to the compiled engine), so the shares, not the absolute
times, are what this measures. Run it alone on the machine::

    python benchmarks/bench_fs_linear_node_profile.py --seconds 120
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import time

from results_io import write_results

from sparsekm.algorithms.fs_linear import solve_fs_linear
from sparsekm.data import Scaler, load_dataset
from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.solvers import SolverPlan

PARTS = {   # part -> (file the function is defined in, function name)
    "node solve (active-set engine)": ("relaxations/fs_linear/node_active.py", "solve"),
    "strong branching (probes)": ("algorithms/fs_linear/bnb_branching.py", "strong_branch"),
    "fixing rule": ("algorithms/fs_linear/bnb_rules.py", "screen"),
    "pairwise cuts and children": ("algorithms/fs_linear/bnb.py", "_children"),
    "incumbent heuristics": ("algorithms/fs_linear/bnb_heuristics.py", "offer"),
    "all of the node's processing": ("algorithms/fs_linear/bnb.py", "process"),
    "root phase": ("algorithms/fs_linear/bnb.py", "root"),
}


def profile(seconds: float) -> dict:
    """The profiled run and its CPU by part."""
    ds = load_dataset("colorectal")
    X = Scaler("standard").fit(ds.X).transform(ds.X)
    p = FSLinearProblem(X, ds.y.astype(float), B=20, C=1.0)
    solve_fs_linear(p, "bnb", SolverPlan(time_limit=5))          # compiled code loaded
    load = os.getloadavg()[0]
    prof = cProfile.Profile()
    cpu0 = time.process_time()
    prof.enable()
    res = solve_fs_linear(p, "bnb", SolverPlan(time_limit=seconds))
    prof.disable()
    cpu = time.process_time() - cpu0
    cumulative = {part: 0.0 for part in PARTS}
    for (file, _, name), (_, _, _, ct, _) in pstats.Stats(prof).stats.items():
        for part, (where, fn) in PARTS.items():
            if name == fn and file.replace(os.sep, "/").endswith(where):
                cumulative[part] += ct
    ex = res.extra
    trace = ex["bound_trace"]
    t0 = float(ex.get("root_s") or 0.0)
    quarters = []
    span = (trace[-1][0] - t0) / 4
    for q in range(4):
        lo, hi = t0 + q * span, t0 + (q + 1) * span
        inside = [r for r in trace if lo <= r[0] <= hi]
        if len(inside) >= 2:
            dt = inside[-1][0] - inside[0][0]
            quarters.append({"from_s": lo, "to_s": hi,
                             "nodes_per_s": (inside[-1][3] - inside[0][3]) / dt if dt else None,
                             "bound": inside[-1][1]})
    return {"seconds": seconds, "cpu_s": cpu, "load": round(load, 2), "nodes": ex["nodes"],
            "deferred": ex.get("deferred", 0), "gap": res.gap, "bound": res.bound,
            "objective": res.objective, "parts_s": cumulative, "quarters": quarters}


def report(d: dict) -> list[str]:
    lines = ["# Where a serial bnb tree's CPU goes (colorectal B = 20, C = 1)", "",
             "Produced by `benchmarks/bench_fs_linear_node_profile.py`: the default `bnb`, one "
             f"process, {d['seconds']:.0f} s time limit, under cProfile (load {d['load']} at the "
             f"start). CPU {d['cpu_s']:.1f} s, {d['nodes']:,} nodes ({d['deferred']:,} sent back "
             f"unbranched), {1e3 * d['cpu_s'] / max(d['nodes'], 1):.2f} ms of CPU per node "
             f"with cProfile's overhead; certified gap {100 * d['gap']:.2f} %.", "",
             "Parts are cumulative (a part's time includes what it calls; the node's "
             "processing includes the five parts above it).", "",
             "| part | CPU s | share of the run |", "|---|---|---|"]
    for part, s in d["parts_s"].items():
        lines.append(f"| {part} | {s:.1f} | {100 * s / d['cpu_s']:.0f} % |")
    lines += ["", "Nodes per second in each quarter of the tree phase (serial: the inverse of "
              "a node's CPU):", "", "| from s | to s | nodes/s | bound at the end |",
              "|---|---|---|---|"]
    for q in d["quarters"]:
        rate = "-" if q["nodes_per_s"] is None else f"{q['nodes_per_s']:.0f}"
        lines.append(f"| {q['from_s']:.0f} | {q['to_s']:.0f} | {rate} | {q['bound']:.6f} |")
    return lines + [""]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=120.0)
    d = profile(ap.parse_args().seconds)
    write_results("fs_linear_node_profile", report(d), d)


if __name__ == "__main__":
    main()
