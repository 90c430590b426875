"""The perspective bound of FS-SVM (2) at a branch-and-bound node, in the m margin multipliers.

A node fixes features ``F1`` in (z_j = 1), leaves ``free`` features undecided with ``k`` of the
budget B left, and drops the rest (z_j = 0). Its perspective relaxation (paper D's DSCoP (13)
with those fixings, Lemma 4.3) has the Lagrangian dual in alpha only:

    g(alpha) = 1'alpha - 1/2 sum_{j in F1} s_j^2 - 1/2 (sum of the k largest s_j^2, j free),
    s(alpha) = X'(alpha * y),  over  0 <= alpha <= C, y'alpha = 0,

so *any* feasible alpha bounds every support of the node from below (weak duality:
f(S) = max_alpha 1'alpha - 1/2 sum_{j in S} s_j^2 for each S, and g(alpha) is the minimum of
that expression over the node's supports). :func:`node_certificate` evaluates it;
:func:`solve_node` maximises g by column generation over a working set W of free features
(the dual SOCP :func:`node_dual_qp` in (alpha, tau, t), m + |W| + 1 variables, solved by any
SOCP solver of the solver layer), certifying each iterate on all free features.

References: paper D, (13) and Lemma 4.3; the dual form and its use in branch and bound follow
Bertsimas, Pauphilet & Van Parys, "Sparse classification: a scalable discrete optimization
perspective", Machine Learning 110 (2021), and Hazimeh, Mazumder & Saab, "Sparse regression at
scale: branch-and-bound rooted in first-order optimization", Math. Programming 196 (2022).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.solvers import ConicQP, SolverPlan, solve

from .node_form import (
    NATIVE_NODE,
    NodeForm,
    NodeSolution,
    NodeTask,
    column_generation,
    feasible_alpha,
    layer_solver,
    top_k_child_bounds,
    top_sum,
)

__all__ = ["NATIVE_MAX_M", "NodeBound", "PerspectiveNode", "node_certificate", "node_dual_qp",
           "solve_node", "solve_node_task", "top_sum"]

NATIVE_MAX_M = 250   # the dense interior-point path (node_ipm) up to this many samples
ROWS_EXTRA = 200    # samples added per round when the samples are shrunk (m > NATIVE_MAX_M)


NodeBound = NodeSolution     # the perspective's node solution (score = s_j(alpha)^2)


def node_certificate(problem: FSLinearProblem, alpha: np.ndarray, F1: np.ndarray,
                     free: np.ndarray, k: int) -> tuple[float, np.ndarray, np.ndarray]:
    """g(alpha) of the module docstring at the feasible point nearest ``alpha``.

    Returns (bound, the feasible alpha used, s_j^2 for all features). The bound is a lower
    bound on the objective of (2) over every support S with F1 in S, S minus F1 inside
    ``free`` and |S| <= |F1| + k.
    """
    a = feasible_alpha(problem, alpha)
    s2 = (problem.X.T @ (a * problem.y)) ** 2
    val = float(a.sum()) - 0.5 * float(s2[F1].sum()) - 0.5 * top_sum(s2[free], k)
    return val, a, s2


def node_dual_qp(problem: FSLinearProblem, F1: np.ndarray, W: np.ndarray, k: int) -> ConicQP:
    """The dual of the node's perspective relaxation on the working set W, as a SOCP.

    Variables x = (alpha (m), tau, t (|W|), r (|F1|)):
    min 1/2 ||r||^2 - 1'alpha + k tau / 2 + 1/2 sum t  s.t.  y'alpha = 0, r = X_F1'(y*alpha),
    0 <= alpha <= C, tau >= 0, t >= 0, t_j + tau >= s_j^2 (a rotated cone per j in W:
    ||((t_j + tau - 1)/2, s_j)|| <= (t_j + tau + 1)/2). Its optimum is -max g restricted to W.
    """
    import scipy.sparse as sp

    X, y, m = problem.X, problem.y, problem.m
    p, f = W.size, F1.size
    it, ir = m + 1, m + 1 + p
    nv = ir + f
    P = sp.csc_matrix((np.ones(f), (np.arange(ir, nv), np.arange(ir, nv))), shape=(nv, nv))
    q = np.concatenate([-np.ones(m), [0.5 * k], 0.5 * np.ones(p), np.zeros(f)])
    rows, cols, vals, rhs = [], [], [], []

    def add(r: np.ndarray, c: np.ndarray, v: np.ndarray) -> None:
        rows.append(np.asarray(r).ravel())
        cols.append(np.asarray(c).ravel())
        vals.append(np.asarray(v, dtype=float).ravel())

    ar = np.arange(m)
    add(np.zeros(m, int), ar, y)                                      # y'alpha = 0
    rhs.append(np.zeros(1 + f))
    if f:                                                            # r - X_F1'(y alpha) = 0
        QF = (X[:, F1] * y[:, None]).T                              # f x m
        add(np.repeat(1 + np.arange(f), m), np.tile(ar, f), -QF)
        add(1 + np.arange(f), ir + np.arange(f), np.ones(f))
    r0 = 1 + f                                                       # nonneg block
    add(r0 + ar, ar, -np.ones(m))
    add(r0 + m + ar, ar, np.ones(m))
    add([r0 + 2 * m], [m], [-1.0])
    add(r0 + 2 * m + 1 + np.arange(p), it + np.arange(p), -np.ones(p))
    rhs += [np.zeros(m), np.full(m, problem.C), np.zeros(1 + p)]
    nn = 2 * m + 1 + p
    s0 = r0 + nn                                                     # cones, 3 rows each
    base = s0 + 3 * np.arange(p)
    for off in (0, 1):
        add(base + off, it + np.arange(p), -0.5 * np.ones(p))
        add(base + off, np.full(p, m), -0.5 * np.ones(p))
    QW = (X[:, W] * y[:, None]).T                                   # p x m
    add(np.repeat(base + 2, m), np.tile(ar, p), -QW)
    rhs.append(np.tile([0.5, -0.5, 0.0], p))
    A = sp.csc_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                      shape=(s0 + 3 * p, nv))
    cones = [("zero", 1 + f), ("nonneg", nn)] + [("soc", 3)] * p
    return ConicQP(P, q, A, np.concatenate(rhs), cones,
                   names={"alpha": slice(0, m), "tau": slice(m, m + 1)},
                   name="node perspective dual")


def _selection(res: object, qp: ConicQP, W: np.ndarray, s2W: np.ndarray, k: int,
               tau: float) -> np.ndarray:
    """v on W: Clarabel's cone multipliers z0 + z1 when available, else the tie rule."""
    raw = getattr(res, "raw", None)
    z = getattr(raw, "z", None)
    if z is not None:
        z = np.asarray(z, dtype=float)
        start = qp.A.shape[0] - 3 * W.size
        if z.size == qp.A.shape[0]:
            zz = z[start:].reshape(-1, 3)
            return np.clip(zz[:, 0] + zz[:, 1], 0.0, 1.0)
    scale = max(tau, 1e-300)
    v = np.where(s2W > tau + 1e-7 * scale, 1.0, 0.0)
    tied = np.abs(s2W - tau) <= 1e-7 * scale
    if tied.any():
        v[tied] = max(0.0, min(1.0, (k - v.sum()) / tied.sum()))
    return v


