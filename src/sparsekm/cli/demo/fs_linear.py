"""The demo's paper D section: `fast`'s incumbent, then `bnb`'s certificate, on a split."""

from __future__ import annotations

import time
from typing import Any

from sparsekm.run.data import accuracy

RANK = 10
B_DEMO, C_DEMO = 5, 0.1  # bnb certifies breast_cancer_diagnostic's 455 training rows here


def _timed(problem: Any, method: str, plan: Any) -> tuple[Any, float]:
    from sparsekm.algorithms.fs_linear import solve_fs_linear

    t0 = time.perf_counter()
    res = solve_fs_linear(problem, method, plan)
    return res, time.perf_counter() - t0


def _line(label: str, res: Any, seconds: float) -> str:
    gap = "-" if res.gap is None else f"{100 * res.gap:.2f} %"
    nodes = res.extra.get("nodes")
    tree = f", {nodes} nodes" if nodes is not None else ""
    return (f"  {label:<27} objective = {res.objective:.6f}  certified bound = "
            f"{res.bound:.6f}  gap = {gap}  {res.status.value}{tree}  ({seconds:.1f} s)")


def demo_section(ds: Any, quick: bool = False) -> list[str]:
    """Paper D in a few lines: `fast` (the native swap search) finds an incumbent with a
    certified bound, `bnb` (the branch and bound) certifies the optimum or reports its
    certified gap at the time limit; support, accuracy."""
    from sparsekm.data import train_test_split
    from sparsekm.models.fs_linear import FSLinearProblem
    from sparsekm.solvers import SolverPlan

    B, C = min(B_DEMO, ds.n), C_DEMO
    train, test = train_test_split(ds, test_size=0.2, seed=0)
    if quick:
        train = train.head(min(train.m, 150))
    problem = FSLinearProblem(train.X, train.y, B=B, C=C)
    fast, t_fast = _timed(problem, "fast", SolverPlan(time_limit=20))
    bnb, t_bnb = _timed(problem, "bnb", SolverPlan(time_limit=10 if quick else 20))
    better = (fast.objective - bnb.objective) / abs(bnb.objective)
    verdict = ("the certified optimum" if bnb.status.value == "optimal" else
               f"certified within {100 * bnb.gap:.2f} %")
    found = ("fast's incumbent is optimal" if better <= 1e-6 else
             f"bnb's incumbent is {100 * better:.2f} % below fast's")
    w, b = bnb.values["w"], bnb.values["b"]
    names = [train.feature_names[j] for j in bnb.selected]
    return [
        "\n== Feature selection, linear SVM with at most B features (paper D) " + "=" * 8,
        f"  FS-SVM (2): B = {B}, C = {C:g}, train m = {train.m}, test m = {test.m}",
        _line("fast (native swap search)", fast, t_fast),
        _line("bnb (branch and bound)", bnb, t_bnb),
        f"  {verdict}: {found}",
        f"  selected features: {', '.join(names)}",
        f"  accuracy: train {accuracy(train.X @ w + b, train.y):.3f}, "
        f"test {accuracy(test.X @ w + b, test.y):.3f}",
    ]
