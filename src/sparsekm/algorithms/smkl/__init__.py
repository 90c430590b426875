"""Paper B (sparse MKL): Algorithm 1 (ABR), the exact branch-and-bound, the baselines.
:func:`solve_smkl` runs any of them by name (:func:`sparsekm.algorithms.solve`)."""

from __future__ import annotations

from typing import Any

from sparsekm.solvers import Result, SolverPlan

from ..api import solve

__all__ = ["solve_smkl"]


def solve_smkl(problem: Any, method: str | None = None, plan: SolverPlan | None = None,
               **options: Any) -> Result:
    """Run the registered method ``method`` (default ``abr``) on an
    :class:`~sparsekm.models.smkl.problem.SMKLProblem`; ``options`` are its declared ones."""
    return solve(problem, method, plan, **options)
