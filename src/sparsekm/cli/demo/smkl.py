"""The demo's paper B section: ABR, the exact search and the (14) bound."""

from __future__ import annotations

from typing import Any

from sparsekm import registry

RANK = 30


def demo_section(ds: Any, quick: bool = False) -> list[str]:
    """ABR, the exact branch-and-bound and the (14) bound on a standardised subset (paper10)."""
    from sparsekm.models.smkl.problem import SMKLProblem
    from sparsekm.run.data import scale_fit_transform
    from sparsekm.solvers import SolverPlan

    sub = scale_fit_transform("standard", ds.head(min(ds.m, 100 if quick else 200)))
    problem = SMKLProblem(sub.X, sub.y, "paper10", 2, 10.0, 1.0)
    lines = ["\n== Sparse multiple kernel learning, at most k0 = 2 of 10 kernels (paper B) " +
             "=" * 4, f"  (4) with C = 10, lam = 1, the paper's ten kernels, m = {sub.m}"]
    names = problem.labels
    for kind, name in (("method", "abr"), ("method", "exact"), ("relaxation", "sdp-full-cp")):
        res = registry.get("smkl", kind, name)(problem, SolverPlan(time_limit=60))
        bound = "-" if res.bound is None else f"{res.bound:.6f}"
        what = "lower bound (14)" if kind == "relaxation" else "objective"
        sel = "" if kind == "relaxation" else "  kernels " + ", ".join(
            names[i] for i in res.selected)
        lines.append(f"  {name:<12} {what} = {res.objective:.6f}  certified bound = {bound}  "
                     f"status = {res.status.value}  ({res.time_s:.1f} s){sel}")
    return lines
