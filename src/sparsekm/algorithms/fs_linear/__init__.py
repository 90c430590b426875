"""Paper D's methods for FS-SVM (2), each registered: Local Search (Algorithm 1), Kernel Search
(Algorithm 2), the heuristic (Algorithm 3), the exact procedure (Algorithm 4), BigMP (6) / CoP
(7) solved directly (warm-started, CoP*) and enumeration. Run one by name with
:func:`solve_fs_linear`."""

from __future__ import annotations

from typing import Any

from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.solvers import Result, SolverPlan

from .common import Search

__all__ = ["Search", "solve_fs_linear"]


def solve_fs_linear(problem: FSLinearProblem, method: str = "kernel-search",
                    plan: SolverPlan | None = None, **options: Any) -> Result:
    """Run the registered method ``method`` on ``problem``; ``options`` are its flat options
    (e.g. ``k``, ``rho``, ``s``, ``strategy``, ``M``); an unknown one is a clear error. With
    B >= n every method returns the certified optimum of the plain SVM (1)."""
    from sparsekm import registry
    from sparsekm.models.fs_linear import plain_svm_result

    entry = registry.get("fs-linear", "method", method)
    if problem.unconstrained:
        entry.bind(**options)  # unknown options are refused all the same
        return plain_svm_result(problem, (plan or SolverPlan()).start(), method=entry.name)
    return entry.run(problem, plan or SolverPlan(), **options)
