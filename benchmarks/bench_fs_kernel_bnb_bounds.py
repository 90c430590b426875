"""Paper A, certified masks: what limits ``bnb`` on the Tables 2-6 instances (both senses).

For each instance of ``configs/paperA_bnb.toml`` at m = 10 and 50 (the same seeded stratified
rows, standard scaling, C = 10, gamma = 0.1, c = 1, B = floor(n/2)), polynomial degree 2 and
the Gaussian kernel, both senses:

* the best mask known (LS*, 4 seeded starts, as the ``bnb`` root);
* the node bound's reach: over random nodes with ``k`` features decided (the in-count drawn
  as in a balanced tree), the share of nodes whose certified bound (``NodeBounds.node``: the
  superset / subset / box corner of ``kernel_bounds``) already excludes a better mask, and the
  median node size, for k = 0, n/4, n/2, 3n/4;
* the scan's cost: CPU microseconds per mask deciding 20,000 masks of the root against that
  incumbent (one thread), and the CPU time a scan of every mask would take;
* for degree 2, the eigenvalues of the Hessian ``gamma^2 A o A`` of ``f(alpha, .)`` at the
  best mask's alpha (Section 2.2: a convex quadratic in beta would need them >= 0).

A script, not a config: it measures bounds on sampled nodes, not runs of a method.

Usage: PYTHONPATH=src python benchmarks/bench_fs_kernel_bnb_bounds.py [--nodes 12]
Writes benchmarks/results/fs_kernel_bnb_bounds.md and .json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from pathlib import Path

import numpy as np

from sparsekm.algorithms.fs_kernel.evaluator import alpha_subproblem
from sparsekm.algorithms.fs_kernel.kernel_bounds import NodeBounds
from sparsekm.algorithms.fs_kernel.local_search import ls_star
from sparsekm.algorithms.fs_kernel.mask_scan import (
    BUDGET,
    CANDIDATE,
    DONE,
    POLY,
    RBF,
    next_combination,
    scan_masks,
)
from sparsekm.algorithms.fs_kernel.node_bound import quad_terms
from sparsekm.data import train_test_split
from sparsekm.kernels import kernel_matrix
from sparsekm.models.fs_kernel import FSKernelProblem, random_masks
from sparsekm.run.data import load_data, scale_fit_transform
from sparsekm.run.options import RunOptions
from sparsekm.solvers import SolverPlan

HERE = Path(__file__).parent
OUT = HERE / "results" / "fs_kernel_bnb_bounds"
DATA = ["cleveland", "breast_cancer_diagnostic", "data/ionosphere33.csv", "sonar"]
SCAN = 20_000


def instance(data: str, m: int, kernel: str, sense: str) -> FSKernelProblem:
    """The config's instance: a seeded stratified sample of m rows, scaled on them."""
    path = str(HERE / "configs" / data) if data.startswith("data/") else data
    ds = load_data(RunOptions(data=path))
    train, test = train_test_split(ds, test_size=ds.m - m, seed=0)
    train, _ = scale_fit_transform("standard", train, test)
    return FSKernelProblem(train.X, train.y, kernel=kernel, degree=2, sense=sense)


def best_known(p: FSKernelProblem) -> tuple[float, np.ndarray]:
    """LS* from 4 seeded starts (the bnb root's incumbent): value and mask."""
    best = None
    for k in range(4):
        r = ls_star(p, SolverPlan(), beta_in=random_masks(p.n, p.B, 1, k)[0], seed=k,
                    n_samples=100)
        if best is None or p.sign * r.objective < p.sign * best[0]:
            best = (float(r.objective), np.asarray(r.values["beta"], bool))
    return best


