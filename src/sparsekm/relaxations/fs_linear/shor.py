"""Shor relaxations of paper D: SMP (10), SCoP (11), SCoMP (12) (PSD blocks of order ~n)."""

from __future__ import annotations

from sparsekm.declare import Annotated, ParamError
from sparsekm.models.fs_linear import FSLinearProblem, label_big_m
from sparsekm.models.fs_linear.specs import BIG_M
from sparsekm.registry import CONIC_PSD, Export, exportable, register
from sparsekm.solvers import Result, SolverPlan

from .box import box_bound
from .common import Relaxed, budget, need_big_m, relaxed_export, solve_relaxed, xi_block

SCALING_BYTES = 2e9   # the dense scaling block of a PSD cone an interior point may hold


def check_block(name: str, n: int, order: int, blocks: int = 1) -> None:
    """Refuse a Shor relaxation whose PSD blocks an interior-point solver cannot hold: its
    scaling matrix is dense in the block's svec (order (order + 1) / 2), so SCoP on madelon's
    500 features asked for 2e12 bytes and the process aborted, past any error handling."""
    svec = order * (order + 1) // 2
    need = blocks * 8.0 * svec ** 2
    if need > SCALING_BYTES:
        raise ParamError("relaxation", name, f"on n = {n} features its PSD block of order "
                         f"{order} needs about {need:.1e} bytes in an interior-point solver; "
                         "use dscop (13) (the same bound as SCoP, Theorem 3.6) or dscomp "
                         "(14), or fewer features")


def build_smp(problem: FSLinearProblem, M: float) -> Relaxed:
    """SMP (10): Shor relaxation of BigMP, two PSD blocks of order n + 1."""
    import cvxpy as cp

    n = problem.n
    w, b, xi, loss, cons = xi_block(problem)
    Zw = cp.Variable((n + 1, n + 1), PSD=True, name="Zw")
    Zv = cp.Variable((n + 1, n + 1), PSD=True, name="Zv")
    v, W = Zv[0, 1:], Zw[1:, 1:]
    cons += [Zw[0, 0] == 1, Zv[0, 0] == 1, Zw[0, 1:] == w, cp.diag(Zv[1:, 1:]) == v,
             w <= M * v, -M * v <= w, budget(problem, cp.sum(v), problem.B, "le")]
    obj = 0.5 * cp.trace(W) + loss
    return Relaxed(cp.Problem(cp.Minimize(obj), cons), "shor-bigm", w, b, obj, v=v,
                   W=cp.diag(W), M=M, margins=cons[0],
                   certify=lambda alpha: box_bound(problem, alpha, M))  # (10) = (8)


def build_scop(problem: FSLinearProblem, M: float | None = None) -> Relaxed:
    """SCoP (11): Shor relaxation of CoP, one PSD block of order 2n + 1; with ``M`` the
    big-M set B_M (5) is added: SCoMP (12)."""
    import cvxpy as cp

    n = problem.n
    w, b, xi, loss, cons = xi_block(problem)
    Z = cp.Variable((2 * n + 1, 2 * n + 1), PSD=True, name="Z")
    u, W = Z[0, n + 1:], Z[1:n + 1, 1:n + 1]
    R, U = Z[1:n + 1, n + 1:], Z[n + 1:, n + 1:]
    cons += [Z[0, 0] == 1, Z[0, 1:n + 1] == w, cp.diag(R) == 0, cp.diag(U) == u,
             budget(problem, cp.sum(u), n - problem.B, "ge")]
    if M is not None:
        cons += [w <= M * (1 - u), -M * (1 - u) <= w]
    obj = 0.5 * cp.trace(W) + loss
    name = "shor-cop" if M is None else "shor-cop-bigm"
    return Relaxed(cp.Problem(cp.Minimize(obj), cons), name, w, b, obj, u=u, W=cp.diag(W),
                   M=M, margins=cons[0])


@register("fs-linear", "relaxation", "shor-bigm", paper="D", ref="eq. (10)",
          problem_class="SDP", aliases=("smp",))
@exportable(Export("shor-bigm", relaxed_export(lambda p, M: build_smp(p, M), big_m=True),
                   CONIC_PSD))
def smp(problem: FSLinearProblem, plan: SolverPlan, *,
        M: Annotated[float | None, BIG_M] = None) -> Result:
    """SMP (10): Shor relaxation of BigMP (equal to BoxMP (8), Theorem 3.3)."""
    check_block("shor-bigm", problem.n, problem.n + 1, blocks=2)
    return label_big_m(problem, M, solve_relaxed(
        problem, build_smp(problem, need_big_m(problem, M)), plan, "(10)"))


@register("fs-linear", "relaxation", "shor-cop", paper="D", ref="eq. (11)",
          problem_class="SDP", aliases=("scop",))
@exportable(Export("shor-cop", relaxed_export(lambda p: build_scop(p)), CONIC_PSD))
def scop(problem: FSLinearProblem, plan: SolverPlan) -> Result:
    """SCoP (11): Shor relaxation of CoP (equal to DSCoP (13), Theorem 3.6)."""
    check_block("shor-cop", problem.n, 2 * problem.n + 1)
    return solve_relaxed(problem, build_scop(problem), plan, "(11)")


@register("fs-linear", "relaxation", "shor-cop-bigm", paper="D", ref="eq. (12)",
          problem_class="SDP", aliases=("scomp",))
@exportable(Export("shor-cop-bigm", relaxed_export(lambda p, M: build_scop(p, M), big_m=True),
                   CONIC_PSD))
def scomp(problem: FSLinearProblem, plan: SolverPlan, *,
          M: Annotated[float | None, BIG_M] = None) -> Result:
    """SCoMP (12): SCoP with the big-M set B_M (5) (>= SMP and SCoP, Theorem 3.5)."""
    check_block("shor-cop-bigm", problem.n, 2 * problem.n + 1)
    return label_big_m(problem, M, solve_relaxed(
        problem, build_scop(problem, need_big_m(problem, M)), plan, "(12)"))
