"""Points of FS-SVM (2): from a support (polished by the SVM (1)) or from a solved model."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from sparsekm.solvers import Result, SolverPlan, solve

from ..svm import solve_svm
from .problem import FSLinearProblem

__all__ = ["plain_svm_result", "point_result", "solve_formulation", "support_result"]

SEL_TOL = 1e-6


def point_result(problem: FSLinearProblem, w: np.ndarray, b: float, *, method: str = "",
                 solver: str = "") -> Result:
    """A feasible point (w, b) of (2) as a :class:`Result` (objective recomputed exactly)."""
    selected = sorted(int(j) for j in np.flatnonzero(np.abs(w) > SEL_TOL))
    return Result(objective=problem.objective(w, b), method=method, problem="fs-linear",
                  solver=solver, selected=selected,
                  values={"w": w, "b": b})


def plain_svm_result(problem: FSLinearProblem, plan: SolverPlan | None = None,
                     method: str = "") -> Result:
    """The certified optimum of (2) when B = n: the SVM (1) on every feature, its bound the QP
    solver's dual value (Clarabel by default)."""
    from ..svm.primal import svm_qp

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


def _full(model: Any, name: str, n: int) -> np.ndarray:
    out = np.zeros(n)
    var = getattr(model, name)
    for j in model.K:
        val = var[j].value
        out[j] = 0.0 if val is None else float(val)
    return out


def solve_formulation(problem: FSLinearProblem, model: Any, plan: SolverPlan,
                      time_limit: float | None = None, polish: bool = True) -> Result:
    """Solve a model of :mod:`sparsekm.models.fs_linear` and read back a point of (2).

    The selected features are those the model's selector marks (u_j = 0 for CoP, v_j = 1 for
    BigMP) with |w_j| > 1e-6; with ``polish`` the SVM (1) is re-solved on that support, so the
    objective is the exact value of a feasible point of (2), never worse than the solver's
    incumbent up to its tolerance. The solver's bound is kept only for models over all
    features (a restricted CoP(K) bounds its own subproblem, not (2)). Status ``infeasible``
    (e.g. under the cuts (17)/(18)) is a normal outcome.
    """
    d = model.fs_data
    res = solve(model, solver=plan.solver, time_limit=time_limit, mip_gap=1e-6,
                warm_start=plan.warm_start)
    out = Result(termination=res.termination, time_s=res.time_s, solver=res.solver,
                 version=res.version,
                 method=d["name"], problem="fs-linear", message=res.message,
                 extra={"solver_objective": res.objective, "solver_bound": res.bound})
    if not res.has_solution:
        return out
    n = problem.n
    w = _full(model, "w", n)
    b = float(model.b.value)
    sel = list(d["K"])
    if d["selector"] == "u":
        u = _full(model, "u", n)
        sel = [j for j in sel if u[j] < 0.5]
    elif d["selector"] == "v":
        v = _full(model, "v", n)
        sel = [j for j in sel if v[j] > 0.5]
    sel = [j for j in sel if abs(w[j]) > SEL_TOL] or sel
    if len(sel) > problem.B:  # round-off in the selector: keep the B largest |w_j|
        sel = sorted(sorted(sel, key=lambda j: -abs(w[j]))[:problem.B])
    w[np.setdiff1d(np.arange(n), sel)] = 0.0
    best = point_result(problem, w, b)
    if polish and sel:
        polished = support_result(problem, sel, plan)
        if polished.objective <= best.objective:
            best = polished
    out.objective, out.values, out.selected = best.objective, best.values, best.selected
    # a restricted CoP(K), or one with the new-feature cut (18), bounds its own subproblem,
    # not (2); the objective cut (17) keeps every point that could improve, so it stays valid
    whole = d["K"] == list(range(n)) and not hasattr(model, "new_cut")
    if res.bound is not None and math.isfinite(res.bound) and whole:
        out.certify(res.bound)
    return out
