"""The demo's paper D section: Kernel Search with its DSCoP bound on a split."""

from __future__ import annotations

import time
from typing import Any

from sparsekm.run.data import accuracy

RANK = 10


def demo_section(ds: Any, quick: bool = False) -> list[str]:
    """A certified paper-D run: Kernel Search incumbent, DSCoP bound, gap, names, accuracy."""
    from sparsekm.algorithms.fs_linear import solve_fs_linear
    from sparsekm.data import train_test_split
    from sparsekm.models.fs_linear import FSLinearProblem
    from sparsekm.solvers import SolverPlan

    B, C = min(5, ds.n), 10.0
    train, test = train_test_split(ds, test_size=0.2, seed=0)
    if quick:
        train = train.head(min(train.m, 150))
    plan = SolverPlan(time_limit=60 if quick else 300, subproblem_time_limit=20 if quick else 60)
    t0 = time.perf_counter()
    res = solve_fs_linear(FSLinearProblem(train.X, train.y, B=B, C=C), "kernel-search", plan,
                          rho=10)
    dt = time.perf_counter() - t0
    w, b = res.values["w"], res.values["b"]
    names = [train.feature_names[j] for j in res.selected]
    return [
        "\n== Feature selection, linear SVM with at most B features (paper D) " + "=" * 8,
        f"  FS-SVM (2): B = {B}, C = {C:g}, train m = {train.m}, test m = {test.m}",
        f"  Kernel Search (Alg. 2) incumbent  objective = {res.objective:.6f}",
        f"  DSCoP (13) lower bound            {res.bound:.6f}",
        f"  certified gap                     {100 * (res.gap or 0.0):.3f} %  ({dt:.1f} s)",
        f"  selected features: {', '.join(names)}",
        f"  accuracy: train {accuracy(train.X @ w + b, train.y):.3f}, "
        f"test {accuracy(test.X @ w + b, test.y):.3f}",
    ]
