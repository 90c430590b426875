"""Points of FS-SVM (2) from a support, by the SVM (1) through the solver layer (the plan's QP
solver; Clarabel by default): the polish of a support, and (2) itself when B >= n."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sparsekm.models.fs_linear import FSLinearProblem, point_result
from sparsekm.models.svm.primal import svm_qp
from sparsekm.solvers import Result, SolverPlan, solve

from ..svm import solve_svm

__all__ = ["plain_svm_result", "support_result"]


def plain_svm_result(problem: FSLinearProblem, plan: SolverPlan | None = None,
                     method: str = "") -> Result:
    """The certified optimum of (2) when B = n: the SVM (1) on every feature, its bound the QP
    solver's dual value (Clarabel by default)."""
    res = solve(svm_qp(problem.X, problem.y, problem.C), solver=plan.qp_solver if plan else None)
    if not res.has_solution:
        return res
    w, b = np.asarray(res.values["w"], dtype=float), float(res.values["b"][0])
    out = point_result(problem, w, b, method=method, solver=res.solver)
    out.time_s = res.time_s
    out.extra["budget"] = f"B = {problem.B} >= n: (2) is the plain SVM (1)"
    return out.certify(res.bound)


def support_result(problem: FSLinearProblem, support: Sequence[int],
                   plan: SolverPlan | None = None, method: str = "") -> Result:
    """The SVM (1) on ``support`` (the plan's QP solver) as a feasible point of (2)."""
    if len(support) > problem.B:
        raise ValueError(f"support of {len(support)} features exceeds B={problem.B}")
    w, b, _ = solve_svm(problem.X, problem.y, problem.C, features=support,
                        solver=plan.qp_solver if plan else None)
    return point_result(problem, w, b, method=method)
