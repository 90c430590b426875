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
CPU (``docs/benchmarks/fs_linear_node_bounds.md``). A node without multipliers to start from
(the root) is first solved by the interior point of :mod:`.node`, then polished by the engine
from those multipliers; a node the engine cannot pivot through (a degenerate partition, or
one it cycles on without raising its bound) goes the same way. The engine runs on tall data
as well (m in the thousands): a solve is read in chunks of pivots, each continuing from the
last one's state, so the pivot cap can grow with m without losing the clock.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from sparsekm import declare
from sparsekm.engines.node_active import (
    LIMIT,
    NUMERIC,
    OPTIMAL,
    PRUNED,
    node_active_set,
    probe,
    restrict,
    resume_active_set,
)
from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.registry import register, with_node_form
from sparsekm.solvers import Result, SolverPlan

from .node import PerspectiveNode, solve_node_task
from .node_form import NodeForm, NodeSolution, NodeTask, member, top_k_child_bounds

__all__ = ["ActiveSetNode", "ENGINE", "active_node_task", "column_norms", "ksupport_square",
           "relaxation_primal", "scaled_rows"]

ENGINE = "sparsekm node-active-set"
MAX_PIVOTS = 2000     # per node solve (the measured median on colorectal is about 30)
CHUNK = 100           # pivots between reads of the clock and checks of progress
PIVOTS_PER_SAMPLE = 10  # the pivot cap on tall data (:func:`pivot_cap`)
SNAP = 1e-6           # the interior point's multipliers this close to a bound start at it
SAME = 1e-7           # relative: a bound this close to the interior point's is as good
PATIENCE = 2          # chunks in a row without a higher bound: the solve has stalled
MAX_M = 3000          # samples up to which the engine bounds the nodes: Q and R hold (m + 1)^2
                      # entries each, and a partition with most samples free (an interior
                      # start) costs O(m^2) a pivot; measured up to m = 2,000 (madelon, mfeat)
OMEGA = 0.8           # features within this fraction of the threshold are in the working set
PROBE_PIVOTS = 8      # pivots per child of strong branching (probes from the node's state)
STATUS = {OPTIMAL: "optimal", PRUNED: "cutoff", LIMIT: "pivot limit", NUMERIC: "degenerate"}
_DATA = threading.local()


def _entry(problem: FSLinearProblem) -> dict[str, Any]:
    """This thread's cache of the problem's data (one entry: X and y, held so that their
    identity stays theirs, Qt and the column norms once computed). Per thread because
    in-process Dask workers are threads with their own problem copies sharing X; one entry
    holds Qt and its norms together, so norms never outlive their Qt."""
    hit = getattr(_DATA, "entry", None)
    if hit is None or hit["X"] is not problem.X or hit["y"] is not problem.y:
        hit = {"X": problem.X, "y": problem.y, "norms": None,
               "Qt": np.ascontiguousarray((problem.X * problem.y[:, None]).T)}
        _DATA.entry = hit
    return hit


def scaled_rows(problem: FSLinearProblem) -> np.ndarray:
    """Qt = (y * X)' (n, m), row j = q_j, C-contiguous: computed once per data matrix and
    labels in each thread (the engine's one input array)."""
    return _entry(problem)["Qt"]


def active_node_task(problem: FSLinearProblem, task: NodeTask, alpha0: np.ndarray,
                     max_pivots: int = MAX_PIVOTS, packed: np.ndarray | None = None
                     ) -> tuple[NodeSolution, int]:
    """The engine on ``task`` from ``alpha0`` (and the task's working set ``W0``), or
    continued from ``packed`` (``info["packed"]`` of a call on the same task): the node
    solution and the engine's status code."""
    Qt = scaled_rows(problem)
    F1 = np.asarray(task.F1, np.int64)
    free = np.asarray(task.free, np.int64)
    node = (F1, free, int(task.k))
    opts = (float(task.cutoff), int(max_pivots), OMEGA, int(task.extra))
    if packed is None:
        W0 = np.zeros(0, np.int64) if task.W0 is None else np.asarray(task.W0, np.int64)
        out = node_active_set(Qt, problem.y, float(problem.C), node,
                              (np.asarray(alpha0, float), W0), opts)
    else:
        out = resume_active_set(Qt, problem.y, float(problem.C), node, packed, opts)
    a, bound, status, pivots, prices, W, v, s_free, W_next, state, at, score = out
    info = {"pivots": int(pivots), "pricing": int(prices), "packed": state}
    if at:          # the engine's final state is at alpha: strong branching forks it
        info["state"] = (state, s_free, (F1, free, int(task.k)))
    sol = NodeSolution(float(bound), a, score, v, W, 1, STATUS[int(status)], W_next, info)
    return sol, int(status)