def _solve_restricted(problem: FSLinearProblem, plan: SolverPlan, F1: np.ndarray,
                      W: np.ndarray, k: int, a0: np.ndarray | None,
                      R: np.ndarray | None = None,
                      ) -> tuple[np.ndarray | None, np.ndarray | None, str]:
    """(alpha, v on W, status) of the node dual restricted to W (and, when ``R`` is given, to
    the samples R: alpha_i = 0 elsewhere; alpha is returned on all m samples).

    With no ``plan.relax_solver``: the dense interior-point method of
    :mod:`sparsekm.engines.node_ipm` when m <= NATIVE_MAX_M (v = 2 x the cone multipliers),
    else the structured one of :mod:`sparsekm.engines.perspective.ipm` (v = its cone
    multipliers); with a named solver, the SOCP :func:`node_dual_qp` through the solver layer
    (any SOCP solver; v from Clarabel's multipliers or the ties).
    """
    X, y, m = problem.X, problem.y, problem.m
    if plan.relax_solver is None and m <= NATIVE_MAX_M:
        from sparsekm.engines.node_ipm import ipm_node_dual

        QW = np.ascontiguousarray((X[:, W] * y[:, None]).T)
        XF = X[:, F1] * y[:, None]
        QF = np.ascontiguousarray(XF @ XF.T)
        start = np.full(m, 1e-3 * problem.C) if a0 is None else np.asarray(a0, float)
        try:
            a, _, v, _, ok = ipm_node_dual(QW, QF, y, float(problem.C), int(k), start, 1e-8,
                                           150)
            return a, v, "optimal" if ok else "inaccurate"
        except np.linalg.LinAlgError:   # a singular Newton system (many equal columns, e.g.
            pass                        # one entry each): the structured interior point
    if plan.relax_solver is None:
        from sparsekm.engines.perspective.ipm import solve_perspective_dual

        rows = np.arange(m) if R is None else R
        Q = X[rows] * y[rows, None]
        sol = solve_perspective_dual(Q[:, W], y[rows], float(problem.C), int(k), QF=Q[:, F1],
                                     tol=1e-8)
        a = np.zeros(m)
        a[rows] = sol.alpha
        return a, sol.v, sol.status
    rows = problem if R is None else replace(problem, X=X[R], y=y[R])
    qp = node_dual_qp(rows, F1, W, k)
    res = solve(qp, solver=plan.relax_solver, time_limit=plan.clock.cap(None))
    if not res.has_solution:
        return None, None, res.status.value
    a = res.values["alpha"]
    if R is not None:
        full = np.zeros(m)
        full[R] = a
        a = full
    _, _, s2 = node_certificate(problem, a, F1, W, k)
    v = _selection(res, qp, W, s2[W], k, float(res.values["tau"][0]))
    return a, v, res.status.value


