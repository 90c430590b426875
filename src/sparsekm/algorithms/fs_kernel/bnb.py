"""Certified masks past enumeration: best-first branch and bound over masks (margin sense).

Problem (4) of Paper A in the margin sense, ``max_{|beta| = B} v(beta)`` with ``v(beta) =
min_alpha f(alpha, beta)``. A node fixes features in (``I``) and out; ``r = B - |I|`` more come
from the free set ``U``. Two bounds, both from feasible alphas:

* superset (Narendra-Fukunaga): for the polynomial kernel with ``c >= 0``, ``K_beta = (gamma
  S_beta + c)^d`` (entrywise) grows in the PSD order as features are added (``S_beta`` is a
  sum of PSD ``g_j``; Schur products and sums keep PSD), so ``f(alpha, beta) <= f(alpha, I u
  U)`` for every alpha and ``v(beta) <= v(I u U)``: one SVM on the node's features;
* fixed alpha: ``v(beta) <= f(alpha, beta)`` for every feasible alpha, maximised over the
  node's masks (:mod:`.node_bound`; the Section 2.2 quadratic for d = 2, exact for small free
  sets), at the superset's alpha and at the SVM solutions of a few candidate masks, which
  also feed the incumbent.

The first incumbent comes from LS* (Algorithm 2, fast path). Nodes are explored best bound
first (ties: creation order, so the run is deterministic) and branched on a free feature of
the candidate mask. The search (queue, incumbent, limits, workers, checkpoints) is the shared
engine :mod:`sparsekm.algorithms.tree`, which minimises: :class:`KernelTree` hands it
``-v``.

The search's incumbent value is libsvm's ``D(alpha) >= v(beta)``; a node is pruned when its
bound is at most it, so ``bound = max(incumbent's D, open nodes' bounds)`` is certified at every
stop whatever libsvm's accuracy. The result reports the incumbent's certified value ``-P <=
v(beta)`` (:func:`.evaluator.mask_result`, refined to a 1e-9 duality gap), so a closed tree's
gap is libsvm's error at the incumbent (optimal within the default tolerance 1e-4; on unscaled
wine libsvm's single-precision kernel cache made it 1e5 times worse than alpha = 0, and the
result says so instead of claiming it). Every SVM solve takes the time left.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from sparsekm.algorithms.tree import (
    Outcome,
    RootContext,
    SearchOptions,
    Start,
    TaskIncumbent,
    TreeProblem,
    Work,
    node_plan,
    run,
)
from sparsekm.declare import Annotated, ParamError, Spec
from sparsekm.models.fs_kernel import FSKernelProblem, random_masks
from sparsekm.registry import register, uses_solvers
from sparsekm.solvers import Result, SolverPlan
from sparsekm.solvers.plan import Deadline
from sparsekm.solvers.result import DEFAULT_GAP_TOL
from sparsekm.specs import SEED

from .evaluator import alpha_subproblem, mask_key, mask_result, single_blas
from .node_bound import node_bound
from .specs import N_SAMPLES, SVM_DUALS

ROUNDS = Spec("SVM solves at candidate masks per node tightening its fixed-alpha bound.",
              ge=0, le=1000)

__all__ = ["KernelTree", "branch_and_bound"]


class Bounder:
    """One task's SVM solves and node bounds: the worker's cache of solved masks (``solved``,
    mask -> (v, alpha); it only saves time) and the task's incumbent ``inc`` (the engine's
    values ``-v``, starting at the search's ``ub``), whose improvements go to the driver."""

    def __init__(self, p: FSKernelProblem, rounds: int, solved: dict, ub: float,
                 deadline: Deadline | None = None) -> None:
        from sparsekm.kernels import kernel_matrix

        self.p, self.rounds, self.solved, self.deadline = p, rounds, solved, deadline
        self.inc = TaskIncumbent(ub)
        self._km = kernel_matrix
        self.stats = {"svm_solves": 0, "pruned": 0, "leaves": 0}

    @property
    def best_v(self) -> float:
        """The task's incumbent value in the margin sense."""
        return -self.inc.ub

    def solve(self, beta: np.ndarray) -> tuple[float, np.ndarray]:
        """``(v, alpha)`` at a mask (libsvm, cached); a mask of B features at least as good
        as the task's incumbent is offered to the driver (ties: the smaller support)."""
        key = mask_key(beta)
        if key not in self.solved:
            K = self._km(self.p.X[:, beta], **self.p.kernel_params())
            alpha, _, v = alpha_subproblem(K, self.p.y, self.p.C, deadline=self.deadline)
            self.solved[key] = (v, alpha)
            self.stats["svm_solves"] += 1
        v, alpha = self.solved[key]
        if int(beta.sum()) == self.p.B:
            self.inc.offer(-v, tuple(int(j) for j in np.flatnonzero(beta)),
                           {"mask": beta.copy(), "alpha": alpha})
        return v, alpha

    def bound(self, inc: np.ndarray, free: np.ndarray, r: int, ub: float,
              alpha: np.ndarray | None) -> tuple[float, np.ndarray, np.ndarray | None]:
        """Tighten the parent's bound ``ub`` (cheapest first, stopping once it prunes):
        ``max f(alpha, .)`` over the node at the parent's alpha (no SVM solve), ``v(I u U)``,
        then at the SVM solutions of up to ``rounds`` candidate masks; returns (bound, best
        alpha, its candidate mask)."""
        best_alpha, best_cand = alpha, None
        if alpha is not None:
            ub, best_cand = self._fixed(inc, free, r, alpha, ub)
            if ub <= self.best_v:
                return ub, alpha, best_cand
        v_sup, alpha = self.solve(inc | free)  # superset bound: v is monotone (poly kernels)
        if v_sup < ub or best_alpha is None:
            best_alpha = alpha
        ub = min(ub, v_sup)
        for _ in range(self.rounds + 1):
            if ub <= self.best_v:
                break
            b, cand = self._fixed(inc, free, r, alpha, math.inf)
            if b < ub or best_cand is None:
                best_alpha, best_cand = alpha, cand
            ub = min(ub, b)
            if cand is None or ub <= self.best_v:
                break
            a = self.solve(cand)[1]
            if a is alpha:
                break
            alpha = a
        return ub, best_alpha, best_cand

    def _fixed(self, inc: np.ndarray, free: np.ndarray, r: int, alpha: np.ndarray,
               ub: float) -> tuple[float, np.ndarray | None]:
        b, cand = node_bound(self.p, alpha, inc, free, r)
        b += 1e-9 * max(1.0, abs(b))  # round-off of f(alpha, .) and of y'alpha = 0
        return min(ub, b), cand


