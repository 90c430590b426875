"""The perspective bound of FS-SVM (2) in m variables: any feasible alpha certifies it.

DSCoP (13) in its SOC form (Lemma 4.3) is the perspective relaxation
min 1/2 sum_j w_j^2 / (1 - u_j) + C sum xi over Xi (3), sum_j (1 - u_j) = B, 0 <= u <= 1. Its
Lagrangian dual has only the m margin multipliers alpha:

    g(alpha) = 1'alpha - 1/2 (sum of the B largest s_j(alpha)^2),   s(alpha) = X'(alpha * y),
    over 0 <= alpha <= C, y'alpha = 0,

so every feasible alpha gives a lower bound on (2) by weak duality, and max g = DSCoP (13)
= SCoP (11) (Theorem 3.6) by conic strong duality. :func:`perspective_bound` is the
certificate (used for DSCoP's bound whatever solver produced the multipliers, including a
first-order one); the relaxation ``perspective-dual`` maximises g directly: by default with the
structured interior-point method :mod:`sparsekm.engines.perspective.ipm` on a working set of
features (column generation: features whose s_j^2 exceeds the B-th largest in the set enter
until none does), or, when a solver is named, as a CVXPY model (m + n variables instead of
DSCoP's 3n + m + 1).
"""

from __future__ import annotations

import time

import numpy as np

from sparsekm.declare import Annotated, Spec, with_
from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.registry import register, with_node_form
from sparsekm.solvers import Result, SolverPlan, Termination, solve
from sparsekm.specs import THREADS

from .node import PerspectiveNode
from .node_form import feasible_alpha

__all__ = ["feasible_alpha", "perspective_bound"]


def perspective_bound(problem: FSLinearProblem, alpha: np.ndarray) -> float:
    """g(alpha) at the feasible point nearest ``alpha`` (see the module docstring): a lower
    bound on the optimum of (2)."""
    a = feasible_alpha(problem, alpha)
    s2 = (problem.X.T @ (a * problem.y)) ** 2
    top = np.partition(s2, s2.size - problem.B)[s2.size - problem.B:]
    return float(a.sum() - 0.5 * top.sum())


MARGIN_SLACK = 1.05  # with violators, samples of margin below this enter
FEAT_SLACK = 0.9     # with violators, features with s_j^2 above this x the threshold enter
ROUNDS = 20          # working-set rounds of the native path
ROWS_START = 300     # samples of the first round when m > 2 ROWS_START (seeded, both classes)
PERSPECTIVE_METHODS = ("auto", "ipm", "cvxpy")
PERSPECTIVE_METHOD = Spec("How the dual of (13) is maximised: ipm (the native interior point on "
                          "working sets of samples and features), cvxpy (a model for the plan's "
                          "relaxation solver) or auto (ipm unless a solver is named).",
                          choices=PERSPECTIVE_METHODS)
BLAS_THREADS = with_(THREADS, help="BLAS threads of the native interior point (1: fastest "
                     "measured on a loaded 2-core machine).")