def _initial_rows(problem: FSLinearProblem, alpha0: np.ndarray | None) -> np.ndarray | None:
    """The sample working set to start from: the support of ``alpha0`` plus ROWS_EXTRA / 2
    samples of each class at random (seeded by the support size: reproducible); None (all
    samples) when m <= NATIVE_MAX_M, without warm multipliers, or when that set would hold
    more than half the samples (arrhythmia: 317 of 452, where shrinking measured 1-3x
    slower)."""
    if problem.m <= NATIVE_MAX_M or alpha0 is None:
        return None
    a0 = np.asarray(alpha0, float)
    R = np.flatnonzero(a0 > 1e-9 * problem.C)
    rng = np.random.default_rng(R.size)
    picks = [rng.choice(np.flatnonzero(problem.y == c), min(ROWS_EXTRA // 2,
                        int((problem.y == c).sum())), replace=False) for c in (-1.0, 1.0)]
    R = np.union1d(R, np.concatenate(picks))
    return R if 2 * R.size <= problem.m else None


def _violated_rows(problem: FSLinearProblem, alpha: np.ndarray, F1: np.ndarray,
                   W: np.ndarray, v: np.ndarray, R: np.ndarray) -> np.ndarray:
    """Samples outside R with positive reduced gradient of g at alpha (margin violators of the
    relaxation's hyperplane w_j = z_j s_j: z = 1 on F1, v on W, 0 elsewhere; b from the free
    multipliers), most violated first."""
    X, y, C = problem.X, problem.y, problem.C
    ay = alpha * y
    XW, XF = X[:, W], X[:, F1]
    f = XW @ (v * (XW.T @ ay)) + XF @ (XF.T @ ay)
    free_sv = (alpha > 1e-6 * C) & (alpha < C * (1 - 1e-6))
    idx = np.flatnonzero(free_sv) if free_sv.any() else np.flatnonzero(alpha > 1e-6 * C)
    b = float(np.median(y[idx] - f[idx])) if idx.size else 0.0
    viol = 1.0 - y * (f + b)
    inR = np.zeros(problem.m, bool)
    inR[R] = True
    out = np.flatnonzero(~inR & (viol > 1e-6))
    return out[np.argsort(-viol[out], kind="stable")][:ROWS_EXTRA]


