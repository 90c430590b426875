"""Node bounds of ``bnb`` with all samples vs a shrunk working set of samples (m > 250).

For each data set: the root perspective bound (all samples), then a few nodes (the best
features fixed in / out), each solved twice in the same process: without the parent's
multipliers (every sample in the SOCP: the code before row generation) and with them (the
SOCP starts from the parent's support vectors; margin violators enter). Both bounds are
certified at a feasible alpha; the table shows that they agree and the time ratio.

A script, not a config: node bounds inside bnb, timed in one process (a micro-benchmark).

Not part of CI. Usage: PYTHONPATH=src python benchmarks/bench_fs_linear_shrink.py
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import json  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from bench_fs_linear_certify import problem  # noqa: E402
from results_io import write_results  # noqa: E402

from sparsekm.relaxations.fs_linear.node import solve_node  # noqa: E402
from sparsekm.solvers import SolverPlan  # noqa: E402

CASES = [("arrhythmia", 10), ("mfeat", 10), ("mfeat", 30), ("madelon", 10)]


def nodes(order: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """(F1, excluded) for five nodes near the root."""
    o = [int(j) for j in order[:6]]
    return [(np.array(o[:1]), np.zeros(0, int)), (np.zeros(0, int), np.array(o[:1])),
            (np.array(o[:2]), np.array(o[2:4])), (np.array(o[1:2]), np.array(o[:1])),
            (np.array(o[:3]), np.array(o[3:6]))]


def main() -> None:
    rows = []
    for name, B in CASES:
        p = problem(name, B)
        t0 = time.perf_counter()
        root = solve_node(p, SolverPlan(), np.zeros(0, int), np.arange(p.n), B)
        t_root = time.perf_counter() - t0
        for F1, out in nodes(np.argsort(-root.s2)):
            free = np.setdiff1d(np.arange(p.n), np.concatenate([F1, out]))
            k = B - F1.size
            t0 = time.perf_counter()
            full = solve_node(p, SolverPlan(), F1, free, k, warm=(root.W, None))
            t_full = time.perf_counter() - t0
            t0 = time.perf_counter()
            shr = solve_node(p, SolverPlan(), F1, free, k, warm=(root.W, root.alpha))
            t_shr = time.perf_counter() - t0
            rows.append({"dataset": name, "m": p.m, "n": p.n, "B": B, "root_s": t_root,
                         "F1": F1.tolist(), "out": out.tolist(), "full": full.bound,
                         "shrunk": shr.bound, "full_s": t_full, "shrunk_s": t_shr,
                         "full_socps": full.solves, "shrunk_socps": shr.solves})
            print(json.dumps(rows[-1]), flush=True)
    L = ["# `bnb` node bounds: all samples vs a shrunk working set (row generation)", "",
         f"Run {time.strftime('%Y-%m-%d')} by `benchmarks/bench_fs_linear_shrink.py` on the "
         "shared 2-core machine (other jobs running), one BLAS thread, Clarabel on the node "
         "SOCPs, standard scaling, C = 10. Same process, same nodes: `full` = every sample "
         "in the SOCP (the code before this change), `shrunk` = the parent's support vectors "
         "plus margin violators. Bounds are certified at a feasible alpha.", "",
         "| data | m | B | F1 in | out | full bound | shrunk bound | full s (SOCPs) | "
         "shrunk s (SOCPs) | speed-up |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        L.append(f"| {r['dataset']} | {r['m']} | {r['B']} | {r['F1']} | {r['out']} | "
                 f"{r['full']:.8g} | {r['shrunk']:.8g} | {r['full_s']:.2f} "
                 f"({r['full_socps']}) | {r['shrunk_s']:.2f} ({r['shrunk_socps']}) | "
                 f"{r['full_s'] / r['shrunk_s']:.1f}x |")
    tf, ts = sum(r["full_s"] for r in rows), sum(r["shrunk_s"] for r in rows)
    worst = max(abs(r["shrunk"] - r["full"]) / abs(r["full"]) for r in rows)
    L += ["", f"Total {tf:.1f} s vs {ts:.1f} s ({tf / ts:.1f}x); largest relative bound "
          f"difference {worst:.1e}."]
    write_results("fs_linear_shrink", L, rows)


if __name__ == "__main__":
    main()