def _engine(problem: FSLinearProblem, plan: SolverPlan, task: NodeTask, alpha0: np.ndarray,
            cap: int, patience: int = PATIENCE) -> tuple[NodeSolution, int]:
    """:func:`active_node_task` in chunks of ``CHUNK`` pivots (at most ``cap`` in all): the
    clock is read between chunks, and ``patience`` chunks in a row that
    do not raise the bound end the solve (many equal |s_j|, e.g. 1,200 svmlight columns of
    one entry each on 200 rows: 2,000 pivots took 25 s without moving the bound past its
    value after 200, under a 20 s limit). Each chunk continues from the last one's final state
    (:func:`~sparsekm.engines.node_active.resume_active_set`); the best chunk is kept. (g
    at the pricing passes is not monotone: features outside the working set cross the
    threshold between them; on arrhythmia one chunk in about ten peaks below the one before,
    then the next passes it.)"""
    sol, status = active_node_task(problem, task, alpha0, min(cap, CHUNK))
    done, last, last_status, idle = min(cap, CHUNK), sol, status, 0
    while last_status == LIMIT and done < cap and not plan.clock.expired():
        step = min(cap - done, CHUNK)
        nxt, last_status = active_node_task(problem, task, last.alpha, step,
                                            packed=last.info.pop("packed"))
        done += step
        nxt.info["pivots"] += last.info["pivots"]
        nxt.info["pricing"] += last.info["pricing"]
        tol = 1e-9 * max(1.0, abs(sol.bound))
        stalled = nxt.bound <= sol.bound + tol
        last = nxt
        if nxt.bound >= sol.bound or (last_status != LIMIT and nxt.bound >= sol.bound - tol):
            sol, status = nxt, last_status
        idle = idle + 1 if stalled else 0
        if idle == patience:
            break
    sol.info["pivots"], sol.info["pricing"] = last.info["pivots"], last.info["pricing"]
    sol.info.pop("packed", None)
    last.info.pop("packed", None)
    return sol, status


def pivot_cap(m: int) -> int:
    """The pivots a node solve may take: MAX_PIVOTS, or PIVOTS_PER_SAMPLE per sample on tall
    data (a node of arrhythmia, m = 452, took up to 3,342 pivots from its parent's alpha)."""
    return max(MAX_PIVOTS, PIVOTS_PER_SAMPLE * m)


def _polished(problem: FSLinearProblem, plan: SolverPlan, task: NodeTask, cap: int,
              patience: int = PATIENCE) -> NodeSolution:
    """The interior point's node solution, then the engine from its multipliers (the
    better of the two): the root, and a node the engine stalled on. The engine's alpha
    leaves the samples at their bounds and comes with its final state, so the node's
    children start from a point with few free samples, and strong branching probes from
    that state (from the interior point's alpha, all m samples are free: on madelon, m =
    2,000, the first 100 pivots took 10 s). The interior point's alpha is read at the bounds
    within SNAP x C first (there, 1,499 samples sit within 1e-8 x C of theirs: the engine
    then takes 812 pivots, 3.9 s, instead of stalling after 300 in 24 s). The engine's
    solution is kept when its bound is within SAME (relative) of the interior point's: its
    state saves strong branching 32 solves from the node's alpha. Its bound starts at the
    optimum, so at the root (``patience = cap``) chunks that do not raise it do not end this
    solve: the clean state is the point (on madelon, stopping after two such chunks left
    ~500 free samples, and the children then stalled: 6.7 s a child against the interior
    point's 1.1 s); below the root (a stalled node) the usual PATIENCE holds."""
    first = solve_node_task(problem, plan, task)
    C = float(problem.C)
    a = np.where(first.alpha <= SNAP * C, 0.0,
                 np.where(first.alpha >= (1 - SNAP) * C, C, first.alpha))
    sol, _ = _engine(problem, plan, replace(task, W0=first.W_next), a, cap, patience)
    return sol if sol.bound >= first.bound - SAME * max(1.0, abs(first.bound)) else first


def column_norms(problem: FSLinearProblem) -> np.ndarray:
    """||q_j|| = ||x_j|| for every feature (the probes' bound on the features they skip),
    cached beside the problem's Qt."""
    hit = _entry(problem)
    if hit["norms"] is None:
        hit["norms"] = np.sqrt((hit["Qt"] * hit["Qt"]).sum(axis=1))
    return hit["norms"]