def _children(node: dict[str, Any]) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """(inc, free, r) of the children ``j in`` and ``j out``, ``j`` the first free feature
    of the node's candidate mask (else the first free feature)."""
    inc0, free0, r0, cand = node["inc"], node["free"], int(node["r"]), node.get("cand")
    pick = np.flatnonzero(free0 if cand is None else cand & free0)
    j = int(pick[0]) if pick.size else int(np.flatnonzero(free0)[0])
    free = free0.copy()
    free[j] = False
    inc = inc0.copy()
    inc[j] = True
    out = [(inc, free.copy(), r0 - 1)]
    if int(free.sum()) >= r0:
        out.append((inc0.copy(), free, r0))
    return out


def _node(inc: np.ndarray, free: np.ndarray, r: int, alpha: np.ndarray,
          cand: np.ndarray | None) -> dict[str, Any]:
    return {"inc": inc, "free": free, "r": np.int64(r), "alpha": alpha, "cand": cand}


def _warm_up() -> None:
    """Load libsvm and the kernel code in a fresh worker."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 4))
    p = FSKernelProblem(X, np.where(np.arange(12) % 2 == 0, 1.0, -1.0), B=2, C=1.0,
                        kernel="poly", sense="margin", degree=2)
    Bounder(p, 0, {}, math.inf).solve(np.array([True, True, False, False]))


@dataclass
class KernelTree(TreeProblem):
    """Paper A's margin-sense problem (4) for the tree engine (values negated: it minimises
    ``-v``). A node fixes ``inc`` in and picks ``r`` more from ``free``; bounding a node
    bounds its two children."""

    problem: FSKernelProblem
    rounds: int = 2
    seed: int = 0
    n_samples: int = 100
    plan: SolverPlan = SolverPlan()
    clock: Deadline | None = None   # the run's deadline, for the result's last SVM solve

    name = "bnb"
    problem_name = "fs-kernel"
    sense = "max"              # the engine minimises -v
    gap_tol = 0.0              # prune a node whose bound is at most the incumbent
    node_solver = "libsvm"
    warm_up = staticmethod(_warm_up)

    def key(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        p = self.problem
        return ({"X": p.X, "y": p.y}, {"B": p.B, "C": p.C, "kernel": p.kernel_params(),
                                       "rounds": self.rounds, "seed": self.seed,
                                       "n_samples": self.n_samples})

    def describe(self) -> str:
        p = self.problem
        return f"fs-kernel bnb on m={p.m}, n={p.n}, B={p.B}, C={p.C:g}"

    def new_cache(self) -> dict[bytes, tuple[float, np.ndarray]]:
        return {}

    def root(self, ctx: RootContext) -> Start:
        """LS* (Algorithm 2) for the first incumbent, then the root's bound (when LS* used up
        the time, only its cheapest part: ``max f(alpha, .)`` at the incumbent's alpha)."""
        from .local_search import ls_star

        p = self.problem
        s = Bounder(p, self.rounds, {}, math.inf, ctx.plan.clock)
        beta0 = random_masks(p.n, p.B, 1, self.seed)[0]
        inc0 = ls_star(p, ctx.plan, beta_in=beta0, seed=self.seed, n_samples=self.n_samples)
        v0, alpha0 = s.solve(inc0.values["beta"])
        root_inc, root_free = np.zeros(p.n, bool), np.ones(p.n, bool)
        clock = ctx.plan.clock
        if clock is not None and clock.expired():   # the superset SVM took 1 s on german
            (ub, cand), alpha = s._fixed(root_inc, root_free, p.B, alpha0, math.inf), alpha0
        else:
            ub, alpha, cand = s.bound(root_inc, root_free, p.B, math.inf, alpha0)
        return Start(nodes=[(-ub, _node(root_inc, root_free, p.B, alpha, cand))],
                     solutions=s.inc.solutions, stats=dict(s.stats),
                     info={"root_bound": ub, "ls_star_objective": v0})

    def process(self, work: Work, node: dict[str, Any], bound: float, ub: float,
                deadline: Deadline) -> Outcome:
        """Bound the node's two children (a child with one mask left is solved)."""
        s = Bounder(self.problem, self.rounds, work.cache, ub, deadline)
        out = Outcome()
        for inc, free, r in _children(node):
            if r == 0 or int(free.sum()) == r:  # one mask left: solve it
                s.stats["leaves"] += 1
                s.solve(inc | free if r else inc)
                continue
            u, alpha, cand = s.bound(inc, free, r, -bound, node["alpha"])
            if u <= s.best_v:
                s.stats["pruned"] += 1
                out.pruned = min(out.pruned, -u)
                continue
            out.children.append((-u, _node(inc, free, r, alpha, cand)))
        out.solutions, out.stats = s.inc.solutions, s.stats
        return out

    def point(self, best: dict[str, Any], objective: float) -> Result:
        """The incumbent mask with its SVM (alpha, b); the objective is the search's."""
        p = self.problem
        beta = np.asarray(best["mask"], bool)
        alpha, b = best.get("alpha"), None
        if alpha is None:    # a checkpoint written before incumbents kept their alpha
            K = Bounder(p, 0, {}, math.inf)._km(p.X[:, beta], **p.kernel_params())
            alpha, b, _ = alpha_subproblem(K, p.y, p.C, deadline=self.clock)
        return mask_result(p, beta, objective, alpha, b, "bnb", self.clock)


