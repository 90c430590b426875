"""BoxMP (8) of paper D: BigMP (6) with v in [0, 1]^n (a convex QP), and its certificate.

Certificate (for any solver, first-order ones included): at margin multipliers alpha
(0 <= alpha <= C, y'alpha = 0) and a multiplier tau >= 0 of the budget row, weak duality gives

    (8) >= 1'alpha - tau B - sum_j phi_M(|s_j| - tau / M),   s = X'(alpha * y),

with phi_M(t) = 0 (t <= 0), t^2 / 2 (0 <= t <= M), M t - M^2 / 2 (t >= M): the minimum of
1/2 w_j^2 - s_j w_j + tau v_j over |w_j| <= M v_j, v_j in [0, 1] (v_j = |w_j| / M). Any
alpha and tau give a valid bound; :func:`box_bound` takes the feasible alpha nearest the
solver's and maximises the concave function of tau. SMP (10) and DSMP (15) equal (8)
(Theorem 3.3, Corollary 3.8), so the same certificate serves them.
"""

from __future__ import annotations

import numpy as np

from sparsekm.declare import Annotated
from sparsekm.models.fs_linear import FSLinearProblem, label_big_m
from sparsekm.models.fs_linear.specs import BIG_M
from sparsekm.registry import CONIC_SOC, Export, exportable, register, with_node_form
from sparsekm.solvers import Result, SolverPlan

from .common import Relaxed, budget, need_big_m, relaxed_export, solve_relaxed, xi_block
from .node_box import BoxNode
from .node_form import feasible_alpha

__all__ = ["box_bound", "build_box"]


def box_bound(problem: FSLinearProblem, alpha: np.ndarray, M: float) -> float:
    """The weak-duality bound above at the feasible alpha nearest ``alpha``: a lower bound on
    (8) (and on (2) when M is a valid big-M)."""
    from scipy.optimize import minimize_scalar

    a = feasible_alpha(problem, alpha)
    s = np.abs(problem.X.T @ (a * problem.y))

    def dual_part(tau: float) -> float:  # tau B + sum_j phi_M(|s_j| - tau / M), convex
        t = np.maximum(s - tau / M, 0.0)
        return float(tau * problem.B + np.where(t <= M, 0.5 * t * t, M * t - 0.5 * M * M).sum())

    top = M * float(s.max(initial=0.0))
    best = dual_part(0.0)
    if top > 0:
        r = minimize_scalar(dual_part, bounds=(0.0, top), method="bounded",
                            options={"xatol": 1e-12 * top})
        best = min(best, float(r.fun))
    return float(a.sum() - best)


def build_box(problem: FSLinearProblem, M: float) -> Relaxed:
    """min 1/2||w||^2 + C sum xi over Xi (3), -M v <= w <= M v, e'v <= B, 0 <= v <= 1."""
    import cvxpy as cp

    w, b, xi, loss, cons = xi_block(problem)
    v = cp.Variable(problem.n, name="v")
    cons += [v >= 0, v <= 1, w <= M * v, -M * v <= w, budget(problem, cp.sum(v), problem.B, "le")]
    obj = 0.5 * cp.sum_squares(w) + loss
    return Relaxed(cp.Problem(cp.Minimize(obj), cons), "box", w, b, obj, v=v, M=M,
                   margins=cons[0], certify=lambda alpha: box_bound(problem, alpha, M))


@register("fs-linear", "relaxation", "box", paper="D", ref="eq. (8)", problem_class="QP",
          aliases=("boxmp",))
@with_node_form(BoxNode())
@exportable(Export("box", relaxed_export(lambda p, M: build_box(p, M), big_m=True),
                   CONIC_SOC))
def box(problem: FSLinearProblem, plan: SolverPlan, *,
        M: Annotated[float | None, BIG_M] = None) -> Result:
    """BoxMP (8): the continuous relaxation of BigMP (6) (equal to SMP (10), Theorem 3.3)."""
    return label_big_m(problem, M, solve_relaxed(
        problem, build_box(problem, need_big_m(problem, M)), plan, "(8)"))
