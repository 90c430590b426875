"""Where a replayed node's CPU goes in the active-set engine: a fixed part and a cost per pivot.

The replay (``bench_fs_linear_node_replay.py``) gives the engine's CPU per node on 2,100
recorded colorectal B = 20 nodes. This splits that figure, on every 7th of those nodes (300),
in one process, each figure the best of ``--repeat`` passes timed by ``time.process_time``:

* the node form's solve (``ActiveSetNode.solve``: Python around the engine included);
* the engine alone (``node_active_set``, the form's options), and the engine stopped after 0
  pivots (set-up, the final pricing pass and certificate, the next working set); the
  difference over the mean pivots is the marginal cost of a pivot;
* the interior point's CPU per node from the replay's summary (the 10x goal's yardstick);
* the pieces of the fixed part, called alone on the first node: a pass over all free
  features (``full_pass``), the certificate g (``certificate``) and the working-set
  selection (``next_working_set``), both from the engine's guess at their k-th largest |s|
  (``floor_guess`` of its state at the start set), and the call itself (the engine on a
  10 x 12 problem, 0 pivots).

Writes ``results/fs_linear_node_cost.md`` and ``.json``. Run it alone on the machine::

    python benchmarks/bench_fs_linear_node_cost.py --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
from bench_fs_linear_node_replay import _start_set, load_nodes, problem
from results_io import OUT, write_results

from sparsekm.engines.node_active import node_active_set
from sparsekm.engines.node_active.loop import floor_guess
from sparsekm.engines.node_active.partition import certificate, full_pass
from sparsekm.engines.node_active.solve import next_working_set
from sparsekm.engines.node_active.state import unpack
from sparsekm.relaxations.fs_linear.node_active import OMEGA, ActiveSetNode, scaled_rows
from sparsekm.relaxations.fs_linear.node_form import NodeTask
from sparsekm.solvers import SolverPlan


def _best_per_item(fn, items: list, repeat: int) -> float:
    """Best of ``repeat`` passes over ``items``, CPU seconds per item."""
    best = np.inf
    for _ in range(repeat):
        c0 = time.process_time()
        for it in items:
            fn(it)
        best = min(best, time.process_time() - c0)
    return best / len(items)


def _per_call(fn, calls: int) -> float:
    c0 = time.process_time()
    for _ in range(calls):
        fn()
    return (time.process_time() - c0) / calls


def measure(repeat: int) -> dict:
    p = problem()
    Qt = scaled_rows(p)
    nodes = load_nodes(p.n)[::7][:300]
    form, plan = ActiveSetNode(), SolverPlan()
    tasks = [NodeTask(nd["F1"], nd["free"], nd["k"], cutoff=nd["cutoff"],
                      W0=_start_set(Qt, nd), alpha0=nd["alpha"]) for nd in nodes]
    args = [((np.asarray(t.F1, np.int64), np.asarray(t.free, np.int64), int(t.k)),
             (np.asarray(t.alpha0, float), np.asarray(t.W0, np.int64)), float(t.cutoff),
             int(t.extra)) for t in tasks]
    for t in tasks[:3]:                         # load the compiled code before timing
        form.solve(p, plan, t)

    def engine(pivots: int):
        return lambda a: node_active_set(Qt, p.y, float(p.C), a[0], a[1],
                                         (a[2], pivots, OMEGA, a[3]))

    sols = [form.solve(p, plan, t) for t in tasks]
    out = {"nodes": len(tasks), "repeat": repeat,
           "pivots": float(np.mean([s.info["pivots"] for s in sols])),
           "pricing": float(np.mean([s.info["pricing"] for s in sols])),
           "form_ms": 1e3 * _best_per_item(lambda t: form.solve(p, plan, t), tasks, repeat),
           "engine_ms": 1e3 * _best_per_item(engine(100), args, repeat),
           "engine_0_ms": 1e3 * _best_per_item(engine(0), args, repeat)}
    out["per_pivot_us"] = 1e3 * (out["engine_ms"] - out["engine_0_ms"]) / out["pivots"]
    (F1, free, k), (a, W0), _, extra = args[0]
    state = unpack(engine(0)(args[0])[9])            # the engine's guesses at its start set
    floor, floor_x = floor_guess(state, k), floor_guess(state, k + extra)
    s = np.empty(free.size)
    full_pass(Qt, free, a, s)
    out["full_pass_us"] = 1e6 * _per_call(lambda: full_pass(Qt, free, a, s), 3000)
    out["certificate_us"] = 1e6 * _per_call(lambda: certificate(Qt, F1, a, s, k, floor), 3000)
    out["near_us"] = 1e6 * _per_call(lambda: next_working_set(free, s, k, OMEGA,
                                                              (extra, floor_x)), 3000)
    rng = np.random.default_rng(0)
    Qs = np.ascontiguousarray(rng.normal(size=(12, 10)))
    ys = np.where(np.arange(10) % 2, 1.0, -1.0)
    tiny = ((np.array([0], np.int64), np.arange(1, 12, dtype=np.int64), 3),
            (np.full(10, 0.5), np.arange(1, 7, dtype=np.int64)))
    out["call_us"] = 1e6 * _per_call(lambda: node_active_set(
        Qs, ys, 1.0, tiny[0], tiny[1], (np.inf, 0, OMEGA, 30)), 20000)
    out["load_1min"] = os.getloadavg()[0]
    out["ipm_ms"] = _ipm_ms()
    return out


def _ipm_ms() -> float:
    """The interior point's mean CPU per node over the replay (its summary file)."""
    rows = json.loads((OUT / "fs_linear_node_replay_summary.json").read_text())
    return next(r["cpu_mean_ms"] for r in rows
                if r["phase"] == "all" and r["form"] == "perspective")