def reach(p: FSKernelProblem, nb: NodeBounds, inc: float, nodes: int) -> list[dict]:
    """Share of random nodes with k decided features whose bound excludes a better mask."""
    rng = np.random.default_rng(0)
    out = []
    for k in sorted({0, p.n // 4, p.n // 2, 3 * p.n // 4}):
        pruned, sizes = 0, []
        for _ in range(nodes if k else 1):
            perm = rng.permutation(p.n)
            n_in = min(int(rng.binomial(k, p.B / p.n)), p.B)
            n_in = max(n_in, p.B - (p.n - k))
            inc_m = np.zeros(p.n, bool)
            inc_m[perm[:n_in]] = True
            free = np.ones(p.n, bool)
            free[perm[:k]] = False
            r = p.B - n_in
            sizes.append(math.comb(p.n - k, r))
            if r == 0 or r == p.n - k:
                continue
            bound = nb.node(inc_m, free, r, inc)[0]
            pruned += bound >= inc if p.sense == "paper" else bound <= inc
        out.append({"decided": k, "median_masks": float(np.median(sizes)),
                    "pruned": pruned / (nodes if k else 1)})
    return out


def scan_cost(p: FSKernelProblem, nb: NodeBounds, inc: float) -> float:
    """CPU microseconds per mask deciding the root's first SCAN masks against ``inc``."""
    kpar = np.array([RBF if p.kernel == "rbf" else POLY, p.gamma, p.degree, p.coef0])
    U = np.arange(p.n, dtype=np.int64)
    base = np.zeros((p.m, p.m))
    for count in (50, SCAN):                      # the first call compiles / loads
        comb, alpha = np.arange(p.B), np.zeros(p.m)
        acc = np.array([0.0, np.inf if p.sense == "paper" else -np.inf, 0.0, 0.0])
        ctl = np.array([p.C, float(p.sense == "paper"), inc, 1e-12 * abs(inc), count])
        c0, undecided = time.process_time(), 0
        while acc[0] + undecided < count:
            ctl[4] = count - acc[0] - undecided
            status = scan_masks((nb.terms, base, U, p.y), comb, kpar, alpha, ctl, acc)
            if status == CANDIDATE:               # not strictly worse than the incumbent
                undecided += 1
                status = DONE if next_combination(comb, p.n) < 0 else BUDGET
            if status == DONE:
                break
        spent = time.process_time() - c0
    return 1e6 * spent / max(acc[0] + undecided, 1.0)


def hessian(p: FSKernelProblem, beta: np.ndarray) -> tuple[float, float]:
    """Least and largest eigenvalue of f(alpha, .)'s Hessian in beta (degree 2)."""
    K = kernel_matrix(p.X[:, beta], **p.kernel_params())
    alpha = alpha_subproblem(K, p.y, p.C)[0]
    ev = np.linalg.eigvalsh(quad_terms(p, alpha)[0])
    return float(ev[0]), float(ev[-1])


def one(data: str, m: int, kernel: str, sense: str, nodes: int) -> dict:
    p = instance(data, m, kernel, sense)
    nb = NodeBounds(p)
    inc, beta = best_known(p)
    row = {"data": Path(data).stem, "m": m, "n": p.n, "B": p.B, "kernel": kernel,
           "sense": sense, "masks": math.comb(p.n, p.B), "best_known": inc,
           "root_bound": nb.node(np.zeros(p.n, bool), np.ones(p.n, bool), p.B, inc)[0],
           "reach": reach(p, nb, inc, nodes), "us_per_mask": scan_cost(p, nb, inc)}
    row["scan_all_cpu_s"] = row["masks"] * row["us_per_mask"] * 1e-6
    if kernel == "poly":
        row["hessian_min"], row["hessian_max"] = hessian(p, beta)
    print(row, flush=True)
    return row


def _fmt_s(s: float) -> str:
    if s < 3600:
        return f"{s:.0f} s"
    if s < 86400 * 365:
        return f"{s / 3600:.3g} h"
    return f"{s / (86400 * 365):.2g} years"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=12)
    a = ap.parse_args()
    rows = [one(d, m, k, s, a.nodes) for d in DATA for m in (10, 50) for k in ("poly", "rbf")
            for s in ("paper", "margin")]
    load = os.getloadavg()[0]
    lines = ["# Paper A, certified masks: what limits bnb (both senses)", "",
             "`benchmarks/bench_fs_kernel_bnb_bounds.py`: the instances of "
             "`configs/paperA_bnb.toml` at m = 10, 50 (poly d = 2, rbf); best known = LS* "
             "from 4 starts; reach = share of random nodes with k of n features decided "
             f"whose certified bound excludes a better mask ({a.nodes} nodes per k; median "
             "node size in masks); scan = CPU microseconds per mask decided (one thread, "
             f"{SCAN} masks of the root), and the CPU time to scan them all. Shared 2-core "
             f"machine (load average at the end {load:.1f}).", "",
             "| data | m | n | B | kernel | sense | masks | best known | root bound | "
             "reach k = n/4 | k = n/2 | k = 3n/4 | scan us/mask | scan all (CPU) | "
             "Hessian eig (d = 2) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        reach_cells = [f"{100 * e['pruned']:.0f} % of {e['median_masks']:.2g}"
                       for e in r["reach"][1:]]
        eig = (f"{r['hessian_min']:.3g} .. {r['hessian_max']:.3g}" if "hessian_min" in r
               else "-")
        lines.append(f"| {r['data']} | {r['m']} | {r['n']} | {r['B']} | {r['kernel']} | "
                     f"{r['sense']} | {r['masks']:.3g} | {r['best_known']:.5g} | "
                     f"{r['root_bound']:.5g} | " + " | ".join(reach_cells) +
                     f" | {r['us_per_mask']:.2f} | {_fmt_s(r['scan_all_cpu_s'])} | {eig} |")
    OUT.with_suffix(".md").write_text("\n".join(lines) + "\n")
    OUT.with_suffix(".json").write_text(json.dumps(rows, indent=1, default=float))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
