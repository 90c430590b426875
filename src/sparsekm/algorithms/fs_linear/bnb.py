"""Branch and bound on the support with the perspective bound in m variables (method ``bnb``).

Not one of paper D's algorithms: a dedicated best-first branch and bound for its problem (2)
whose node bound is paper D's perspective relaxation DSCoP (13) (Lemma 4.3) in its dual form
in the m margin multipliers (:mod:`sparsekm.relaxations.fs_linear.node`), as in
Bertsimas, Pauphilet & Van Parys (2021, "Sparse classification: a scalable discrete
optimization perspective") and Hazimeh, Mazumder & Saab (2022, L0BnB: "Sparse regression at
scale: branch-and-bound rooted in first-order optimization").
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sparsekm.models.fs_linear import FSLinearProblem, support_result
from sparsekm.registry import register
from sparsekm.relaxations.fs_linear.node import NodeBound, solve_node
from sparsekm.solvers import Result, SolutionStatus, SolverPlan, Termination, relative_gap

from .common import Search, finish
from .heuristic import run_strategy

ROOT_SEARCHES = ("local-bnb", "local-search", "kernel-search", "none")


@dataclass(order=True)
class Node:
    """An open node: features ``F1`` fixed in, ``free`` undecided, budget ``k`` left; ``bound``
    a certified lower bound inherited from its parent until the node is solved."""

    bound: float
    order: int
    F1: tuple[int, ...] = field(compare=False)
    free: np.ndarray = field(compare=False)    # packed bool mask over the n features
    k: int = field(compare=False)
    W: np.ndarray = field(compare=False)       # working set to start from (int32)
    alpha: np.ndarray | None = field(compare=False, default=None)   # parent's multipliers


@dataclass
class Tree:
    """Search state: the incumbent, the open nodes and the floor of pruned bounds."""

    problem: FSLinearProblem
    plan: SolverPlan
    gap_tol: float
    ub: float = math.inf
    best: Result | None = None
    heap: list[Node] = field(default_factory=list)
    pruned_floor: float = math.inf    # least bound among parts pruned within the tolerance
    nodes: int = 0
    solves: int = 0
    fixed_in: int = 0
    fixed_out: int = 0
    counter: Any = field(default_factory=itertools.count)
    seen: dict[tuple[int, ...], float] = field(default_factory=dict)

    @property
    def cutoff(self) -> float:
        """A part whose bound exceeds this cannot improve the incumbent by the tolerance."""
        return self.ub * (1.0 - self.gap_tol) if math.isfinite(self.ub) else math.inf

    def prune(self, bound: float) -> None:
        self.pruned_floor = min(self.pruned_floor, bound)

    def lower_bound(self, extra: float = math.inf) -> float:
        """The certified bound: min over open nodes, pruned parts, ``extra`` and UB."""
        open_min = self.heap[0].bound if self.heap else math.inf
        return min(open_min, self.pruned_floor, extra, self.ub)

    def push(self, bound: float, F1: tuple[int, ...], free: np.ndarray, k: int,
             W: np.ndarray, alpha: np.ndarray | None) -> None:
        packed = np.packbits(free.astype(bool))
        a = None if alpha is None else alpha.astype(np.float32)
        heapq.heappush(self.heap, Node(bound, next(self.counter), F1, packed, k,
                                       W.astype(np.int32), a))

    candidates: np.ndarray | None = None   # features for the swap search (root ranking)
    best_key: tuple[int, ...] = ()

    def value(self, support: list[int]) -> float:
        """The SVM (1) on a support (cached); keeps it when it improves UB."""
        key = tuple(sorted(int(j) for j in support))
        if not key:
            return math.inf
        if key not in self.seen:
            res = fast_support(self.problem, list(key), self.plan)
            self.seen[key] = res.objective
            if res.objective < self.ub:
                self.ub, self.best, self.best_key = res.objective, res, key
        return self.seen[key]

    def try_support(self, support: list[int]) -> None:
        """Evaluate a support; a new incumbent is improved by the swap search."""
        before = self.ub
        self.value(support)
        if self.ub < before and self.candidates is not None:
            self.swap_search()

    def swap_search(self, share: float = 0.05) -> None:
        """First-improvement 1-swap local search from the incumbent over ``candidates``,
        within ``share`` of the remaining time (a heuristic: UB only)."""
        clock = self.plan.clock
        stop = clock.elapsed() + (share * clock.remaining() if clock.limit else 60.0)
        improved = True
        while improved and clock.elapsed() < stop:
            improved = False
            S, cur = list(self.best_key), self.ub
            for i, j in itertools.product(range(len(S)), self.candidates):
                if j in S or clock.elapsed() >= stop:
                    continue
                if self.value(S[:i] + [int(j)] + S[i + 1:]) < cur - 1e-12 * abs(cur):
                    improved = True
                    break


FAST_SVM_MAX_M = 600   # libsvm on the m x m Gram matrix up to this many samples


def fast_support(problem: FSLinearProblem, support: list[int], plan: SolverPlan) -> Result:
    """A feasible point of (2) on ``support``: the SVM (1) by libsvm's SMO on X_S X_S' (small
    m, no QP solver chosen; tol 1e-6, at most 10^5 iterations, then the optimal intercept for
    its w) or by the plan's QP solver. The objective is always recomputed exactly from
    (w, b), so it is a true upper bound; the final incumbent is re-solved by the QP solver."""
    import warnings

    from sparsekm.models.fs_linear import point_result
    from sparsekm.solvers.smo import SVMDualOptions, optimal_intercept, solve_svm_dual

    p = problem
    if plan.qp_solver is not None or p.m > FAST_SVM_MAX_M:
        return support_result(p, support, plan, method="bnb")
    XS = p.X[:, support]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = solve_svm_dual(XS @ XS.T, p.y, p.C, options=SVMDualOptions(
            tol=1e-6, max_iter=100_000, check_input=False))
    w = np.zeros(p.n)
    w[support] = XS.T @ r.values["dual_coef"]
    g = XS @ w[support]
    b = optimal_intercept(g, p.y)
    res = point_result(p, w, b, method="bnb")
    alt = point_result(p, w, float(r.values["b"]), method="bnb")
    return alt if alt.objective < res.objective else res


def _free_mask(node: Node, n: int) -> np.ndarray:
    return np.unpackbits(node.free, count=n).astype(bool)


def _screen(tree: Tree, nb: NodeBound, F1: list[int], free: np.ndarray,
            k: int) -> tuple[list[int], np.ndarray, int]:
    """Reduced-cost-like fixing at the node's alpha (valid bounds of the one-feature children).

    For j among the k largest s_j^2 of the free features, the child z_j = 0 has bound
    g + (s_j^2 - s_(k+1)^2)/2; for j outside them, the child z_j = 1 has bound
    g + (s_(k)^2 - s_j^2)/2. A child above the cutoff is pruned: j is fixed in (resp. out).
    """
    s2f = nb.s2[free]
    order = np.argsort(-s2f, kind="stable")
    sk, sk1 = s2f[order[k - 1]], s2f[order[k]]
    top = np.zeros(free.size, bool)
    top[order[:k]] = True
    out_child = nb.bound + 0.5 * (s2f - sk1)
    in_child = nb.bound + 0.5 * (sk - s2f)
    fix_in = top & (out_child > tree.cutoff)
    fix_out = ~top & (in_child > tree.cutoff)
    if fix_in.any():
        tree.prune(float(out_child[fix_in].min()))
    if fix_out.any():
        tree.prune(float(in_child[fix_out].min()))
    tree.fixed_in += int(fix_in.sum())
    tree.fixed_out += int(fix_out.sum())
    F1 = F1 + [int(j) for j in free[fix_in]]
    return F1, free[~(fix_in | fix_out)], k - int(fix_in.sum())


BRANCHING = ("fractional", "largest", "smallest")


def _branch_feature(nb: NodeBound, free: np.ndarray, rule: str) -> int | None:
    """A free feature of the working set with fractional relaxed z_j: the one closest to 1/2
    (``"fractional"``), the largest (``"largest"``) or the smallest z_j (``"smallest"``);
    None if the relaxation is integral."""
    isfree = np.isin(nb.W, free)
    if not isfree.any():
        return None
    Wf, vf = nb.W[isfree], nb.v[isfree]
    frac = np.minimum(vf, 1.0 - vf)
    if frac.max() <= 1e-6:
        return None
    score = frac if rule == "fractional" else np.where(frac > 1e-6, vf if rule == "largest"
                                                       else 1.0 - vf, -1.0)
    return int(Wf[int(np.argmax(score))])


def _leaf(tree: Tree, F1: list[int], free: np.ndarray, k: int) -> bool:
    """k = 0 or |free| <= k: the node holds one best support; evaluate it exactly."""
    if k > 0 and free.size > k:
        return False
    tree.try_support(F1 + ([int(j) for j in free] if k > 0 else []))
    return True


def _process(tree: Tree, node: Node, rule: str) -> None:
    p, n = tree.problem, tree.problem.n
    F1, free, k = list(node.F1), np.flatnonzero(_free_mask(node, n)), node.k
    if _leaf(tree, F1, free, k):
        return
    nb = solve_node(p, tree.plan, np.asarray(F1, int), free, k, ub=tree.cutoff,
                    warm=(node.W, None if node.alpha is None else node.alpha.astype(float)))
    tree.solves += nb.solves
    bound = max(nb.bound, node.bound)
    sel = nb.W[nb.v > 0.5]                                   # rounding heuristic
    rank = sel[np.argsort(-(nb.v[nb.v > 0.5] + 1e-9 * nb.s2[sel]), kind="stable")]
    pad = free[np.argsort(-nb.s2[free], kind="stable")]
    cand = list(dict.fromkeys([int(j) for j in rank] + [int(j) for j in pad]))[:k]
    tree.try_support(F1 + cand)
    if bound > tree.cutoff:
        tree.prune(bound)
        return
    F1, free, k = _screen(tree, nb, F1, free, k)
    if _leaf(tree, F1, free, k):
        return
    j = _branch_feature(nb, free, rule)
    if j is None:             # integral relaxation: its support was just evaluated; branch on
        fin = [int(i) for i in nb.W[nb.v > 0.5] if i in set(free.tolist())]   # the weakest
        j = min(fin, key=lambda i: nb.s2[i]) if fin else int(free[0])
    rest = free[free != j]
    mask = np.zeros(n, bool)
    mask[rest] = True
    tree.push(bound, tuple(F1) + (j,), mask, k - 1, nb.W_next, nb.alpha)
    tree.push(bound, tuple(F1), mask, k, nb.W_next, nb.alpha)


def _initial_incumbent(tree: Tree, root: NodeBound, search: Search, root_search: str,
                       share: float) -> None:
    """The relaxed top-B support, then Algorithm 1 or 2 ranked by the root relaxation, the
    latter within ``share`` of the remaining time (when there is a limit)."""
    from dataclasses import replace

    p, plan = tree.problem, tree.plan
    v = np.zeros(p.n)
    v[root.W] = root.v
    u = 1.0 - v - 1e-9 * root.s2 / max(float(root.s2.max()), 1e-300)   # DSCoP-style ranking
    order = np.argsort(u, kind="stable")
    tree.candidates = order[:min(p.n, p.B + 40)]
    tree.try_support(list(order[:p.B]))
    if root_search == "none" or plan.clock.expired():
        return
    rem = plan.clock.remaining()
    sub = replace(plan, time_limit=max(share * rem, 0.01) if math.isfinite(rem) else 60.0,
                  deadline=None, verbose=False).start()
    if root_search == "local-bnb":     # Algorithm 1's restricted problem, solved by bnb
        K = np.sort(order[:min(p.n, 2 * p.B + search.k)])
        if K.size > p.B:
            subp = replace(p, X=p.X[:, K], cardinality="le")
            h = bnb(subp, sub, root_search="none", gap_tol=tree.gap_tol)
            tree.try_support([int(K[j]) for j in h.selected])
        return
    h = run_strategy(p, sub, replace(search, strategy=root_search), u)
    if h.has_solution and h.selected is not None:
        tree.try_support(list(h.selected))


@register("fs-linear", "method", "bnb",
          paper="Bertsimas, Pauphilet & Van Parys (2021); Hazimeh, Mazumder & Saab (2022)",
          ref="branch and bound with the dual of (13) per node")
def bnb(problem: FSLinearProblem, plan: SolverPlan, *, search: Search = Search(),
        root_search: str = "local-bnb", heuristic_share: float = 0.25,
        gap_tol: float = 1e-4, node_limit: int | None = None, extra: int = 30,
        branching: str = "fractional", log_every: float = 5.0) -> Result:
    """Certified optimum of FS-SVM (2) (paper D) by best-first branch and bound on z.

    Node bound: the perspective relaxation DSCoP (13) of the node, certified at a feasible
    alpha by weak duality (any alpha is valid), maximised by column generation over a working
    set of features (:func:`~sparsekm.relaxations.fs_linear.node.solve_node`, the plan's
    ``relax_solver``); children inherit the parent's bound and working set. At each node:
    rounding heuristic (the relaxed support, polished by the SVM (1)), pruning at
    UB (1 - ``gap_tol``), reduced-cost-like fixing of features (:func:`_screen`), branching
    on the most fractional relaxed z_j. The root incumbent (``root_search``, at most
    ``heuristic_share`` of the time limit) comes from Algorithm 1's restricted problem on the
    2B + k best-ranked features solved by this branch and bound (``"local-bnb"``), or from
    paper D's Local Search (Algorithm 1) / Kernel Search (Algorithm 2) ranked by the root
    relaxation (``search``'s k / rho / cop_form; MIQPs by ``plan.solver`` within
    ``plan.subproblem_time_limit``); every new incumbent is improved by 1-swaps.

    The returned bound is min(open nodes, pruned parts, incumbent): valid at every stop, so a
    time or node limit returns the incumbent with its certified gap. ``extra`` records nodes,
    SOCP solves, fixings, the root bound and the open nodes left.
    """
    if root_search not in ROOT_SEARCHES:
        raise ValueError(f"root_search={root_search!r}: use one of {ROOT_SEARCHES}")
    if branching not in BRANCHING:
        raise ValueError(f"branching={branching!r}: use one of {BRANCHING}")
    if not 0 < heuristic_share <= 1:
        raise ValueError(f"heuristic_share={heuristic_share} must be in (0, 1]")
    if not 0 <= gap_tol < 1:
        raise ValueError(f"gap_tol={gap_tol} must be in [0, 1)")
    plan = plan.start()
    p, n = problem, problem.n
    tree = Tree(p, plan, gap_tol)
    root_free = np.arange(n)
    if n <= p.B:
        tree.try_support(list(range(n)))
        return _result(tree, plan, None, False)
    root = solve_node(p, plan, np.zeros(0, int), root_free, p.B, extra=extra)
    tree.solves += root.solves
    _initial_incumbent(tree, root, search, root_search, heuristic_share)
    tree.push(root.bound, (), np.ones(n, bool), p.B, root.W_next, root.alpha)
    plan.progress(f"bnb root: bound {root.bound:.6g} UB {tree.ub:.6g} "
                  f"gap {relative_gap(tree.ub, root.bound) or 0:.3e}")
    timed_out, last = False, time.perf_counter()
    while tree.heap:
        if tree.heap[0].bound > tree.cutoff:
            tree.prune(tree.heap[0].bound)
            tree.heap.clear()
            break
        if plan.clock.expired() or (node_limit is not None and tree.nodes >= node_limit):
            timed_out = plan.clock.expired()
            break
        node = heapq.heappop(tree.heap)
        tree.nodes += 1
        try:
            _process(tree, node, branching)
        except Exception:
            heapq.heappush(tree.heap, node)       # keep its bound: the result stays valid
            raise
        if plan.verbose and time.perf_counter() - last >= log_every:
            last = time.perf_counter()
            lb = tree.lower_bound()
            plan.progress(f"bnb {plan.clock.elapsed():7.1f}s nodes {tree.nodes} open "
                          f"{len(tree.heap)} LB {lb:.6g} UB {tree.ub:.6g} "
                          f"gap {relative_gap(tree.ub, lb) or 0:.3e}")
    return _result(tree, plan, root, timed_out)


def _result(tree: Tree, plan: SolverPlan, root: NodeBound | None, timed_out: bool) -> Result:
    best = tree.best
    assert best is not None and best.selected is not None
    polished = support_result(tree.problem, best.selected, plan, method="bnb")
    if polished.objective < best.objective:                   # the QP solver's 1e-10 point
        best, tree.ub = polished, polished.objective
    lb = tree.lower_bound()
    best.solution_status = SolutionStatus.FEASIBLE
    res = finish(best, "bnb", plan, lb, timed_out, nodes=tree.nodes, socp_solves=tree.solves,
                 open_nodes=len(tree.heap), fixed_in=tree.fixed_in,
                 fixed_out=tree.fixed_out, root_bound=None if root is None else root.bound,
                 supports_evaluated=len(tree.seen), gap_tol=tree.gap_tol)
    if res.termination is not Termination.TIME_LIMIT and tree.heap:
        res.termination = Termination.ITERATION_LIMIT        # node limit
    res.certify(lb, tol=tree.gap_tol)
    return res
