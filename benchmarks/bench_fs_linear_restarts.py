"""Could `fast` stop its restarts early? The last improving restart of each fit.

On the 45 per-fit problems of the peers protocol (``bench_fs_linear_peers.fits``: colorectal,
lymphoma, dlbcl x 5 folds x B = 5, 10, 20; C = 1), run ``fast``'s iterated search step by
step (the swap search from the top B, then 20 perturbed restarts with its seed and
perturbation, no polish) and record the index of the last restart that lowered the
objective. If it were small on every fit, an adaptive stop would save CPU without a worse
objective. Not part of CI. Usage (repository root, project venv):

    python benchmarks/bench_fs_linear_restarts.py

Writes benchmarks/results/fs_linear_restarts.md / .json.
"""

from __future__ import annotations

import numpy as np
from bench_fs_linear_peers import fits
from results_io import write_results

from sparsekm.algorithms.fs_linear import fast
from sparsekm.algorithms.fs_linear.swap import SearchMemo, swap_search
from sparsekm.solvers import SolverPlan

RESTARTS = 20


def last_improvement(problem) -> tuple[int, list[float]]:
    """(index of the last improving restart, 0 if none; best objective after each step)."""
    plan, memo = SolverPlan().start(), SearchMemo()
    best = swap_search(problem, plan, None, None, memo)
    rng = np.random.default_rng(0)            # fast's default seed
    last, trace = 0, [best.objective]
    for i in range(1, RESTARTS + 1):
        r = swap_search(problem, plan, fast._perturbed(problem, best, 0.25, rng), None, memo)
        if r.objective < best.objective:
            best, last = r, i
        trace.append(best.objective)
    return last, trace


def main() -> None:
    fast.warm_up()
    rows = []
    for key, _, B, p in fits():
        last, trace = last_improvement(p)
        rows.append({"fit": key, "B": B, "last_improving_restart": last,
                     "gain_after_10": (trace[10] - trace[-1]) / trace[10]})
    lasts = np.array([r["last_improving_restart"] for r in rows])
    hist = np.bincount(lasts, minlength=RESTARTS + 1)
    late = [r for r in rows if r["last_improving_restart"] > 10]
    gains = [100 * r["gain_after_10"] for r in late] or [0.0]
    lines = ["<!-- bench_fs_linear_restarts.py: the last improving restart of `fast` on the 45 "
             "per-fit problems of the peers protocol (C = 1). -->", "",
             "| last improving restart | " + " | ".join(str(i) for i in range(RESTARTS + 1))
             + " |", "|---" * (RESTARTS + 2) + "|",
             "| fits | " + " | ".join(str(int(h)) for h in hist) + " |", "",
             f"Fits still improving after restart 10: {len(late)} of {len(rows)}; their "
             f"objective fell by a median {np.median(gains):.2f} % (largest {max(gains):.2f} %)"
             " in restarts 11-20."]
    write_results("fs_linear_restarts", lines, rows)


if __name__ == "__main__":
    main()