def ksupport_square(w: np.ndarray, k: int) -> float:
    """Omega_k(w) = min sum_j w_j^2 / v_j over 0 <= v <= 1, sum v <= k: the perspective
    relaxation's regulariser with the budget (the squared k-support norm of Argyriou,
    Foygel & Srebro 2012). With |w| sorted down, the r largest get v = 1 and the rest
    v_j = |w_j| / theta, theta = (sum of the rest) / (k - r), for the r with
    |w|_(r) >= theta > |w|_(r+1)."""
    a = np.sort(np.abs(w[w != 0]))[::-1]
    if a.size <= k:
        return float(a @ a)
    tail = np.cumsum(a[::-1])[::-1]                # tail[r] = sum of a[r:]
    head = np.concatenate([[0.0], np.cumsum(a * a)])
    for r in range(k):
        theta = tail[r] / (k - r)
        if (r == 0 or a[r - 1] >= theta) and theta > a[r] * (1 - 1e-12):
            return float(head[r] + tail[r] * theta)
    return float(head[k - 1] + tail[k - 1] ** 2)


def relaxation_primal(problem: FSLinearProblem, task: NodeTask, sol: NodeSolution) -> float:
    """An upper bound on the node's perspective relaxation (13): its primal objective
    1/2 sum_{F1} w_j^2 + 1/2 Omega_k(w_free) + C sum_i max(0, 1 - y_i (x_i'w + b)) at the
    hyperplane of the solution's multipliers (w_j = s_j on F1, z_j s_j on the working set,
    the best b). Every certified bound of the node is at most this; the difference is the
    node solve's duality gap."""
    from sparsekm.engines.linear_svm import best_intercept

    X, y = problem.X, problem.y
    s = (X.T @ (sol.alpha * y))
    w = np.zeros(problem.n)
    w[task.F1] = s[task.F1]
    inside = np.isin(sol.W, task.free)
    w[sol.W[inside]] = sol.v[inside] * s[sol.W[inside]]
    f = X @ w
    b = float(best_intercept(f, y))
    hinge = np.maximum(0.0, 1.0 - y * (f + b)).sum()
    return float(0.5 * (w[task.F1] @ w[task.F1]) + 0.5 * ksupport_square(w[task.free], task.k)
                 + problem.C * hinge)


@dataclass(frozen=True)
class ActiveSetNode(NodeForm):
    """The perspective bound (13) at a node by :mod:`sparsekm.engines.node_active` (module
    docstring); the perspective's fixing rule (phi = s^2 / 2); children reuse alpha and the
    working set. ``rounds`` of a task below the column-generation default caps the pivots at
    ``pivots_per_round`` x rounds (strong branching's few warm pivots per child)."""

    ref = "(13), Lemma 4.3: its dual in the m margin multipliers, by an active-set method"
    reuse = ("multipliers",)
    pairs = True
    probe_pivots: int = declare.field(
        PROBE_PIVOTS, "pivots per child in strong branching's probes (each child's bound is "
        "certified whatever the pivots; fewer: cheaper nodes, looser child bounds)", ge=1,
        le=MAX_PIVOTS)
    pivots_per_round: int = 4

    def solver_name(self, problem: FSLinearProblem, plan: SolverPlan) -> str:
        if self.fast(problem, plan):
            return ENGINE
        return PerspectiveNode().solver_name(problem, plan)

    def fast(self, problem: FSLinearProblem, plan: SolverPlan) -> bool:
        """The engine bounds the nodes (no solver named, m <= MAX_M): about a millisecond a
        node on colorectal, and strong branching's children from the node's own state. On
        tall data too (arrhythmia, madelon, mfeat: m = 452-2,000), where a child of the root costs
        1.6-16.2 times less CPU than the interior point's on average
        (``benchmarks/results/fs_linear_node_tall.md``)."""
        return plan.relax_solver is None and problem.m <= MAX_M

    def solve(self, problem: FSLinearProblem, plan: SolverPlan, task: NodeTask
              ) -> NodeSolution:
        if not self.fast(problem, plan):                  # the interior point's path
            return solve_node_task(problem, plan, task)
        cap = pivot_cap(problem.m)
        if task.alpha0 is None:                           # no multipliers: the root
            return _polished(problem, plan, task, cap, patience=cap)
        if plan.clock.expired():                          # the certificate at the start
            sol, _ = active_node_task(problem, task, task.alpha0, max_pivots=0)
            sol.status, sol.solves = "time limit", 0
            sol.info.pop("packed")
            return sol
        full = task.rounds >= NodeTask.rounds
        sol, status = _engine(problem, plan, task, task.alpha0, cap if full else max(
            1, self.pivots_per_round * task.rounds))
        if status == NUMERIC or (status == LIMIT and full
                                 and not plan.clock.expired()):   # stalled: cycling
            fallback = _polished(problem, plan, replace(task, alpha0=sol.alpha), cap)
            if fallback.bound > sol.bound:
                fallback.info["fallback"] = 1
                return fallback
        return sol

    def child_bounds(self, sol: NodeSolution, task: NodeTask
                     ) -> tuple[np.ndarray, np.ndarray]:
        return top_k_child_bounds(sol.bound, 0.5 * sol.score[task.free], task.k)

    def probe(self, problem: FSLinearProblem, plan: SolverPlan, sol: NodeSolution,
              task: NodeTask, cands: np.ndarray, rounds: int
              ) -> tuple[np.ndarray, np.ndarray, int]:
        """The children's bounds from the engine's final state at the node (no new
        factorisation: :func:`~sparsekm.engines.node_active.probe`; after fixings, that
        state restricted to the fixed node: :func:`_held`), at most ``pivots_per_round`` x
        ``rounds`` pivots each; the generic per-child solves when a child is a leaf or the
        state is not at alpha. Each child's last multipliers go to ``sol.info["starts"]``
        (feature: (in, out)), its warm start when the node branches on that feature."""
        k, free = task.k, task.free
        held = None if k <= 1 or free.size - 1 <= k or cands.size == 0 else _held(
            problem, sol, task)
        if held is None:
            return super().probe(problem, plan, sol, task, cands, rounds)
        state, s_free = held
        outs, ins, pivots, starts = probe(
            scaled_rows(problem), problem.y, float(problem.C),
            (np.asarray(task.F1, np.int64), np.asarray(free, np.int64), int(k)),
            (state, sol.alpha, s_free), np.asarray(cands, np.int64),
            (max(1, min(self.probe_pivots, self.pivots_per_round * rounds)), OMEGA,
             column_norms(problem)))
        sol.info["probe_pivots"] = sol.info.get("probe_pivots", 0) + int(pivots)
        sol.info["starts"] = {int(j): (starts[1, c], starts[0, c])
                              for c, j in enumerate(cands.tolist())}
        return outs, ins, 2 * int(cands.size)


