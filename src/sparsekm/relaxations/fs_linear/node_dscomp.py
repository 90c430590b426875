"""The node form of DSCoMP (14): the perspective relaxation with paper D's big-M rows, as the
node bound of a branch and bound.

DSCoMP (14) adds to DSCoP (13) the rows of B_M (5), -M (1 - u_j) <= w_j <= M (1 - u_j). At a
node, with an interval I_j = [lo_j, hi_j] (lo_j <= 0 <= hi_j) bounding w_j whenever z_j = 1,
the Lagrangian dual in the m margin multipliers keeps the perspective's shape with each
s_j^2 / 2 replaced by the Huber-like psi_j(s_j) = max_{t in I_j} (s_j t - t^2 / 2) <= s_j^2 / 2:

    g(alpha) = 1'alpha - sum_{j in F1} psi_j(s_j) - (sum of the k largest psi_j(s_j), j free),

so every feasible alpha certifies a bound at least the perspective's at that alpha (Theorem 3.5
of paper D, node by node), and the fixing rule of the perspective holds with psi in place of
s^2 / 2. The intervals come from the incumbent (:mod:`.node_bigm`: valid for every support
better than it, narrowed at the root's and the parent's multipliers, so they tighten down the
tree and with each new incumbent). g is maximised by column generation
(:func:`~.node_form.column_generation`) with the big-M variant of the dense interior point
(:func:`~sparsekm.engines.node_ipm.ipm_node_dual_bigm`, m <= NATIVE_MAX_M, no solver named) or
the dual SOCP :func:`node_dscomp_qp` through the solver layer (any SOCP solver).

A consequence measured in the docs (``docs/benchmarks/fs_linear_node_bounds.md``): intervals drawn
from multipliers alpha leave the bound at alpha unchanged, so DSCoMP gains over the perspective
only where a node's optimum moves s_j out of the interval its ancestors gave.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.solvers import ConicQP, SolverPlan, solve

from .node import NATIVE_MAX_M, _selection, solve_node
from .node_bigm import bigm_certificate, incumbent_intervals
from .node_form import (
    NATIVE_NODE,
    NodeForm,
    NodeSolution,
    NodeTask,
    column_generation,
    layer_solver,
    top_k_child_bounds,
)

__all__ = ["DSCoMPNode", "node_dscomp_qp"]


def node_dscomp_qp(problem: FSLinearProblem, task: NodeTask, W: np.ndarray, lo: np.ndarray,
                   hi: np.ndarray) -> ConicQP:
    """The dual of the node's DSCoMP on the working set W (finite intervals), as a SOCP.

    Variables (alpha, tau, t, u, p, q on W, r, pF, qF on F1): min -1'alpha + k tau / 2 +
    1/2 sum t + 1/2 ||r||^2 + sum_{F1} (hi pF + |lo| qF)  s.t.  y'alpha = 0, 0 <= alpha <= C,
    u + p - q = s_W, r + pF - qF = s_F1 (s = X'(alpha y)), tau, t, p, q, pF, qF >= 0 and per
    j in W the rotated cone t_j + tau - 2 hi_j p_j - 2 |lo_j| q_j >= u_j^2 (2 psi_j(s_j) =
    min u^2 + 2 hi p + 2 |lo| q over u + p - q = s). Its optimum is -max g restricted to W.
    """
    import scipy.sparse as sp

    X, y, m, C = problem.X, problem.y, problem.m, problem.C
    F1, k = task.F1, task.k
    p, f = W.size, F1.size
    it, iu, ip, iq = m + 1, m + 1 + p, m + 1 + 2 * p, m + 1 + 3 * p
    ir, ipf, iqf = m + 1 + 4 * p, m + 1 + 4 * p + f, m + 1 + 4 * p + 2 * f
    nv = iqf + f
    Pm = sp.csc_matrix((np.ones(f), (np.arange(ir, ir + f), np.arange(ir, ir + f))),
                       shape=(nv, nv))
    q = np.zeros(nv)
    q[:m], q[m], q[it:iu] = -1.0, 0.5 * k, 0.5
    q[ipf:iqf], q[iqf:] = hi[F1], -lo[F1]
    rows, cols, vals = [], [], []

    def add(r: object, c: object, v: object) -> None:
        rows.append(np.asarray(r).ravel())
        cols.append(np.asarray(c).ravel())
        vals.append(np.asarray(v, dtype=float).ravel())

    ar, ap = np.arange(m), np.arange(p)
    add(np.zeros(m, int), ar, y)                                            # y'alpha = 0
    for start, idx, blocks in ((1, W, (iu, ip, iq)), (1 + p, F1, (ir, ipf, iqf))):
        cnt = idx.size                                  # u + p - q - X_idx'(y alpha) = 0
        if cnt:
            add(np.repeat(start + np.arange(cnt), m), np.tile(ar, cnt),
                -(X[:, idx] * y[:, None]).T)
            for b, sign in zip(blocks, (1.0, 1.0, -1.0)):
                add(start + np.arange(cnt), b + np.arange(cnt), np.full(cnt, sign))
    r0 = 1 + p + f                                                          # nonneg block
    add(r0 + ar, ar, -np.ones(m))
    add(r0 + m + ar, ar, np.ones(m))
    nonneg = np.concatenate([[m], np.arange(it, iu), np.arange(ip, ir), np.arange(ipf, nv)])
    add(r0 + 2 * m + np.arange(nonneg.size), nonneg, -np.ones(nonneg.size))
    nn = 2 * m + nonneg.size
    base = r0 + nn + 3 * ap                                                 # cones
    for off in (0, 1):
        add(base + off, it + ap, np.full(p, -0.5))
        add(base + off, np.full(p, m), np.full(p, -0.5))
        add(base + off, ip + ap, hi[W])
        add(base + off, iq + ap, -lo[W])
    add(base + 2, iu + ap, -np.ones(p))
    rhs = np.concatenate([np.zeros(r0), np.zeros(m), np.full(m, C), np.zeros(nonneg.size),
                          np.tile([0.5, -0.5, 0.0], p)])
    A = sp.csc_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                      shape=(r0 + nn + 3 * p, nv))
    cones = [("zero", r0), ("nonneg", nn)] + [("soc", 3)] * p
    return ConicQP(Pm, q, A, rhs, cones, names={"alpha": slice(0, m), "tau": slice(m, m + 1)},
                   name="node DSCoMP dual")


def _native(problem: FSLinearProblem, task: NodeTask, box: tuple[np.ndarray, np.ndarray],
            W: np.ndarray, start: np.ndarray | None
            ) -> tuple[np.ndarray | None, np.ndarray | None, str]:
    from sparsekm.engines.node_ipm import ipm_node_dual_bigm

    X, y, C = problem.X, problem.y, float(problem.C)
    lo, hi = box
    QW = np.ascontiguousarray((X[:, W] * y[:, None]).T)
    QFr = np.ascontiguousarray((X[:, task.F1] * y[:, None]).T)
    a0 = np.full(problem.m, 1e-3 * C) if start is None else np.asarray(start, float)
    a, _, v, _, ok = ipm_node_dual_bigm(QW, (lo[W], hi[W]), QFr, (lo[task.F1], hi[task.F1]),
                                        y, C, int(task.k), (a0, 1e-8, 150))
    return a, v, "optimal" if ok else "inaccurate"


def _conic(problem: FSLinearProblem, plan: SolverPlan, task: NodeTask,
           box: tuple[np.ndarray, np.ndarray], W: np.ndarray
           ) -> tuple[np.ndarray | None, np.ndarray | None, str]:
    lo, hi = box
    qp = node_dscomp_qp(problem, task, W, lo, hi)
    res = solve(qp, solver=plan.relax_solver, time_limit=plan.clock.cap(None))
    if not res.has_solution:
        return None, None, res.status.value
    a = res.values["alpha"]
    score = bigm_certificate(problem, a, task, lo, hi)[2]
    return a, _selection(res, qp, W, score[W], task.k, float(res.values["tau"][0])), \
        res.status.value


@dataclass(frozen=True)
class DSCoMPNode(NodeForm):
    """DSCoMP (14) at a node (module docstring): big-M intervals from the incumbent, the
    perspective's structure with Huber terms, the same fixing rule."""

    ref = "(14) with big-M intervals from the incumbent (valid at a node, tightened by it)"

    def solver_name(self, problem: FSLinearProblem, plan: SolverPlan) -> str:
        if plan.relax_solver is None and problem.m <= NATIVE_MAX_M:
            return f"{NATIVE_NODE} (big-M)"
        return plan.relax_solver or layer_solver("SOCP")

    def prepare(self, problem: FSLinearProblem, plan: SolverPlan, ub: float
                ) -> dict[str, np.ndarray]:
        """The root's perspective multipliers: the first centre of every node's intervals."""
        root = solve_node(problem, plan, np.zeros(0, int), np.arange(problem.n), problem.B)
        return {"alpha_root": root.alpha}

    def intervals(self, problem: FSLinearProblem, task: NodeTask
                  ) -> tuple[np.ndarray, np.ndarray]:
        """The node's intervals for w: :func:`~.node_bigm.incumbent_intervals` at the root's
        and the parent's multipliers."""
        return incumbent_intervals(problem, task, (task.context.get("alpha_root"),
                                                   task.alpha0))

    def solve(self, problem: FSLinearProblem, plan: SolverPlan, task: NodeTask
              ) -> NodeSolution:
        lo, hi = box = self.intervals(problem, task)
        native = plan.relax_solver is None and problem.m <= NATIVE_MAX_M
        if not native and not np.isfinite(hi).all():       # no incumbent yet: (13) itself
            return solve_node(problem, plan, task.F1, task.free, task.k,
                              warm=(task.W0, task.alpha0), ub=task.cutoff, extra=task.extra)

        def certify(alpha: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
            return bigm_certificate(problem, alpha, task, lo, hi)

        def restricted(W: np.ndarray, start: np.ndarray | None, R: object
                       ) -> tuple[np.ndarray | None, np.ndarray | None, str]:
            if native:
                return _native(problem, task, box, W, start)
            return _conic(problem, plan, task, box, W)

        sol = column_generation(problem, task, certify, restricted, label=plan.relax_solver,
                                expired=plan.clock.expired)
        sol.info["intervals"] = box
        return sol

    def child_bounds(self, sol: NodeSolution, task: NodeTask
                     ) -> tuple[np.ndarray, np.ndarray]:
        return top_k_child_bounds(sol.bound, 0.5 * sol.score[task.free], task.k)
