"""Paper D's methods for FS-SVM (2), each registered: Local Search (Algorithm 1), Kernel Search
(Algorithm 2), the heuristic (Algorithm 3), the exact procedure (Algorithm 4), BigMP (6) / CoP
(7) solved directly (warm-started, CoP*) and enumeration. Run one by name with
:func:`solve_fs_linear`."""

from __future__ import annotations

from typing import Any

from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.solvers import Result, SolverPlan

from ..api import front_door, solve
from .common import Search

__all__ = ["Search", "solve_fs_linear"]


@front_door("fs-linear")
def _run(problem: FSLinearProblem, entry: Any, plan: SolverPlan, options: dict[str, Any]
         ) -> Result:
    """With B >= n every method returns the certified optimum of the plain SVM (1)."""
    from .points import plain_svm_result

    if problem.unconstrained:
        return plain_svm_result(problem, plan, method=entry.name)
    return entry.run(problem, plan, **options)


def solve_fs_linear(problem: FSLinearProblem, method: str | None = None,
                    plan: SolverPlan | None = None, **options: Any) -> Result:
    """Run the registered method ``method`` (default ``kernel-search``) on ``problem``;
    ``options`` are its declared options (e.g. ``k``, ``rho``, ``s``, ``strategy``, ``M``),
    checked (:func:`sparsekm.algorithms.solve`). With B >= n every method returns the
    certified optimum of the plain SVM (1)."""
    return solve(problem, method, plan, **options)
