"""The demo's paper C section: smo2, smo1 and the conic model."""

from __future__ import annotations

from typing import Any

RANK = 40


def demo_section(ds: Any, quick: bool = False) -> list[str]:
    """smo2 vs smo1 vs the conic model on a [0, 1]-scaled subset (C = 100, lam = 30)."""
    from sparsekm.algorithms.sklr import solve_sklr
    from sparsekm.models.sklr.problem import SKLRProblem
    from sparsekm.run.data import scale_fit_transform

    sub = scale_fit_transform("minmax01", ds.head(min(ds.m, 150 if quick else 400)))
    lines = ["\n== Sparse kernel logistic regression (paper C, dual (22)) " + "=" * 9]
    for method in ("smo2", "smo1", "conic"):
        options = {"tol": 1e-8, "max_iter": -1} if method != "conic" else {}
        res = solve_sklr(SKLRProblem(sub.X, sub.y, C=100.0, lam=30.0), method, **options)
        sv = len(res.values.get("support", []))
        it = res.extra.get("iterations")
        lines.append(f"  {method:<6} objective (22a) = {res.objective:.8f}  selected = "
                     f"{sv}/{sub.m}  iterations = {it}  ({res.time_s:.2f} s)")
    return lines