def solve_node(problem: FSLinearProblem, plan: SolverPlan, F1: np.ndarray, free: np.ndarray,
               k: int, *, warm: tuple[np.ndarray | None, np.ndarray | None] = (None, None),
               ub: float = math.inf, extra: int = 30) -> NodeBound:
    """Maximise the node bound g by column generation; every iterate is certified.

    ``warm = (W0, alpha0)``, e.g. the parent's working set and multipliers.
    W starts as ``W0`` (restricted to ``free``) padded with the free features of largest s^2
    at a uniform feasible alpha, to |W| >= k + ``extra``. After each SOCP, free features
    outside W whose s_j^2 exceeds the k-th largest inside W enter (at most ``extra`` per
    round); the loop stops when none does (then alpha is optimal for the whole node up to
    the solver's tolerance), when the bound exceeds ``ub`` (the node is pruned) or after
    ``MAX_ROUNDS``. ``alpha0`` (e.g. the parent's multipliers) starts the native solver and
    ranks the padding features. When m > NATIVE_MAX_M and ``alpha0`` is given, the samples are
    shrunk the same way (row generation, as libsvm's shrinking): the SOCP keeps the support
    of ``alpha0`` plus a few samples, and margin violators of the relaxed hyperplane enter
    until none is left. Needs 0 < k < |free|.
    """
    return solve_node_task(problem, plan, NodeTask(
        np.asarray(F1, int), np.asarray(free, int), int(k), cutoff=ub, W0=warm[0],
        alpha0=warm[1], extra=extra))


def solve_node_task(problem: FSLinearProblem, plan: SolverPlan, task: NodeTask) -> NodeBound:
    """:func:`solve_node` on a :class:`~.node_form.NodeTask` (its ``cutoff`` is the ``ub`` of
    :func:`solve_node`; ``rounds`` caps the column-generation rounds)."""

    def certify(alpha: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        return node_certificate(problem, alpha, task.F1, task.free, task.k)

    def restricted(W: np.ndarray, start: np.ndarray | None, R: np.ndarray | None
                   ) -> tuple[np.ndarray | None, np.ndarray | None, str]:
        return _solve_restricted(problem, plan, task.F1, W, task.k, start, R)

    def violated(a: np.ndarray, W: np.ndarray, v: np.ndarray, R: np.ndarray) -> np.ndarray:
        return _violated_rows(problem, a, task.F1, W, v, R)

    R = _initial_rows(problem, task.alpha0)
    return column_generation(problem, task, certify, restricted,
                             rows=None if R is None else (R, violated), label=plan.relax_solver,
                             expired=plan.clock.expired)


@dataclass(frozen=True)
class PerspectiveNode(NodeForm):
    """The node form of the perspective relaxation DSCoP (13) (Lemma 4.3), in the m margin
    multipliers: the bound g(alpha) of the module docstring maximised by :func:`solve_node`;
    children reuse the multipliers (the native solver's start, the sample working set) and
    the working set of features; fixing by :func:`~.node_form.top_k_child_bounds` with
    phi = s^2 / 2."""

    ref = "(13), Lemma 4.3: its dual in the m margin multipliers"

    def solver_name(self, problem: FSLinearProblem, plan: SolverPlan) -> str:
        if plan.relax_solver is None and problem.m <= NATIVE_MAX_M:
            return NATIVE_NODE
        return plan.relax_solver or layer_solver("SOCP")

    def solve(self, problem: FSLinearProblem, plan: SolverPlan, task: NodeTask
              ) -> NodeSolution:
        return solve_node_task(problem, plan, task)

    def child_bounds(self, sol: NodeSolution, task: NodeTask
                     ) -> tuple[np.ndarray, np.ndarray]:
        return top_k_child_bounds(sol.bound, 0.5 * sol.score[task.free], task.k)