def report(r: dict) -> list[str]:
    fixed = r["engine_0_ms"] * 1e3
    around = (r["form_ms"] - r["engine_ms"]) * 1e3   # us: the form's Python, its chunks
    goal = 100.0 * r["ipm_ms"]                  # us: a tenth of the interior point's CPU
    return [
        "# Where a node's CPU goes: the active-set engine on replayed colorectal nodes", "",
        "Produced by `benchmarks/bench_fs_linear_node_cost.py` (every 7th of the 2,100 "
        f"recorded colorectal B = 20 nodes: {r['nodes']}; best of {r['repeat']} passes, "
        "`time.process_time`, one process; 1-minute load average "
        f"{r['load_1min']:.1f} on 2 cores).", "",
        "| figure | value |", "|---|---|",
        f"| node form's solve, CPU per node | {r['form_ms']:.3f} ms |",
        f"| engine alone | {r['engine_ms']:.3f} ms |",
        f"| engine stopped after 0 pivots (the fixed part) | {fixed:.1f} us |",
        f"| pivots per node (mean) | {r['pivots']:.1f} |",
        f"| pricing passes per node (mean) | {r['pricing']:.2f} |",
        f"| marginal CPU per pivot | {r['per_pivot_us']:.1f} us |",
        f"| one pass over the free features (`full_pass`) | {r['full_pass_us']:.1f} us |",
        f"| the certificate g (`certificate`) | {r['certificate_us']:.1f} us |",
        f"| the next working set (`next_working_set`) | {r['near_us']:.1f} us |",
        f"| the call itself (10 x 12 problem, 0 pivots) | {r['call_us']:.1f} us |", "",
        f"The engine's CPU is {fixed:.0f} us fixed plus {r['pivots']:.1f} pivots of "
        f"{r['per_pivot_us']:.1f} us (the pricing passes inside them); the form around it "
        f"adds {around:.0f} us. A node at a tenth of the interior point's {r['ipm_ms']:.3f} ms "
        f"(the replay's goal) needs {goal:.0f} us of the form: at today's pivot count, "
        f"pivots of about {max(0.0, (goal - fixed - around) / r['pivots']):.1f} us; at "
        f"today's pivot cost, {max(0.0, (goal - fixed - around) / r['per_pivot_us']):.0f} "
        "pivots."]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    r = measure(ap.parse_args().repeat)
    write_results("fs_linear_node_cost", report(r), r)
    print("\n".join(report(r)))


if __name__ == "__main__":
    main()
