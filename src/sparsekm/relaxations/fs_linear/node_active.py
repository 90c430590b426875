"""The perspective bound of FS-SVM (2) at a node by a primal active-set method: ``bnb``'s node
bound ``perspective-active`` (the default).

The bound is the one of :mod:`.node` (paper D's DSCoP (13) at the node, Lemma 4.3, in its
dual in the m margin multipliers): g(alpha) = 1'alpha - 1/2 sum_{F1} s_j^2 - 1/2 (the k
largest s_j^2 over the free features), certified at every feasible alpha. It is maximised by
the compiled engine :mod:`sparsekm.engines.node_active` instead of an interior point with
column generation: a primal active-set method on the node dual's pieces, warm-started from the
parent's multipliers and working set, each pivot an O(m^2) update; it stops at the cutoff,
and a stopped solve (pivot cap, time) still returns the certificate g at its feasible alpha.
On the replayed colorectal nodes it bounds a node with a fraction of the interior point's
CPU (``docs/benchmarks/fs_linear_node_engine.md``). A node without multipliers to start from
(the root) is first solved by the interior point of :mod:`.node`; a node the engine cannot
pivot through (a degenerate partition) falls back to it as well.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from sparsekm.engines.node_active import LIMIT, NUMERIC, OPTIMAL, PRUNED, node_active_set
from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.registry import register, with_node_form
from sparsekm.solvers import Result, SolverPlan

from .node import PerspectiveNode, solve_node_task
from .node_form import NodeForm, NodeSolution, NodeTask, top_k_child_bounds

__all__ = ["ActiveSetNode", "ENGINE", "active_node_task", "scaled_rows"]

ENGINE = "sparsekm node-active-set"
MAX_PIVOTS = 2000     # per node solve (the measured median on colorectal is about 30)
OMEGA = 0.8           # features within this fraction of the threshold are in the working set
CHUNK = 16            # nodes per task: a node takes about a millisecond, a message about 0.4
STATUS = {OPTIMAL: "optimal", PRUNED: "cutoff", LIMIT: "pivot limit", NUMERIC: "degenerate"}
_ROWS: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def scaled_rows(problem: FSLinearProblem) -> np.ndarray:
    """Qt = (y * X)' (n, m), row j = q_j, C-contiguous: computed once per data matrix in each
    process (the engine's one input array)."""
    key = id(problem.X)
    hit = _ROWS.get(key)
    if hit is None or hit[0] is not problem.X or hit[1].shape[1] != problem.m:
        _ROWS.clear()
        hit = (problem.X, np.ascontiguousarray((problem.X * problem.y[:, None]).T))
        _ROWS[key] = hit
    return hit[1]


def active_node_task(problem: FSLinearProblem, task: NodeTask, alpha0: np.ndarray,
                     max_pivots: int = MAX_PIVOTS) -> tuple[NodeSolution, int]:
    """The engine on ``task`` from ``alpha0`` (and the task's working set ``W0``): the node
    solution and the engine's status code."""
    Qt = scaled_rows(problem)
    F1 = np.asarray(task.F1, np.int64)
    free = np.asarray(task.free, np.int64)
    W0 = np.zeros(0, np.int64) if task.W0 is None else np.asarray(task.W0, np.int64)
    a, bound, status, pivots, prices, W, v, s_free, W_next = node_active_set(
        Qt, problem.y, float(problem.C), (F1, free, int(task.k)),
        (np.asarray(alpha0, float), W0),
        (float(task.cutoff), int(max_pivots), OMEGA, int(task.extra)))
    score = np.zeros(problem.n)
    score[free] = s_free * s_free
    if F1.size:
        score[F1] = (Qt[F1] @ a) ** 2
    sol = NodeSolution(float(bound), a, score, v, W, 1, STATUS[int(status)], W_next,
                       {"pivots": int(pivots), "pricing": int(prices)})
    return sol, int(status)


@dataclass(frozen=True)
class ActiveSetNode(NodeForm):
    """The perspective bound (13) at a node by :mod:`sparsekm.engines.node_active` (module
    docstring); the perspective's fixing rule (phi = s^2 / 2); children reuse alpha and the
    working set. ``rounds`` of a task below the column-generation default caps the pivots at
    ``pivots_per_round`` x rounds (strong branching's few warm pivots per child)."""

    ref = "(13), Lemma 4.3: its dual in the m margin multipliers, by an active-set method"
    reuse = ("multipliers",)
    chunk = CHUNK
    pivots_per_round: int = 4

    def solver_name(self, problem: FSLinearProblem, plan: SolverPlan) -> str:
        return ENGINE if plan.relax_solver is None else PerspectiveNode().solver_name(
            problem, plan)

    def solve(self, problem: FSLinearProblem, plan: SolverPlan, task: NodeTask
              ) -> NodeSolution:
        if plan.relax_solver is not None:                 # a named solver: the SOCP path
            return solve_node_task(problem, plan, task)
        if task.alpha0 is None:                           # no multipliers: the root
            first = solve_node_task(problem, plan, task)
            sol, _ = active_node_task(problem, replace(task, W0=first.W_next), first.alpha)
            return sol if sol.bound >= first.bound else first
        if plan.clock.expired():                          # the certificate at the start
            sol, _ = active_node_task(problem, task, task.alpha0, max_pivots=0)
            sol.status, sol.solves = "time limit", 0
            return sol
        cap = MAX_PIVOTS if task.rounds >= NodeTask.rounds else max(
            1, self.pivots_per_round * task.rounds)
        sol, status = active_node_task(problem, task, task.alpha0, cap)
        if status == NUMERIC:
            fallback = solve_node_task(problem, plan, replace(task, alpha0=sol.alpha))
            if fallback.bound > sol.bound:
                fallback.info["fallback"] = 1
                return fallback
        return sol

    def child_bounds(self, sol: NodeSolution, task: NodeTask
                     ) -> tuple[np.ndarray, np.ndarray]:
        return top_k_child_bounds(sol.bound, 0.5 * sol.score[task.free], task.k)


def _warm_up() -> None:
    """Compile / load the engine on a tiny seeded problem."""
    rng = np.random.default_rng(0)
    y = np.where(np.arange(12) % 2 == 0, 1.0, -1.0)
    p = FSLinearProblem(rng.standard_normal((12, 6)), y, B=2, C=1.0)
    ActiveSetNode().solve(p, SolverPlan(), NodeTask.root(p))


@register("fs-linear", "relaxation", "perspective-active", paper="D",
          ref="dual of (13), Lemma 4.3, by a primal active-set method", problem_class="SOCP",
          warm_up=_warm_up)
@with_node_form(ActiveSetNode())
def perspective_active(problem: FSLinearProblem, plan: SolverPlan) -> Result:
    """DSCoP (13)'s bound from its dual in m variables (the root node of ``bnb``'s default
    node bound): the interior point's multipliers refined by the active-set engine; certified
    at the final alpha."""
    sol = ActiveSetNode().solve(problem, plan, NodeTask.root(problem))
    out = Result(objective=sol.bound if sol.status == "optimal" else None, method=
                 "perspective-active", problem="fs-linear", problem_class="SOCP",
                 solver=ENGINE, values={"alpha": sol.alpha},
                 extra={"equation": "dual of (13)", **sol.info})
    return out.certify(sol.bound)
