"""Paper C methods for ``sklr``: SMO with the second-order (smo2) or first-order (smo1)
working set, and the conic model (22) solved by an exponential-cone solver (conic).
:func:`solve_sklr` runs any of them by name (:func:`sparsekm.algorithms.solve`)."""

from __future__ import annotations

from typing import Any

from sparsekm.solvers import Result, SolverPlan

from ..api import solve

__all__ = ["solve_sklr"]


def solve_sklr(problem: Any, method: str | None = None, plan: SolverPlan | None = None,
               **options: Any) -> Result:
    """Run the registered method ``method`` (default ``smo2``) on an
    :class:`~sparsekm.models.sklr.problem.SKLRProblem`; ``options`` are its declared ones."""
    return solve(problem, method, plan, **options)
