"""BoxMP (8) of paper D: BigMP (6) with v in [0, 1]^n (a convex QP)."""

from __future__ import annotations

from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.registry import register
from sparsekm.solvers import Result, SolverPlan

from .common import Relaxed, budget, need_big_m, solve_relaxed, xi_block


def build_box(problem: FSLinearProblem, M: float) -> Relaxed:
    """min 1/2||w||^2 + C sum xi over Xi (3), -M v <= w <= M v, e'v <= B, 0 <= v <= 1."""
    import cvxpy as cp

    w, b, xi, loss, cons = xi_block(problem)
    v = cp.Variable(problem.n, name="v")
    cons += [v >= 0, v <= 1, w <= M * v, -M * v <= w, budget(problem, cp.sum(v), problem.B, "le")]
    obj = 0.5 * cp.sum_squares(w) + loss
    return Relaxed(cp.Problem(cp.Minimize(obj), cons), "box", w, b, obj, v=v, M=M,
                   margins=cons[0])


@register("fs-linear", "relaxation", "box", paper="D", ref="eq. (8)", problem_class="QP",
          aliases=("boxmp",))
def box(problem: FSLinearProblem, plan: SolverPlan, *, M: float | None = None) -> Result:
    """BoxMP (8): the continuous relaxation of BigMP (6) (equal to SMP (10), Theorem 3.3)."""
    return solve_relaxed(problem, build_box(problem, need_big_m(problem, M, "box")), plan,
                         "(8)")
