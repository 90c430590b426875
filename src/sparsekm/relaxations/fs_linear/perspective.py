"""The perspective bound of FS-SVM (2) in m variables: any feasible alpha certifies it.

DSCoP (13) in its SOC form (Lemma 4.3) is the perspective relaxation
min 1/2 sum_j w_j^2 / (1 - u_j) + C sum xi over Xi (3), sum_j (1 - u_j) = B, 0 <= u <= 1. Its
Lagrangian dual has only the m margin multipliers alpha:

    g(alpha) = 1'alpha - 1/2 (sum of the B largest s_j(alpha)^2),   s(alpha) = X'(alpha * y),
    over 0 <= alpha <= C, y'alpha = 0,

so every feasible alpha gives a lower bound on (2) by weak duality, and max g = DSCoP (13)
= SCoP (11) (Theorem 3.6) by conic strong duality. :func:`perspective_bound` is the
certificate (used for DSCoP's bound whatever solver produced the multipliers, including a
first-order one); the relaxation ``perspective-dual`` maximises g directly (m + n variables
instead of DSCoP's 3n + m + 1).
"""

from __future__ import annotations

import numpy as np

from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.registry import register
from sparsekm.solvers import Result, SolverPlan, solve

__all__ = ["feasible_alpha", "perspective_bound"]


def feasible_alpha(problem: FSLinearProblem, alpha: np.ndarray) -> np.ndarray:
    """``alpha`` clipped to [0, C] and scaled down on the heavier class so that y'alpha = 0."""
    a = np.clip(np.asarray(alpha, dtype=float).ravel(), 0.0, problem.C)
    pos, neg = problem.y > 0, problem.y < 0
    sp, sn = a[pos].sum(), a[neg].sum()
    if sp > sn:
        a[pos] *= sn / sp if sp > 0 else 0.0
    elif sn > sp:
        a[neg] *= sp / sn if sn > 0 else 0.0
    return a


def perspective_bound(problem: FSLinearProblem, alpha: np.ndarray) -> float:
    """g(alpha) at the feasible point nearest ``alpha`` (see the module docstring): a lower
    bound on the optimum of (2)."""
    a = feasible_alpha(problem, alpha)
    s2 = (problem.X.T @ (a * problem.y)) ** 2
    top = np.partition(s2, s2.size - problem.B)[s2.size - problem.B:]
    return float(a.sum() - 0.5 * top.sum())


@register("fs-linear", "relaxation", "perspective-dual", paper="D",
          ref="dual of (13), Lemma 4.3 + Theorem 3.6", problem_class="SOCP")
def perspective_dual(problem: FSLinearProblem, plan: SolverPlan) -> Result:
    """DSCoP (13)'s bound from its dual in m variables, certified at the solver's alpha."""
    import cvxpy as cp

    p = problem
    alpha = cp.Variable(p.m, name="alpha")
    s = p.X.T @ cp.multiply(alpha, p.y)
    obj = cp.sum(alpha) - 0.5 * cp.sum_largest(cp.square(s), p.B)
    prob = cp.Problem(cp.Maximize(obj), [alpha >= 0, alpha <= p.C, p.y @ alpha == 0])
    res = solve(prob, solver=plan.relax_solver, time_limit=plan.clock.cap(None))
    out = Result(objective=res.objective, termination=res.termination,
                 solution_status=res.solution_status, time_s=res.time_s, solver=res.solver,
                 version=res.version, method="perspective-dual", problem="fs-linear",
                 problem_class=res.problem_class, message=res.message,
                 extra={"equation": "dual of (13)"})
    if alpha.value is not None:
        a = feasible_alpha(p, alpha.value)
        out.values = {"alpha": a}
        out.bound = perspective_bound(p, a)
    return out
