"""How many features must leave before the perspective bound passes the incumbent?

Paper D's Algorithm 4 bounds with SR-DLMP(K): the perspective relaxation DSCoP (13) with z
binary on a set K. One of its assignments puts every feature of K out, so SR-DLMP(K) can only
reach the optimum if the relaxation *without* K (K = the features the relaxation uses most)
already passes it. This script measures that bound for growing K (the K features of
largest relaxed z at the root), against the best incumbent found by ``bnb``
(benchmarks/results/fs_linear_certify*.json). A small K (mfeat) means short branching
paths; a K of ~100 (microarray sets) means an SR-DLMP(K) with ~100 binaries and a deep tree.

A script, not a config: a probe of one relaxation under growing exclusion sets, against
stored incumbents (no solver method is run as a grid point).

Not part of CI. Usage: PYTHONPATH=src python benchmarks/bench_fs_linear_exclusion.py
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import json  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from bench_fs_linear_certify import problem  # noqa: E402
from results_io import OUT, write_results  # noqa: E402

from sparsekm.relaxations.fs_linear.node import solve_node  # noqa: E402
from sparsekm.solvers import SolverPlan  # noqa: E402

CASES = [("colorectal", 10), ("dlbcl", 10), ("lymphoma", 10), ("mfeat", 10), ("arrhythmia", 10),
         ("colorectal", 30)]
KS = (1, 2, 5, 10, 20, 40, 100)


def best_incumbents() -> dict[tuple[str, int], float]:
    best: dict[tuple[str, int], float] = {}
    for path in OUT.glob("fs_linear_certify*.json"):
        data = json.loads(path.read_text())
        for r in data["runs"] if isinstance(data, dict) else data:
            key = (r["dataset"], r["B"])
            if r.get("objective") is not None:
                best[key] = min(best.get(key, np.inf), r["objective"])
    return best


def main() -> None:
    ub = best_incumbents()
    rows = []
    for name, B in CASES:
        p = problem(name, B)
        root = solve_node(p, SolverPlan(), np.zeros(0, int), np.arange(p.n), B)
        z = np.zeros(p.n)
        z[root.W] = root.v
        order = np.argsort(-(z + 1e-12 * root.s2), kind="stable")
        bounds = []
        for K in KS:
            free = np.setdiff1d(np.arange(p.n), order[:K])
            nb = solve_node(p, SolverPlan(), np.zeros(0, int), free, B,
                            warm=(root.W, root.alpha))
            bounds.append(nb.bound)
        rows.append({"dataset": name, "B": B, "root": root.bound, "K": list(KS),
                     "bound_without_K": bounds, "incumbent": ub.get((name, B))})
        print(json.dumps(rows[-1]), flush=True)
    L = ["# Perspective bound with the K most-used features excluded", "",
         f"Run {time.strftime('%Y-%m-%d')} by `benchmarks/bench_fs_linear_exclusion.py`. "
         "Root DSCoP (13) bound, then the bound of the node that puts the K features of "
         "largest relaxed z out (certified, standard scaling, C = 10), beside the best "
         "incumbent of `benchmarks/results/fs_linear_certify*.json`. **Bold**: the bound "
         "passes the incumbent (that node would be pruned).", "",
         "| data | B | incumbent | root | " + " | ".join(f"K = {K}" for K in KS) + " |",
         "|---|---|---|---|" + "---|" * len(KS)]
    for r in rows:
        inc = r["incumbent"]
        cells = [f"**{b:.4g}**" if inc is not None and b >= inc else f"{b:.4g}"
                 for b in r["bound_without_K"]]
        L.append(f"| {r['dataset']} | {r['B']} | {'-' if inc is None else f'{inc:.4g}'} | "
                 f"{r['root']:.4g} | " + " | ".join(cells) + " |")
    write_results("fs_linear_exclusion", L, rows)


if __name__ == "__main__":
    main()