def _held(problem: FSLinearProblem, sol: NodeSolution, task: NodeTask
          ) -> tuple[Any, np.ndarray] | None:
    """The engine's final state at ``sol`` and s over the free features, for ``task``: the
    solved node itself, or that node after fixings (``task`` keeps its F1 and free set
    less the fixed features; the fixed-in ones join F1): the state restricted by
    :func:`~sparsekm.engines.node_active.restrict`. None without a state or for another
    node."""
    held = sol.info.get("state")
    if held is None:
        return None
    state, s_free, (F1, free, k) = held
    if F1.size == task.F1.size and free.size == task.free.size:
        return state, s_free
    n = problem.n
    keep = member(free, task.free, n)
    fixed = free[~keep]
    sides = member(fixed, task.F1, n).astype(np.int64)
    if (keep.sum() != task.free.size or F1.size + sides.sum() != task.F1.size
            or k - sides.sum() != task.k or not member(F1, task.F1, n).all()):
        return None
    return restrict(scaled_rows(problem), float(problem.C), state, fixed, sides, int(k)), \
        s_free[keep]


def _warm_up() -> None:
    """Compile / load the engine on a tiny seeded problem: a node's solve, strong branching's
    probes from its state, and that state restricted to the node after a fixing (``bnb``'s
    path; without the probes, a first tree on a fresh machine compiled them in each worker
    during its time limit)."""
    rng = np.random.default_rng(0)
    y = np.where(np.arange(12) % 2 == 0, 1.0, -1.0)
    p = FSLinearProblem(rng.standard_normal((12, 8)), y, B=3, C=1.0)
    form, plan, root = ActiveSetNode(), SolverPlan(), NodeTask.root(p)
    first = form.solve(p, plan, root)
    sol, _ = active_node_task(p, root, first.alpha)
    active_node_task(p, root, sol.alpha, 1, packed=sol.info.pop("packed"))   # a resumed chunk
    form.probe(p, plan, sol, root, np.arange(3), 1)
    _held(p, sol, NodeTask(root.F1, root.free[1:], root.k))


@register("fs-linear", "relaxation", "perspective-active", paper="D",
          ref="dual of (13), Lemma 4.3, by a primal active-set method", problem_class="SOCP",
          warm_up=_warm_up)
@with_node_form(ActiveSetNode())
def perspective_active(problem: FSLinearProblem, plan: SolverPlan) -> Result:
    """DSCoP (13)'s bound from its dual in m variables (the root node of ``bnb``'s default
    node bound): the interior point's multipliers refined by the active-set engine; certified
    at the final alpha. The objective is the relaxation's primal value at the hyperplane of
    those multipliers (:func:`relaxation_primal`), so "optimal" is the duality gap's verdict."""
    root = NodeTask.root(problem)
    sol = ActiveSetNode().solve(problem, plan, root)
    out = Result(objective=relaxation_primal(problem, root, sol), method=
                 "perspective-active", problem="fs-linear", problem_class="SOCP",
                 solver=ENGINE, values={"alpha": sol.alpha},
                 extra={"equation": "dual of (13)", **sol.info})
    return out.certify(sol.bound)
