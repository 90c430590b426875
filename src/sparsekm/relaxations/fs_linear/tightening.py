"""Big-M tightening of paper D: the problems (19) of Proposition 4.1."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.solvers import SolverPlan, solve

from .decomposed import build_dscop

__all__ = ["bigm_tightening"]


def bigm_tightening(problem: FSLinearProblem, ub: float, plan: SolverPlan,
                    features: Iterable[int] | None = None,
                    time_limit: float | None = None) -> tuple[float, np.ndarray, np.ndarray]:
    """Proposition 4.1 of paper D: a valid big-M from the problems (19).

    For each feature j: Mbar_j = max w_j and Munder_j = min w_j over the DSCoP (13) feasible set
    (SOC form) with objective 1/2 sum W_jj + C sum xi <= UB. M = max_j max(|Mbar_j|,
    |Munder_j|) is valid: every optimum of (2) lies in that set. The 2n conic problems reuse one
    compiled CVXPY problem (a parameter in the objective), solved by the plan's relaxation
    solver. Features not in ``features`` (or not reached within ``time_limit``) keep the
    always-valid bound sqrt(2 UB) (1/2 w_j^2 <= UB).

    Returns
    -------
    M : float; upper : (n,) Mbar; lower : (n,) Munder.
    """
    import cvxpy as cp

    n = problem.n
    cap = math.sqrt(2.0 * max(ub, 0.0))
    upper, lower = np.full(n, cap), np.full(n, -cap)
    c = cp.Parameter(n)
    rel = build_dscop(problem, "soc", ub=ub)
    prob = cp.Problem(cp.Maximize(c @ rel.w), rel.problem.constraints)
    feats = range(n) if features is None else [int(j) for j in features]
    clock = SolverPlan(time_limit=time_limit).start().clock if time_limit else None
    for j in feats:
        for sign in (1.0, -1.0):
            if clock is not None and clock.expired():
                break
            cv = np.zeros(n)
            cv[j] = sign
            c.value = cv
            res = solve(prob, solver=plan.relax_solver)
            if res.bound is not None:  # only a certified max bounds w_j
                val = sign * res.bound
                if sign > 0:
                    upper[j] = min(cap, val)
                else:
                    lower[j] = max(-cap, val)
    M = float(max(np.abs(upper).max(), np.abs(lower).max()))
    return M, upper, lower
