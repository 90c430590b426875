"""The node form of BoxMP (8): the continuous relaxation of BigMP (6) as a node bound.

At a node (F1 in, ``free`` undecided with k of the budget left, the rest out) with intervals
I_j = [lo_j, hi_j] bounding w_j when z_j = 1 (the big-M rows, per feature, from the incumbent:
:mod:`.node_bigm`), BoxMP (8) reads

    min 1/2 ||w||^2 + C 1'xi  over Xi (3),  w_j in I_j (j in F1),  lo_j v_j <= w_j <= hi_j v_j,
    0 <= v_j <= 1 (j free),  sum_free v <= k,  w_j = 0 otherwise.

Its Lagrangian dual in the margin multipliers alpha and the budget multiplier tau >= 0 is

    g(alpha, tau) = 1'alpha - sum_{F1} psi_j(s_j) - tau k - sum_{free} phi_j(s_j, tau),
    phi_j(s, tau) = max(psi_j^+(s - tau / hi_j), psi_j^-(s + tau / |lo_j|)),

with psi_j(s) = max_{t in I_j} (s t - t^2 / 2), psi^+ (psi^-) the same over [0, hi_j]
([lo_j, 0]) (the minimum over w_j, v_j = |w_j| / M of 1/2 w_j^2 - s_j w_j + tau v_j; box.py's
phi_M for a symmetric M). Every (alpha, tau) certifies a bound (weak duality); the solver's
alpha is certified at the best tau (a one-dimensional concave maximisation: sum_j v_j(tau) = k
by bisection). Theorem 3.1 of paper D predicts the weakness: with a large M the bound is the
SVM (1)'s. The QP is solved on a working set of free features (column generation: features
with phi_j > 0 at the certificate enter) by the solver layer (Clarabel by default: the margin
rows' multipliers are its duals). Fixing rule: at the same (alpha, tau), the child "j out"
gains phi_j and the child "j in" gains tau + phi_j - psi_j (when positive).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.solvers import ConicQP, SolverPlan, solve

from .node import solve_node
from .node_bigm import huber, incumbent_intervals
from .node_form import NodeForm, NodeSolution, NodeTask, feasible_alpha, layer_solver

__all__ = ["BoxNode", "box_node_certificate", "node_box_qp"]


def _phi(s: np.ndarray, tau: float, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray,
                                                                            np.ndarray]:
    """(phi_j(s_j, tau), v_j(tau) = |t_j*| / M_j) of the module docstring, elementwise."""
    with np.errstate(divide="ignore", invalid="ignore"):
        up = np.where(hi > 0, s - tau / hi, -np.inf)
        dn = np.where(lo < 0, s + tau / np.abs(lo), np.inf)
        tp = np.clip(up, 0.0, hi)
        tn = np.clip(dn, lo, 0.0)
        fp = np.where(hi > 0, tp * up - 0.5 * tp * tp, 0.0)
        fn = np.where(lo < 0, tn * dn - 0.5 * tn * tn, 0.0)
        vp = np.where(hi > 0, tp / hi, 0.0)
        vn = np.where(lo < 0, tn / lo, 0.0)
    take_p = fp >= fn
    return np.where(take_p, fp, fn), np.where(take_p, vp, vn)


def box_node_certificate(problem: FSLinearProblem, alpha: np.ndarray, task: NodeTask,
                         box: tuple[np.ndarray, np.ndarray]
                         ) -> tuple[float, np.ndarray, np.ndarray, float]:
    """max over tau of g(alpha, tau) at the feasible alpha nearest ``alpha`` (the module
    docstring): (bound, feasible alpha, phi at the best tau for all features, that tau)."""
    lo, hi = box
    a = feasible_alpha(problem, alpha)
    s = problem.X.T @ (a * problem.y)
    sf, lof, hif = s[task.free], lo[task.free], hi[task.free]
    k = task.k
    lo_t, hi_t = 0.0, float(np.max(np.maximum(hif * np.maximum(sf, 0), -lof * np.minimum(sf, 0)),
                                   initial=0.0)) + 1e-300
    if _phi(sf, 0.0, lof, hif)[1].sum() > k:          # sum v(tau) = k, v nonincreasing
        for _ in range(100):
            mid = 0.5 * (lo_t + hi_t)
            if _phi(sf, mid, lof, hif)[1].sum() > k:
                lo_t = mid
            else:
                hi_t = mid
        tau = hi_t
    else:
        tau = 0.0
    phi = np.zeros(problem.n)
    phi[task.free] = _phi(sf, tau, lof, hif)[0]
    val = float(a.sum()) - float(huber(s[task.F1], lo[task.F1], hi[task.F1]).sum()) \
        - tau * k - float(phi.sum())
    return val, a, phi, tau


def node_box_qp(problem: FSLinearProblem, task: NodeTask, W: np.ndarray,
                box: tuple[np.ndarray, np.ndarray]) -> ConicQP:
    """BoxMP (8) at the node on the working set W, as a QP: variables (w_F1, w_W, b, xi, v_W);
    every row a nonnegative-cone row, the m margin rows first (their multipliers are alpha),
    the budget row last (its multiplier is tau)."""
    import scipy.sparse as sp

    lo, hi = box
    X, y, m, C = problem.X, problem.y, problem.m, problem.C
    F = np.concatenate([task.F1, W]).astype(int)
    f, p, nf = task.F1.size, W.size, task.F1.size + W.size
    ix, iv = nf + 1, nf + 1 + m
    nv = iv + p
    P = sp.csc_matrix((np.ones(nf), (np.arange(nf), np.arange(nf))), shape=(nv, nv))
    q = np.zeros(nv)
    q[ix:iv] = C
    Yx = X[:, F] * y[:, None]
    blocks = [sp.hstack([sp.csc_matrix(-Yx), sp.csc_matrix(-y[:, None]), -sp.eye(m),
                         sp.csc_matrix((m, p))])]                  # margins
    rhs = [-np.ones(m)]
    blocks.append(sp.hstack([sp.csc_matrix((m, nf + 1)), -sp.eye(m), sp.csc_matrix((m, p))]))
    rhs.append(np.zeros(m))
    eF = sp.eye(nf, format="csc")[:f]
    zF = sp.csc_matrix((f, 1 + m + p))
    blocks += [sp.hstack([eF, zF]), sp.hstack([-eF, zF])]        # lo <= w_F1 <= hi
    rhs += [hi[task.F1], -lo[task.F1]]
    eW = sp.eye(nf, format="csc")[f:]
    zW = sp.csc_matrix((p, 1 + m))
    blocks += [sp.hstack([eW, zW, sp.diags(-hi[W])]),              # w - hi v <= 0
               sp.hstack([-eW, zW, sp.diags(lo[W])]),              # lo v - w <= 0
               sp.hstack([sp.csc_matrix((p, nf + 1 + m)), sp.eye(p)]),
               sp.hstack([sp.csc_matrix((p, nf + 1 + m)), -sp.eye(p)]),
               sp.hstack([sp.csc_matrix((1, nf + 1 + m)), sp.csc_matrix(np.ones((1, p)))])]
    rhs += [np.zeros(p), np.zeros(p), np.ones(p), np.zeros(p), [float(task.k)]]
    A = sp.vstack(blocks, format="csc")
    return ConicQP(P, q, A, np.concatenate(rhs), [("nonneg", A.shape[0])],
                   names={"w": slice(0, nf), "v": slice(iv, nv)}, name="node BoxMP (8)")


def _restricted(problem: FSLinearProblem, plan: SolverPlan, task: NodeTask,
                box: tuple[np.ndarray, np.ndarray], W: np.ndarray
                ) -> tuple[np.ndarray | None, np.ndarray | None, str]:
    qp = node_box_qp(problem, task, W, box)
    res = solve(qp, solver=plan.relax_solver, time_limit=plan.clock.cap(None))
    z = getattr(getattr(res, "raw", None), "z", None)
    if not res.has_solution or z is None:
        if res.has_solution:
            raise RuntimeError(f"the box node bound needs the margin rows' multipliers; "
                               f"{res.solver} gave none (use --relax-solver clarabel)")
        return None, None, res.status.value
    return np.asarray(z, float)[:problem.m], np.clip(res.values["v"], 0.0, 1.0), \
        res.status.value


@dataclass(frozen=True)
class BoxNode(NodeForm):
    """BoxMP (8) at a node (module docstring) with the incumbent's big-M intervals."""

    ref = "(8) with big-M intervals from the incumbent (valid at a node)"

    def solver_name(self, problem: FSLinearProblem, plan: SolverPlan) -> str:
        return plan.relax_solver or layer_solver("QP")

    def prepare(self, problem: FSLinearProblem, plan: SolverPlan, ub: float
                ) -> dict[str, np.ndarray]:
        """The root's perspective multipliers, the first centre of the intervals."""
        root = solve_node(problem, plan, np.zeros(0, int), np.arange(problem.n), problem.B)
        return {"alpha_root": root.alpha}

    def solve(self, problem: FSLinearProblem, plan: SolverPlan, task: NodeTask
              ) -> NodeSolution:
        if not math.isfinite(task.ub):        # no incumbent yet: f(w = 0, b = 0) = C m
            task = replace(task, ub=float(problem.C * problem.m))
        box = incumbent_intervals(problem, task, (task.context.get("alpha_root"),
                                                  task.alpha0))
        n, free, k = problem.n, task.free, task.k
        in_free = np.zeros(n, bool)
        in_free[free] = True
        W = np.zeros(0, int) if task.W0 is None else \
            np.asarray(task.W0, int)[in_free[np.asarray(task.W0, int)]]
        a0 = np.full(problem.m, problem.C / 2) if task.alpha0 is None else task.alpha0
        score0 = box_node_certificate(problem, a0, task, box)[2]
        W = _grow(W, free, score0, max(min(free.size, k + task.extra) - W.size, 0))
        best, status = None, "no solution"
        for rnd in range(1, max(task.rounds, 1) + 1):
            if plan.clock.expired():
                status = "time limit"
                break
            alpha, v, status = _restricted(problem, plan, task, box, W)
            if alpha is None or v is None:
                break
            cert = box_node_certificate(problem, alpha, task, box)
            val, phi = cert[0], cert[2]
            if best is None or val > best.bound:
                best = _solution(problem, cert, box, (v, W.copy()), status)
            best.solves = rnd
            inW = np.zeros(n, bool)
            inW[W] = True
            viol = free[~inW[free] & (phi[free] > 1e-12 * max(abs(val), 1.0))]
            if val > task.cutoff or viol.size == 0:
                break
            W = _grow(W, viol, phi, task.extra)
        if best is None and plan.clock.expired():   # weak duality at the start: still a bound
            best = _solution(problem, box_node_certificate(problem, a0, task, box), box,
                             (np.zeros(W.size), W.copy()), status)
            best.solves = 0
        if best is None:
            raise RuntimeError(f"the box node relaxation failed ({status})")
        best.W_next = np.union1d(best.W[best.v > 1e-6],
                                 _grow(np.zeros(0, int), free, best.score, k + task.extra))
        return best

    def child_bounds(self, sol: NodeSolution, task: NodeTask
                     ) -> tuple[np.ndarray, np.ndarray]:
        phi, psi, tau = sol.info["phi"][task.free], sol.info["psi"][task.free], sol.info["tau"]
        g = sol.bound
        return g + phi, np.maximum(g, g + tau + phi - psi)


def _solution(problem: FSLinearProblem, cert: tuple[float, np.ndarray, np.ndarray, float],
              box: tuple[np.ndarray, np.ndarray], vW: tuple[np.ndarray, np.ndarray],
              status: str) -> NodeSolution:
    """The node solution of a certificate (bound, feasible alpha, phi, tau) of
    :func:`box_node_certificate`, with the relaxed selection v on the working set W."""
    val, a, phi, tau = cert
    psi = huber(problem.X.T @ (a * problem.y), *box)
    return NodeSolution(val, a, 2.0 * psi, vW[0], vW[1], 1, status,
                        info={"phi": phi, "tau": tau, "psi": psi})


def _grow(W: np.ndarray, cand: np.ndarray, score: np.ndarray, count: int) -> np.ndarray:
    """``W`` plus the ``count`` candidates outside it of largest score."""
    inW = np.zeros(score.size, bool)
    inW[W] = True
    c = cand[~inW[cand]]
    return np.concatenate([W, c[np.argsort(-score[c], kind="stable")][:count]]).astype(int)
