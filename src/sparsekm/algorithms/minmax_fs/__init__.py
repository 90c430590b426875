"""Paper E's methods (fast value-function route, Ipopt and SCIP on (20)) and Algorithm 1.
:func:`solve_minmax_fs` runs a route by name from a given start
(:func:`sparsekm.algorithms.solve`); :func:`~.algorithm1.algorithm1` adds the CV start."""

from __future__ import annotations

from typing import Any

from sparsekm.solvers import Result, SolverPlan

from ..api import solve

__all__ = ["solve_minmax_fs"]


def solve_minmax_fs(problem: Any, method: str | None = None, plan: SolverPlan | None = None,
                    **options: Any) -> Result:
    """Run the registered route ``method`` (default ``fast``) on a
    :class:`~sparsekm.models.minmax_fs.MinMaxFSProblem`; ``options`` are its declared ones
    (``gamma0``: the start)."""
    return solve(problem, method, plan, **options)
