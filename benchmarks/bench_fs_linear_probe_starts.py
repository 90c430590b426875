"""Children warm-started from their strong-branching probes, against the parent's multipliers.

A strong-branching node probes each candidate child a few pivots from its own final state;
the two children of the feature it branches on start their own solves from where their
probes ended (``sol.info["starts"]``). This runs the default serial ``bnb`` on colorectal
(B = 20, C = 1) for ``--seconds`` of time limit with that warm start and without it (the
parent's multipliers, as before: the starts are dropped from each probe's result, an
ablation done by wrapping the form's ``probe``), the two interleaved ``--repeat`` times in
one process, and writes ``results/fs_linear_probe_starts.md`` and ``.json``: nodes, CPU,
nodes per CPU second, the node solves' pivots per node and the probes' pivots per node.
Run it alone on the machine::

    python benchmarks/bench_fs_linear_probe_starts.py --seconds 60 --repeat 2
"""

from __future__ import annotations

import argparse
import os
import time

from results_io import write_results

from sparsekm.algorithms.fs_linear import solve_fs_linear
from sparsekm.data import Scaler, load_dataset
from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.relaxations.fs_linear import node_active
from sparsekm.solvers import SolverPlan

PROBE = node_active.ActiveSetNode.probe


def _parents_multipliers(self, problem, plan, sol, task, cands, rounds):  # noqa: ANN001, ANN202
    """The form's probe, its children's starts dropped (children start from the parent's)."""
    out = PROBE(self, problem, plan, sol, task, cands, rounds)
    sol.info.pop("starts", None)
    return out


def run(seconds: float, repeat: int) -> list[dict]:
    ds = load_dataset("colorectal")
    X = Scaler("standard").fit(ds.X).transform(ds.X)
    p = FSLinearProblem(X, ds.y.astype(float), B=20, C=1.0)
    solve_fs_linear(p, "bnb", SolverPlan(time_limit=5))          # compiled code loaded
    rows = []
    for r in range(repeat):
        for variant in ("probe starts", "parent's multipliers"):
            node_active.ActiveSetNode.probe = PROBE if variant == "probe starts" \
                else _parents_multipliers
            load, c0 = os.getloadavg()[0], time.process_time()
            res = solve_fs_linear(p, "bnb", SolverPlan(time_limit=seconds))
            cpu = time.process_time() - c0
            ex = res.extra
            rows.append({"repeat": r, "variant": variant, "load": round(load, 2),
                         "cpu_s": cpu, "nodes": ex["nodes"], "gap": res.gap,
                         "bound": res.bound, "pivots": ex.get("pivots", 0),
                         "probe_pivots": ex.get("probe_pivots", 0)})
    node_active.ActiveSetNode.probe = PROBE
    return rows


def report(rows: list[dict], seconds: float) -> list[str]:
    lines = ["# Children warm-started from their probes (colorectal B = 20, C = 1)", "",
             "Produced by `benchmarks/bench_fs_linear_probe_starts.py`: the default serial "
             f"`bnb`, {seconds:.0f} s time limit per run, the two variants interleaved in one "
             "process.", "",
             "| run | children start from | load | CPU s | nodes | nodes per CPU s | node "
             "pivots per node | probe pivots per node | probes' share of the pivots | gap |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        n = max(r["nodes"], 1)
        share = r["probe_pivots"] / max(r["pivots"] + r["probe_pivots"], 1)
        lines.append(f"| {r['repeat'] + 1} | {r['variant']} | {r['load']} | {r['cpu_s']:.1f} | "
                     f"{r['nodes']:,} | {r['nodes'] / r['cpu_s']:.0f} | "
                     f"{r['pivots'] / n:.1f} | {r['probe_pivots'] / n:.1f} | "
                     f"{100 * share:.0f} % | {100 * r['gap']:.2f} % |")
    return lines + [""]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    rows = run(args.seconds, args.repeat)
    write_results("fs_linear_probe_starts", report(rows, args.seconds),
                  {"seconds": args.seconds, "runs": rows})


if __name__ == "__main__":
    main()
