"""Paper D's formulations solved and read back (:func:`sparsekm.algorithms.solve_formulation`).

A model of :mod:`sparsekm.models.fs_linear` (BigMP (6), CoP (7), CoP(K) (16), SR-DLMP (21))
is solved by the plan's solver; the point it holds is read back as a point of FS-SVM (2) and
checked on (2) itself (:meth:`~sparsekm.models.fs_linear.FSLinearProblem.check_point`); the
solver's bound counts for (2) only when the model's record says the model is still an exact
model or a relaxation of (2) (:mod:`sparsekm.models.record`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from sparsekm.models.fs_linear import FSLinearProblem, model_point, point_result
from sparsekm.models.record import CERTIFIES, changes, record_of
from sparsekm.solvers import Result, SolverPlan, relative_gap, solve

from ..formulation import read_back
from .points import support_result

__all__ = ["certifies", "solve_fs_linear_model"]

MIP_GAP = 1e-6
FEAS_TOL = 1e-6    # a violation of (2) above it: the model's point is not a point of (2)


def certifies(model: Any) -> tuple[str, list[str]]:
    """What the model's bound is a bound on (``"problem"``, ``"restricted subproblem"`` or
    ``"user-modified model"``) and the changes found against its record."""
    rec = record_of(model)
    found = changes(model)
    if rec is None or found:
        return CERTIFIES["modified"], found
    return rec.certifies, []


@read_back("fs-linear")
def solve_fs_linear_model(problem: FSLinearProblem, model: Any, plan: SolverPlan,
                          time_limit: float | None = None, polish: bool = True) -> Result:
    """Solve the model and read back a point of (2) (see the module docstring).

    The support is the features the model's selector marks (u_j = 0 for CoP, v_j = 1 for
    BigMP) with |w_j| > 1e-6; with ``polish`` the SVM (1) is re-solved on it, so the
    objective is the exact value of a feasible point of (2). ``extra``: ``certifies``,
    ``model`` (its record), the solver's own ``model_objective`` / ``model_bound`` /
    ``model_status`` (about the model as solved), ``on_problem`` (the model's point checked
    on (2)) and, for a changed model, ``changes``. Status ``infeasible`` (e.g. under the cuts
    (17)/(18)) is a normal outcome.
    """
    what, found = certifies(model)
    rec = record_of(model)
    res = solve(model, solver=plan.solver, time_limit=time_limit, mip_gap=MIP_GAP,
                warm_start=plan.warm_start)
    out = Result(termination=res.termination, time_s=res.time_s, solver=res.solver,
                 version=res.version, method=rec.formulation if rec else "user model",
                 problem="fs-linear", message=res.message,
                 extra={"certifies": what, "model": rec.to_dict() if rec else None,
                        "model_objective": res.objective, "model_bound": res.bound,
                        "model_status": _model_status(res),
                        "solver_objective": res.objective, "solver_bound": res.bound})
    if found:
        out.extra["changes"] = found
    if not res.has_solution:
        return out
    pt = model_point(problem, model)
    on = problem.check_point(pt.variables())
    out.extra["on_problem"] = {k: v for k, v in on.to_dict(FEAS_TOL).items()
                               if k not in ("violations", "tol", "support_gap")}
    sel = pt.support
    w = pt.w.copy()
    w[np.setdiff1d(np.arange(problem.n), sel)] = 0.0
    best = point_result(problem, w, pt.b)
    if polish and sel:
        polished = support_result(problem, sel, plan)
        if polished.objective <= best.objective:
            best = polished
    out.objective, out.values, out.selected = best.objective, best.values, best.selected
    if not on.feasible(FEAS_TOL):
        note = (f"the model's point is not feasible for (2) (largest violation "
                f"{on.max_violation:.3g}: {on.worst}); the result is the SVM (1) on the "
                f"{len(sel)} features of largest |w_j| it selects")
        out.message = f"{out.message}; {note}" if out.message else note
    if what == "problem" and res.bound is not None and math.isfinite(res.bound):
        out.certify(res.bound)
    return out


def _model_status(res: Result) -> str:
    """The solve's status about the model as solved (its own objective and bound, the
    read-back's tolerance): what a changed or restricted model's bound certifies for itself."""
    if not res.has_solution:
        return res.status.value
    gap = relative_gap(res.objective, res.bound)
    return "optimal" if gap is not None and gap <= 10 * MIP_GAP else "feasible"