@register("fs-kernel", "method", "bnb", paper="A",
          ref="problem (4), Section 2.2 (per-feature kernel terms)")
@single_blas
@uses_solvers(svm=SVM_DUALS)
def branch_and_bound(problem: FSKernelProblem, plan: SolverPlan, *,
                     seed: Annotated[int, SEED] = 0,
                     n_samples: Annotated[int, N_SAMPLES] = 100,
                     rounds: Annotated[int, ROUNDS] = 2,
                     tree: SearchOptions = SearchOptions()) -> Result:
    """Best-first branch and bound over masks, superset and fixed-alpha bounds (margin, poly).

    ``seed`` / ``n_samples`` drive the LS* incumbent; ``rounds`` SVM solves per node tighten
    its bound. Runs on the tree engine (:mod:`sparsekm.algorithms.tree`; ``tree``: workers,
    checkpoint, scheduler, batch, node_limit, log_every). Returns the best mask with a
    certified upper ``bound`` (the margin sense maximizes): optimal when the tree is closed.
    """
    p = problem
    if p.sense != "margin":
        raise ParamError("sense", p.sense, "method bnb certifies the margin sense (max over "
                         "masks of min_alpha f): use margin, or enumerate for the paper sense")
    if p.kernel != "poly":
        raise ParamError("kernel", p.kernel, "method bnb needs the polynomial kernel (its "
                         "bounds use that K_beta grows in the PSD order with beta, false for "
                         "rbf): use poly, or enumerate / ls-star")
    plan = plan.start()
    res = run(KernelTree(p, int(rounds), seed, n_samples, node_plan(plan), plan.clock), plan,
              tree)
    res.gap_tol = DEFAULT_GAP_TOL   # pruned at the incumbent; optimal within the default
    return res
