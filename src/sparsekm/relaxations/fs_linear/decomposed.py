"""Decomposed relaxations of paper D: DSCoP (13), DSCoMP (14), DSMP (15).

``conic="sdp"`` writes the small PSD blocks as printed; ``conic="soc"`` their second-order-cone
form of Lemma 4.3 (||(W_jj - s_j, 2 w_j)|| <= W_jj + s_j, s_j = 1 - u_j), so that any SOCP
solver gives the bound (38x faster than SCoP on average, measured).
"""

from __future__ import annotations

from sparsekm.declare import Annotated, Spec
from sparsekm.models.fs_linear import FSLinearProblem, label_big_m
from sparsekm.models.fs_linear.specs import BIG_M
from sparsekm.registry import CONIC_SOC, Export, exportable, register, with_node_form
from sparsekm.solvers import Result, SolverPlan

from .box import box_bound
from .common import (
    Relaxed,
    budget,
    by_conic,
    need_big_m,
    relaxed_export,
    solve_relaxed,
    xi_block,
)
from .node_dscomp import DSCoMPNode
from .perspective import perspective_bound

CONIC = ("soc", "sdp")
CONIC_FORM = Spec("Cone of the small blocks of (13)-(15): soc (their second-order-cone form, "
                  "Lemma 4.3; any SOCP solver) or sdp (the PSD blocks as printed).",
                  choices=CONIC, flag="--conic")


def build_dscop(problem: FSLinearProblem, conic: str = "soc", M: float | None = None,
                ub: float | None = None) -> Relaxed:
    """DSCoP (13): n 3x3 blocks [1 w_j u_j; w_j W_jj 0; u_j 0 u_j] >= 0 (SCoP decomposed);
    with ``M`` the big-M rows of B_M (5): DSCoMP (14); ``ub`` adds objective <= ub (19)."""
    import cvxpy as cp

    n = problem.n
    w, b, xi, loss, cons = xi_block(problem)
    u, W = cp.Variable(n, name="u"), cp.Variable(n, name="W")
    cons += [budget(problem, cp.sum(u), n - problem.B, "ge")]
    if conic == "sdp":
        P = [cp.Variable((3, 3), PSD=True) for _ in range(n)]
        for j in range(n):
            cons += [P[j][0, 0] == 1, P[j][0, 1] == w[j], P[j][0, 2] == u[j],
                     P[j][1, 1] == W[j], P[j][1, 2] == 0, P[j][2, 2] == u[j]]
    else:  # Lemma 4.3: s = 1 - u >= 0, u >= 0, ||(W - s, 2w)|| <= W + s
        s = 1 - u
        cons += [u >= 0, u <= 1, W >= 0, cp.SOC(W + s, cp.vstack([W - s, 2 * w]), axis=0)]
    if M is not None:
        cons += [w <= M * (1 - u), -M * (1 - u) <= w]
    obj = 0.5 * cp.sum(W) + loss
    if ub is not None:
        cons.append(obj <= ub)
    certify = None if M is not None or ub is not None else \
        (lambda alpha: perspective_bound(problem, alpha))
    return Relaxed(cp.Problem(cp.Minimize(obj), cons), "dscop" if M is None else "dscomp",
                   w, b, obj, u=u, W=W, M=M, margins=cons[0], certify=certify)


def build_dsmp(problem: FSLinearProblem, M: float, conic: str = "soc") -> Relaxed:
    """DSMP (15): SMP decomposed into 2x2 blocks [1 w_j; w_j W_jj], [1 v_j; v_j v_j]."""
    import cvxpy as cp

    n = problem.n
    w, b, xi, loss, cons = xi_block(problem)
    v, W = cp.Variable(n, name="v"), cp.Variable(n, name="W")
    cons += [w <= M * v, -M * v <= w, budget(problem, cp.sum(v), problem.B, "le")]
    if conic == "sdp":
        P = [cp.Variable((2, 2), PSD=True) for _ in range(n)]
        Q = [cp.Variable((2, 2), PSD=True) for _ in range(n)]
        for j in range(n):
            cons += [P[j][0, 0] == 1, P[j][0, 1] == w[j], P[j][1, 1] == W[j],
                     Q[j][0, 0] == 1, Q[j][0, 1] == v[j], Q[j][1, 1] == v[j]]
    else:  # [1 w; w W] >= 0 <=> W >= w^2 ; [1 v; v v] >= 0 <=> 0 <= v <= 1
        cons += [cp.SOC(W + 1, cp.vstack([W - 1, 2 * w]), axis=0), v >= 0, v <= 1]
    obj = 0.5 * cp.sum(W) + loss
    return Relaxed(cp.Problem(cp.Minimize(obj), cons), "dsmp", w, b, obj, v=v, W=W, M=M,
                   margins=cons[0], certify=lambda alpha: box_bound(problem, alpha, M))


@register("fs-linear", "relaxation", "dscop", paper="D", ref="eq. (13)", problem_class="SOCP")
@exportable(Export("dscop", relaxed_export(lambda p, conic: build_dscop(p, conic), conic=True),
                   CONIC_SOC, formats_for=by_conic))
def dscop(problem: FSLinearProblem, plan: SolverPlan, *,
          conic: Annotated[str, CONIC_FORM] = "soc") -> Result:
    """DSCoP (13): SCoP decomposed into n 3x3 blocks (equal to SCoP (11), Theorem 3.6)."""
    return solve_relaxed(problem, build_dscop(problem, conic), plan, "(13)")


@register("fs-linear", "relaxation", "dscomp", paper="D", ref="eq. (14)", problem_class="SOCP")
@with_node_form(DSCoMPNode())
@exportable(Export("dscomp", relaxed_export(lambda p, M, conic: build_dscop(p, conic, M),
                                            big_m=True, conic=True),
                   CONIC_SOC, formats_for=by_conic))
def dscomp(problem: FSLinearProblem, plan: SolverPlan, *,
           M: Annotated[float | None, BIG_M] = None,
           conic: Annotated[str, CONIC_FORM] = "soc") -> Result:
    """DSCoMP (14): DSCoP with big-M rows (equal to SCoMP (12), Corollary 3.7)."""
    return label_big_m(problem, M, solve_relaxed(
        problem, build_dscop(problem, conic, need_big_m(problem, M)), plan, "(14)"))


@register("fs-linear", "relaxation", "dsmp", paper="D", ref="eq. (15)", problem_class="SOCP")
@exportable(Export("dsmp", relaxed_export(lambda p, M, conic: build_dsmp(p, M, conic),
                                          big_m=True, conic=True),
                   CONIC_SOC, formats_for=by_conic))
def dsmp(problem: FSLinearProblem, plan: SolverPlan, *,
         M: Annotated[float | None, BIG_M] = None,
         conic: Annotated[str, CONIC_FORM] = "soc") -> Result:
    """DSMP (15): SMP decomposed into 2x2 blocks (equal to SMP (10), Corollary 3.8)."""
    return label_big_m(problem, M, solve_relaxed(
        problem, build_dsmp(problem, need_big_m(problem, M), conic), plan, "(15)"))
