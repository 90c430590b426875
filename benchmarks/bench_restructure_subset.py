"""Restructure check: a small subset of the paper A and D benchmarks; prints JSON.

A script, not a config: a one-off check that a refactor left values unchanged.

    PYTHONPATH=src python benchmarks/bench_restructure_subset.py

The same runs with the last landed version before the restructure gave the "before" column of
benchmarks/results/restructure_check.md (values must agree).
"""

from __future__ import annotations

import json
import time

from sparsekm.algorithms.fs_kernel import solve_fs_kernel
from sparsekm.algorithms.fs_linear import solve_fs_linear
from sparsekm.data import Scaler, load_dataset
from sparsekm.models.fs_kernel import FSKernelProblem
from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.relaxations.fs_linear import solve_relaxation


def data(name: str, rows: int | None = None):
    ds = load_dataset(name)
    if rows:
        ds = ds.head(rows)
    return Scaler("standard").fit(ds.X).transform(ds.X), ds.y


def main() -> None:
    out: dict[str, tuple[float, float]] = {}
    X, y = data("arrhythmia")
    for B in (10, 20, 30):
        t = time.time()
        bound = solve_relaxation(FSLinearProblem(X, y, B=B, C=10.0), "dscop").bound
        out[f"dscop arrhythmia B={B}"] = (bound, time.time() - t)
    for name, B in (("wholesale", 3), ("cleveland", 5), ("breast_cancer_wisconsin", 3)):
        X, y = data(name)
        t = time.time()
        r = solve_fs_linear(FSLinearProblem(X, y, B=B, C=10.0), "kernel-search", rho=5)
        out[f"ks {name} B={B}"] = (r.objective, time.time() - t)
    for name in ("cleveland", "ionosphere"):
        X, y = data(name, 150)
        p = FSKernelProblem(X, y, "poly", 5, 10.0, 0.1, 2, 1.0, "paper")
        t = time.time()
        r = solve_fs_kernel(p, "ls-star", starts=2, seed=0, n_samples=100, opt_window=3)
        out[f"ls* {name}[:150] B=5 paper"] = (r.objective, time.time() - t)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