def _top(values: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` largest entries (all when k >= size), largest first."""
    return np.argsort(-values, kind="stable")[:k]


def _start_rows(problem: FSLinearProblem, rows: int) -> np.ndarray:
    """All samples when m <= 2 ``rows``, else ``rows`` of them at random (seeded, each class
    in proportion, at least one of each)."""
    m = problem.m
    if m <= 2 * rows:
        return np.arange(m)
    rng = np.random.default_rng(0)
    picks = []
    for c in (-1.0, 1.0):
        idx = np.flatnonzero(problem.y == c)
        picks.append(rng.choice(idx, max(1, round(rows * idx.size / m)), replace=False))
    return np.sort(np.concatenate(picks))


def native_perspective_dual(problem: FSLinearProblem, *, extra: int = 50,
                            rows: int = ROWS_START, tol: float = 1e-9) -> Result:
    """max g by :func:`~sparsekm.engines.perspective.ipm.solve_perspective_dual` on a working
    set R of samples (alpha_i = 0 outside R) and W of features, certified on all samples and
    features at every round.

    Start: W = the B + ``extra`` largest s_j^2 at a uniform feasible alpha; R = all samples,
    or ``rows`` of them when m > 2 ``rows``. After each solve, features outside W whose s_j^2
    exceeds the B-th largest on W enter, and samples outside R whose margin under the
    relaxation's hyperplane (w, b) is below 1 (a positive reduced gradient of g at
    alpha_i = 0) enter; R becomes all samples once it would hold more than half of them.
    No violator left: alpha is optimal for the whole problem (up to the solver's tolerance).
    ``objective`` = ``bound`` = the best certificate; the extras hold the working-set sizes,
    rounds, interior-point iterations and the last relative gap.
    """
    from sparsekm.engines.perspective.ipm import solve_perspective_dual

    t0 = time.perf_counter()
    p = problem
    Q = p.X * p.y[:, None]
    a = feasible_alpha(p, np.full(p.m, 0.5 * p.C))
    s2 = (a @ Q) ** 2
    W = np.sort(_top(s2, min(p.n, p.B + extra)))
    R = _start_rows(p, rows)
    best, best_a, its, gap, status, rounds = -np.inf, a, 0, np.inf, "inaccurate", 0
    while rounds < ROUNDS:
        rounds += 1
        sol = solve_perspective_dual(Q[np.ix_(R, W)], p.y[R], p.C, min(p.B, W.size), tol=tol)
        its, gap, status = its + sol.iterations, sol.gap, sol.status
        a = np.zeros(p.m)
        a[R] = sol.alpha
        a = feasible_alpha(p, a)
        s2 = (a @ Q) ** 2
        val = float(a.sum() - 0.5 * s2[_top(s2, p.B)].sum())
        if val > best:
            best, best_a = val, a
        inW = np.zeros(p.n, bool)
        inW[W] = True
        thr = float(np.sort(s2[W])[-min(p.B, W.size)])
        viol = np.flatnonzero(~inW & (s2 > thr * (1 + 1e-9)))
        if viol.size:
            viol = np.flatnonzero(~inW & (s2 > thr * FEAT_SLACK))
        new_rows = np.zeros(0, int)
        if R.size < p.m:
            out = np.setdiff1d(np.arange(p.m), R)
            margin = p.y[out] * (p.X[np.ix_(out, W)] @ sol.w + sol.b)
            new_rows = out[margin < 1.0 - 1e-7]
            if new_rows.size:
                new_rows = out[margin < MARGIN_SLACK]
        if viol.size == 0 and new_rows.size == 0:
            break
        W = np.arange(p.n) if 2 * (W.size + viol.size) > p.n else np.union1d(W, viol)
        R = np.arange(p.m) if 2 * (R.size + new_rows.size) > p.m else np.union1d(R, new_rows)
    done = status == "optimal" or gap <= 1e-6
    # converged: the relaxation's value is the certificate's; otherwise only the bound is known
    return Result(objective=best if done else None, bound=best,
                  termination=Termination.CONVERGED if done else Termination.ITERATION_LIMIT,
                  message="" if done else "the interior point did not converge: a certified "
                  "bound, not the relaxation's value", time_s=time.perf_counter() - t0,
                  solver="sparsekm-ipm", method="perspective-dual",
                  problem="fs-linear", problem_class="SOCP", values={"alpha": best_a},
                  extra={"equation": "dual of (13)", "working_set": int(W.size),
                         "working_rows": int(R.size), "rounds": rounds,
                         "ipm_iterations": its, "ipm_relative_gap": gap})


def _warm_up() -> None:
    """Load what the native path calls (the structured interior point's LAPACK and BLAS
    wrappers) on a tiny seeded problem (20-30 ms in a fresh process)."""
    rng = np.random.default_rng(0)
    y = np.where(np.arange(40) % 2 == 0, 1.0, -1.0)
    native_perspective_dual(FSLinearProblem(rng.standard_normal((40, 6)), y, B=2, C=1.0))


@register("fs-linear", "relaxation", "perspective-dual", paper="D",
          ref="dual of (13), Lemma 4.3 + Theorem 3.6", problem_class="SOCP",
          warm_up=_warm_up, aliases=("perspective",))
@with_node_form(PerspectiveNode())
def perspective_dual(problem: FSLinearProblem, plan: SolverPlan, *,
                     method: Annotated[str, PERSPECTIVE_METHOD] = "auto",
                     blas_threads: Annotated[int, BLAS_THREADS] = 1) -> Result:
    """DSCoP (13)'s bound from its dual in m variables, certified at the solver's alpha.

    ``method="ipm"``: the native interior-point method with working sets of samples and
    features (:func:`native_perspective_dual`); ``"cvxpy"``: a CVXPY model for the plan's
    relaxation solver; ``"auto"`` (default): the native method unless a solver is named
    (measured 10-60x faster than DSCoP by Clarabel with the same bound on the Table-6 sets:
    benchmarks/results/fs_linear_perspective.md). The native method runs with
    ``blas_threads`` BLAS threads (default 1: with two OpenBLAS threads on the loaded 2-core
    machine madelon took 43-57 s instead of 4.7 s; on an idle machine two threads gain at
    most 2x on its matrix products).
    """
    if method == "ipm" or (method == "auto" and plan.relax_solver is None):
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=blas_threads, user_api="blas"):
            return native_perspective_dual(problem)
    import cvxpy as cp

    p = problem
    alpha = cp.Variable(p.m, name="alpha")
    s = p.X.T @ cp.multiply(alpha, p.y)
    obj = cp.sum(alpha) - 0.5 * cp.sum_largest(cp.square(s), p.B)
    prob = cp.Problem(cp.Maximize(obj), [alpha >= 0, alpha <= p.C, p.y @ alpha == 0])
    res = solve(prob, solver=plan.relax_solver, time_limit=plan.clock.cap(None))
    out = Result(objective=res.objective, termination=res.termination,
                 time_s=res.time_s, solver=res.solver,
                 version=res.version, method="perspective-dual", problem="fs-linear",
                 problem_class=res.problem_class, message=res.message,
                 extra={"equation": "dual of (13)"})
    if alpha.value is not None:
        a = feasible_alpha(p, alpha.value)
        out.values = {"alpha": a}
        out.certify(perspective_bound(p, a))
    return out
