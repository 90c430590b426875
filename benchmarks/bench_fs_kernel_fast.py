"""Paper A's local searches, fast path vs plain path (issue 13), one process, same starts.

For each dataset and kernel: LS (Algorithm 1) and LS* (Algorithm 2) from the same seeded random
masks with ``fast=False`` (the plain path: every visited mask solved by libsvm, tol 1e-5) and
``fast=True`` (certified intervals from the centre's alpha, warm-started SMO with a decide
stop, libsvm only where the plain decision needs it) on every core and on one thread. Wall
times, ratios plain / fast, whether masks and objectives are identical, and the fraction of
visited masks settled without a libsvm solve (``1 - exact solves / masks visited``).

Usage: PYTHONPATH=src python benchmarks/bench_fs_kernel_fast.py [--quick] [--starts K]
       [--repeats R] [--datasets a,b] [--name fs_kernel_fast_largest]
Writes benchmarks/results/fs_kernel_fast.md and .json (or ``--name``); with ``--repeats R``
every time is the best of R runs (a shared machine's noise only ever adds time).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np

from sparsekm.algorithms.fs_kernel.local_search import local_search, ls_star
from sparsekm.data import Scaler, load_dataset
from sparsekm.models.fs_kernel import FSKernelProblem, random_masks
from sparsekm.solvers import SolverPlan

RESULTS = Path(__file__).parent / "results"
DATASETS = {"sonar": 15, "ionosphere": 10, "breast_cancer_diagnostic": 10, "cleveland": 6}
KERNELS = {"poly d=2": {"kernel": "poly", "degree": 2, "gamma": 0.1},
           "poly d=3": {"kernel": "poly", "degree": 3, "gamma": 0.1},
           "rbf": {"kernel": "rbf", "gamma": 0.05}}
LS_STAR = {"n_samples": 100, "opt_window": 2}


REPEATS = [1]  # set by --repeats


def timed(fun, p: FSKernelProblem, beta0: np.ndarray, seed: int, **kw: Any
          ) -> tuple[float, Any]:
    """Best wall time of ``REPEATS[0]`` runs (same start, same seed) and the last result."""
    best = float("inf")
    for _ in range(REPEATS[0]):
        t0 = time.perf_counter()
        res = fun(p, SolverPlan(), beta_in=beta0.copy(), seed=seed, **kw)
        best = min(best, time.perf_counter() - t0)
    return best, res


def one(name: str, B: int, kname: str, kpar: dict, starts: int, rows: int | None) -> list[dict]:
    ds = load_dataset(name)
    X = Scaler("standard").fit(ds.X).transform(ds.X)
    X, y = (X, ds.y) if rows is None else (X[:rows], ds.y[:rows])
    p = FSKernelProblem(X, y, B=B, C=10.0, sense="margin", **kpar)
    out = []
    for algo, fun, kw in (("LS", local_search, {}), ("LS*", ls_star, LS_STAR)):
        for k, beta0 in enumerate(random_masks(p.n, p.B, starts, 100)):
            t_plain, plain = timed(fun, p, beta0, k, fast=False, **kw)
            t_fast, fast = timed(fun, p, beta0, k, fast=True, **kw)
            t_one, one_t = timed(fun, p, beta0, k, fast=True, threads=1, **kw)
            same = (plain.selected == fast.selected == one_t.selected
                    and plain.objective == fast.objective == one_t.objective)
            visited = plain.extra["n_evals"]
            row = {"dataset": name, "m": p.m, "n": p.n, "B": B, "kernel": kname, "algo": algo,
                   "start": k, "plain_s": t_plain, "fast_s": t_fast, "fast1_s": t_one,
                   "ratio": t_plain / t_fast, "ratio1": t_plain / t_one, "identical": same,
                   "visited": visited, "exact_solves": fast.extra.get("exact_solves", 0),
                   "smo_runs": fast.extra.get("smo_runs", 0),
                   "decided": 1.0 - fast.extra.get("exact_solves", 0) / max(visited, 1),
                   "objective": plain.objective}
            out.append(row)
            print(f"{name:26s} {kname:8s} {algo:3s} start {k}: plain {t_plain:7.2f}s fast "
                  f"{t_fast:6.2f}s ({row['ratio']:5.1f}x; 1 thread {row['ratio1']:5.1f}x) "
                  f"decided {100 * row['decided']:5.1f}% identical {same}", flush=True)
    return out


def table(rows: list[dict]) -> list[str]:
    lines = ["| dataset | m x n | B | kernel | algo | plain s | fast s (2 thr) | ratio | "
             "fast s (1 thr) | ratio | visited | libsvm solves | decided w/o solve | "
             "identical |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    keys = sorted({(r["dataset"], r["kernel"], r["algo"]) for r in rows},
                  key=lambda t: (list(DATASETS).index(t[0]), list(KERNELS).index(t[1]), t[2]))
    for ds, kn, algo in keys:
        g = [r for r in rows if (r["dataset"], r["kernel"], r["algo"]) == (ds, kn, algo)]
        tp, tf, t1 = (sum(r[c] for r in g) for c in ("plain_s", "fast_s", "fast1_s"))
        vis, ex = sum(r["visited"] for r in g), sum(r["exact_solves"] for r in g)
        lines.append(f"| {ds} | {g[0]['m']} x {g[0]['n']} | {g[0]['B']} | {kn} | {algo} | "
                     f"{tp:.2f} | {tf:.2f} | {tp / tf:.1f}x | {t1:.2f} | {tp / t1:.1f}x | "
                     f"{vis} | {ex} | {100 * (1 - ex / max(vis, 1)):.1f}% | "
                     f"{'yes' if all(r['identical'] for r in g) else 'NO'} |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="cleveland only, 1 start")
    ap.add_argument("--starts", type=int, default=1)
    ap.add_argument("--rows", type=int, default=None)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--name", default="fs_kernel_fast")
    args = ap.parse_args()
    REPEATS[0] = max(1, args.repeats)
    names = ["cleveland"] if args.quick else args.datasets.split(",")
    # compile the numba kernels outside the timings
    one("cleveland", 4, "poly d=2", KERNELS["poly d=2"], 1, 60)
    t0 = time.perf_counter()
    rows = [r for nm in names for kn, kp in KERNELS.items()
            for r in one(nm, DATASETS[nm], kn, kp, args.starts, args.rows)]
    total = time.perf_counter() - t0
    load = os.getloadavg()
    lines = ["# Paper A local search: fast path vs plain path (issue 13)", "",
             f"`benchmarks/bench_fs_kernel_fast.py`, one process, {os.cpu_count()} cores "
             f"({platform.processor() or platform.machine()}), load average at the end "
             f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (the machine is shared with other "
             "sessions: absolute times are noisy, ratios are measured back to back on the same "
             "starts). Margin sense, C = 10, standardised features, all rows; LS* with "
             f"#Samples = {LS_STAR['n_samples']}, OptWindow = {LS_STAR['opt_window']}; "
             f"{args.starts} seeded random start(s) per row (seeds of `random_masks(n, B, "
             f"starts, 100)`); each time the best of {REPEATS[0]} run(s). Total {total:.0f} s.", "",
             "*plain*: every visited mask solved by libsvm (tol 1e-5). *fast*: certified "
             "intervals from the centre's alpha, warm-started SMO stopped by its bounds, "
             "libsvm only where the plain decision needs an exact value; *2 thr* = both cores, "
             "*1 thr* = `threads=1`. *decided w/o solve* = 1 - libsvm solves / masks visited by "
             "the plain path. *identical*: same mask and bit-identical objective for plain, "
             "fast (2 threads) and fast (1 thread).", "", *table(rows), ""]
    out = RESULTS / args.name
    out.with_suffix(".md").write_text("\n".join(lines))
    out.with_suffix(".json").write_text(json.dumps({"rows": rows, "total_s": total,
                                                    "repeats": REPEATS[0], "ls_star": LS_STAR},
                                                   indent=1))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
