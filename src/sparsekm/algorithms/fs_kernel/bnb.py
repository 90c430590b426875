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
the candidate mask.

The incumbent value is libsvm's (at most ``m C tol`` above the exact optimum of its mask, the
same tolerance as every method of the package); a node is pruned when its bound is at most the
incumbent, so on completion no mask beats the incumbent by more than that tolerance, and on the
time limit ``bound = max(incumbent, open nodes' bounds)`` is certified.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field

import numpy as np

from sparsekm.models.fs_kernel import FSKernelProblem, random_masks
from sparsekm.registry import register
from sparsekm.solvers import Result, SolutionStatus, SolverPlan, Termination

from .evaluator import alpha_subproblem, mask_key, mask_result, single_blas
from .node_bound import node_bound

__all__ = ["branch_and_bound"]


@dataclass(order=True)
class Node:
    """A node: ``-bound`` first for the heap, then the creation counter (determinism)."""

    key: float
    count: int
    inc: np.ndarray = field(compare=False)  # features fixed in
    free: np.ndarray = field(compare=False)  # features still free
    r: int = field(compare=False)  # how many more to pick from ``free``
    alpha: np.ndarray = field(compare=False)  # the alpha of its best bound
    cand: np.ndarray | None = field(compare=False)  # the bound's pick (a mask of the node)


class Search:
    """Incumbent, solved masks and node bounding of one branch-and-bound run."""

    def __init__(self, p: FSKernelProblem, plan: SolverPlan, rounds: int) -> None:
        from sparsekm.kernels import kernel_matrix

        self.p, self.plan, self.rounds = p, plan, rounds
        self._km = kernel_matrix
        self.solved: dict[bytes, tuple[float, np.ndarray]] = {}
        self.best_v, self.best_beta = -math.inf, None
        self.stats = {"nodes": 0, "svm_solves": 0, "pruned": 0, "leaves": 0}

    def solve(self, beta: np.ndarray) -> tuple[float, np.ndarray]:
        """``(v, alpha)`` at a mask (libsvm, cached); a mask of B features may become the
        incumbent (ties: the smaller key)."""
        key = mask_key(beta)
        if key not in self.solved:
            K = self._km(self.p.X[:, beta], **self.p.kernel_params())
            alpha, _, v = alpha_subproblem(K, self.p.y, self.p.C)
            self.solved[key] = (v, alpha)
            self.stats["svm_solves"] += 1
            if int(beta.sum()) == self.p.B and (
                    v > self.best_v or (v == self.best_v and key < mask_key(self.best_beta))):
                self.best_v, self.best_beta = v, beta.copy()
        return self.solved[key]

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


def _children(node: Node) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """(inc, free, r) of the children ``j in`` and ``j out``, ``j`` the first free feature
    of the node's candidate mask (else the first free feature)."""
    pick = np.flatnonzero(node.free if node.cand is None else node.cand & node.free)
    j = int(pick[0]) if pick.size else int(np.flatnonzero(node.free)[0])
    free = node.free.copy()
    free[j] = False
    inc = node.inc.copy()
    inc[j] = True
    out = [(inc, free.copy(), node.r - 1)]
    if int(free.sum()) >= node.r:
        out.append((node.inc.copy(), free, node.r))
    return out


@register("fs-kernel", "method", "bnb", paper="A",
          ref="problem (4), Section 2.2 (per-feature kernel terms)")
@single_blas
def branch_and_bound(problem: FSKernelProblem, plan: SolverPlan, *, seed: int = 0,
                     n_samples: int = 100, rounds: int = 2) -> Result:
    """Best-first branch and bound over masks, superset and fixed-alpha bounds (margin, poly).

    ``seed`` / ``n_samples`` drive the LS* incumbent; ``rounds`` SVM solves per node tighten
    its bound. Returns the best mask with a certified upper ``bound`` (``status`` optimal when
    the tree is closed, time_limit otherwise).
    """
    p = problem
    if p.sense != "margin":
        raise ValueError("method 'bnb' certifies the margin sense (max over masks of min_alpha "
                         f"f); got sense={p.sense!r}: use sense='margin', or 'enumerate' for "
                         "the paper sense")
    if p.kernel != "poly":
        raise ValueError("method 'bnb' needs the polynomial kernel (its bounds use that "
                         "K_beta grows in the PSD order with beta, false for rbf); got "
                         f"kernel={p.kernel!r}: use kernel='poly', or 'enumerate' / 'ls-star'")
    plan = plan.start()
    from .local_search import ls_star

    s = Search(p, plan, int(rounds))
    beta0 = random_masks(p.n, p.B, 1, seed)[0]
    inc0 = ls_star(p, plan, beta_in=beta0, seed=seed, n_samples=n_samples)
    v0, alpha0 = s.solve(inc0.values["beta"])
    root_inc, root_free = np.zeros(p.n, bool), np.ones(p.n, bool)
    ub, alpha, cand = s.bound(root_inc, root_free, p.B, math.inf, alpha0)
    root_bound, count = ub, 0
    heap = [Node(-ub, count, root_inc, root_free, p.B, alpha, cand)]
    timed_out = False
    while heap:
        if plan.clock.expired():
            timed_out = True
            break
        node = heapq.heappop(heap)
        if -node.key <= s.best_v:
            s.stats["pruned"] += 1 + len(heap)
            heap = []
            break
        s.stats["nodes"] += 1
        for inc, free, r in _children(node):
            if r == 0 or int(free.sum()) == r:  # one mask left: solve it
                s.stats["leaves"] += 1
                s.solve(inc | free if r else inc)
                continue
            ub, alpha, cand = s.bound(inc, free, r, -node.key, node.alpha)
            if ub <= s.best_v:
                s.stats["pruned"] += 1
                continue
            count += 1
            heapq.heappush(heap, Node(-ub, count, inc, free, r, alpha, cand))
    bound = max([s.best_v] + [-n.key for n in heap])
    v, alpha = s.solved[mask_key(s.best_beta)]
    K = s._km(p.X[:, s.best_beta], **p.kernel_params())
    alpha, b, _ = alpha_subproblem(K, p.y, p.C)
    res = mask_result(p, s.best_beta, v, alpha, b, "bnb")
    res.certify(bound)
    if not timed_out:
        res.solution_status = SolutionStatus.OPTIMAL
    res.termination = Termination.TIME_LIMIT if timed_out else Termination.CONVERGED
    res.time_s = plan.clock.elapsed()
    res.extra = {**s.stats, "root_bound": root_bound, "ls_star_objective": v0,
                 "open_nodes": len(heap)}
    return res
