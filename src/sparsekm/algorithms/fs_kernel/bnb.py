"""Certified masks: best-first branch and bound over masks, both senses, poly and rbf kernels.

Problem (4) of Paper A: ``v(beta) = min_alpha f(alpha, beta)`` (the alpha-subproblem (3)) over
the masks with ``B`` features, maximised (margin sense) or minimised (paper sense, (4) as
printed). A node fixes the features ``I`` in and picks ``r`` more from the free set ``U``
(the others are out). Each node gets a certified bound (:mod:`.kernel_bounds`: the superset
bound for poly kernels in the margin sense, the subset bound in the paper sense, the box
corner for rbf in the margin sense, else the bound every mask meets); features are fixed by
their children's bounds at the node's own SVM point (Narendra and Fukunaga's monotone
bounds); a node with at most ``leaf_masks`` masks is scanned (:mod:`.mask_scan`: every mask
decided against the incumbent by certified SMO intervals, libsvm for those it cannot
decide). The first incumbent comes from LS* (Algorithm 2, fast path).

The search (best-first queue, incumbent, limits, workers, checkpoints) is the shared engine
:mod:`sparsekm.algorithms.tree`, which minimises: :class:`KernelTree` hands it ``-v`` in the
margin sense and ``v`` in the paper sense. Incumbent values are libsvm's (tol 1e-5, the
package's tolerance, as :mod:`.enumerate`); a node is pruned when its certified bound is not
better than the incumbent, so on completion no mask beats it; on the time limit the bound of
the open nodes is certified. The incumbent's search value is libsvm's ``D(alpha)``, computed in
double precision at its feasible alpha, so ``max(incumbent's D, open nodes' bounds)`` (margin
sense) is certified whatever libsvm's accuracy; the result reports the incumbent's certified
side (:func:`.evaluator.mask_result`, refined to a 1e-9 duality gap; on unscaled wine libsvm's
single-precision kernel cache made its answer 1e5 times worse than alpha = 0, and the result
says so instead of claiming it). Every SVM solve takes the time left.
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
from sparsekm.declare import Annotated, Spec
from sparsekm.models.fs_kernel import FSKernelProblem, random_masks
from sparsekm.registry import register, uses_solvers
from sparsekm.solvers import Result, SolverPlan
from sparsekm.solvers.plan import Deadline
from sparsekm.solvers.result import DEFAULT_GAP_TOL
from sparsekm.specs import SEED

from .evaluator import alpha_subproblem, mask_result, single_blas
from .kernel_bounds import ROUND, NodeBounds
from .mask_scan import BUDGET, CANDIDATE, DONE, POLY, RBF, next_combination, scan_masks
from .specs import N_SAMPLES, SVM_DUALS

LEAF_MASKS = Spec("A node with at most this many masks is scanned mask by mask (certified "
                  "SMO intervals) instead of branched (none: 1.5e5 / m within [64, 50000] for "
                  "poly kernels, 50000 for rbf).", ge=1, le=10**9)
LS_STARTS = Spec("LS* runs for the root's incumbent, from the seeded starts seed, seed + 1, "
                 "... (its result depends on the start in the paper sense).", ge=1, le=1000)
GAP_TOL = 1e-6     # the certified gap left at the end: libsvm's error at the incumbent, round-off
LEAF_SCALE = 1.5e5  # auto leaf size (poly): a node (~1.5 ms at m = 10, ~6 ms at m = 100)
                    # costs a fifth of the scan of its masks (~0.5 us each at m = 10, ~20 at
                    # 100); rbf: 50000 (its node bounds prune no node of that size)
SPLIT_DEPTH = 6     # without node bounds (rbf, paper sense) a node is split only this deep
                    # (64 nodes for the workers) and then scanned in chunks: every node has
                    # the same bound, so best-first would go breadth-first and keep
                    # millions of open nodes on a large instance
SCAN_ENTRIES = 2e6  # kernel entries per compiled scan call between two looks at the clock

__all__ = ["KernelTree", "branch_and_bound"]


class Bounder:
    """One task's work: SVM solves, node bounds and scans, in the problem's values ``v``.

    ``inc`` is the task's incumbent in the engine's values (``sign * v``: ``-v`` margin,
    ``v`` paper, starting at the search's ``ub``); its improvements go to the driver.
    """

    def __init__(self, tree: KernelTree, cache: dict, ub: float,
                 deadline: Deadline | None = None) -> None:
        self.p, self.tree, self.deadline = tree.problem, tree, deadline
        self.sign = 1.0 if self.p.sense == "paper" else -1.0
        if "nb" not in cache:
            cache["nb"] = NodeBounds(self.p)
        self.nb: NodeBounds = cache["nb"]
        self.nb.deadline = deadline
        self.inc = TaskIncumbent(ub)
        self.stats = {"svm_solves": 0, "scanned_masks": 0, "scan_smo_runs": 0,
                      "scan_candidates": 0, "fixed": 0, "pruned": 0, "pruned_masks": 0}

    @property
    def inc_v(self) -> float:
        """The task's incumbent value ``v`` (infinite in the bad direction without one)."""
        return self.sign * self.inc.ub

    def better(self, bound_v: float) -> bool:
        """True when a certified bound leaves room for a mask better than the incumbent."""
        return self.sign * bound_v < self.tree.cutoff(self.inc.ub)

    def solve(self, beta: np.ndarray) -> float:
        """libsvm at a mask (as :mod:`.enumerate`), offered to the incumbent; returns the
        mask's certified value (upper: margin, lower: paper) from the same point."""
        from sparsekm.kernels import kernel_matrix

        p = self.p
        K = kernel_matrix(p.X[:, beta], **p.kernel_params())
        alpha, _, v = alpha_subproblem(K, p.y, p.C, deadline=self.deadline)
        self.stats["svm_solves"] += 1
        self.inc.offer(self.sign * v, tuple(int(j) for j in np.flatnonzero(beta)),
                       {"mask": beta.copy(), "alpha": alpha})
        if self.nb.paper:
            return min(self.nb.certify_lower(K, alpha, tight=True), v)
        return max(self.nb.certify_upper(K, alpha)[0], v)

    def bound(self, inc: np.ndarray, free: np.ndarray, r: int) -> tuple[float, Any]:
        """The node's certified bound on ``v`` and its children's (None: none)."""
        solves = self.nb.solves
        out = self.nb.node(inc, free, r, self.inc_v)
        self.stats["svm_solves"] += self.nb.solves - solves
        return out

    def fix(self, inc: np.ndarray, free: np.ndarray, r: int, kids: Any
            ) -> tuple[np.ndarray, np.ndarray, int, Any]:
        """Fix features by their children's bounds (:mod:`.child_bounds`): a child that
        cannot beat the incumbent takes its side away (``j`` out pruned: ``j`` in; ``j`` in
        pruned: ``j`` out). Returns the node and ``(j, bound with j, bound without j)`` to
        branch on (``j`` None: the first free feature, its children keep the node's bound);
        ``r = -1`` and the node's bound when no mask is left that could be better."""
        U = np.flatnonzero(free)
        if kids is None:
            return inc, free, r, (None, None, None)
        must_in = np.array([not self.better(b) for b in kids.without_j])
        must_out = np.array([not self.better(b) for b in kids.with_j])
        if must_in.sum() > r or (~must_out).sum() < r or (must_in & must_out).any():
            e_in, e_out = self.sign * kids.without_j, self.sign * kids.with_j
            worst = min(e_in[must_in].min(initial=np.inf), e_out[must_out].min(initial=np.inf))
            return inc, free, -1, self.sign * max(worst, self.sign * kids.node)
        inc, free = inc.copy(), free.copy()
        inc[U[must_in]] = True
        free[U[must_in | must_out]] = False
        self.stats["fixed"] += int((must_in | must_out).sum())
        rest = np.flatnonzero(~(must_in | must_out))
        if rest.size == 0:
            return inc, free, r - int(must_in.sum()), (None, None, None)
        # margin: the j whose j-out child is the likeliest pruned; paper: whose j-in child
        k = rest[np.argmin(kids.without_j[rest])] if self.sign < 0 else \
            rest[np.argmax(kids.with_j[rest])]
        return (inc, free, r - int(must_in.sum()),
                (int(U[k]), float(kids.with_j[k]), float(kids.without_j[k])))

    def scan(self, node: dict[str, Any], deadline: Deadline) -> tuple[float, dict | None]:
        """Decide the node's masks from its position on: (certified bound on ``v`` over the
        masks decided, the node to resume, None when all are decided)."""
        p, nb = self.p, self.nb
        inc, free, r = node["inc"], node["free"], int(node["r"])
        U = np.flatnonzero(free).astype(np.int64)
        comb = np.array(node["comb"], np.int64) if node["comb"].size else np.arange(r)
        alpha = np.array(node["alpha"], float) if node["alpha"].size else np.zeros(p.m)
        kpar = np.array([RBF if p.kernel == "rbf" else POLY, p.gamma, p.degree, p.coef0])
        base = nb.aggregate(inc)
        acc = np.array([0.0, np.inf * self.sign, 0.0, 0.0])
        while True:
            inc_v = self.inc_v
            ctl = np.array([p.C, 1.0 if nb.paper else 0.0, inc_v,
                            ROUND * max(1.0, abs(inc_v)) if math.isfinite(inc_v) else 0.0,
                            max(16.0, SCAN_ENTRIES / p.m ** 2)])
            status = scan_masks((nb.terms, base, U, p.y), comb, kpar, alpha, ctl, acc)
            if status == CANDIDATE:
                mask = inc.copy()
                mask[U[comb]] = True
                cert = self.solve(mask)
                self.stats["scan_candidates"] += 1
                acc[1] = min(acc[1], cert) if nb.paper else max(acc[1], cert)
                if next_combination(comb, U.size) < 0:
                    status = DONE
            if status == DONE:
                break
            if status == BUDGET and deadline.expired():
                break
        self.stats["scanned_masks"] += int(acc[0])
        self.stats["scan_smo_runs"] += int(acc[3])
        if status == DONE:
            return float(acc[1]), None
        rest = dict(node, comb=comb, alpha=alpha)
        return float(acc[1]), rest


def _node(inc: np.ndarray, free: np.ndarray, r: int) -> dict[str, Any]:
    """A node: ``inc`` in, ``r`` more from ``free``; ``comb`` / ``alpha``: where a cut scan
    resumes (empty: not started)."""
    return {"inc": inc, "free": free, "r": np.int64(r), "comb": np.zeros(0, np.int64),
            "alpha": np.zeros(0)}


def _warm_up() -> None:
    """Load libsvm and compile the scan in a fresh worker."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 5))
    y = np.where(np.arange(12) % 2 == 0, 1.0, -1.0)
    for kernel, sense in (("poly", "margin"), ("rbf", "paper")):
        p = FSKernelProblem(X, y, B=2, C=1.0, kernel=kernel, sense=sense, degree=2)
        tree = KernelTree(p)
        b = Bounder(tree, {}, math.inf)
        b.scan(_node(np.zeros(5, bool), np.ones(5, bool), 2), Deadline(None))


@dataclass
class KernelTree(TreeProblem):
    """Paper A's problem (4) in either sense for the tree engine (values ``sign * v``). A node
    fixes ``inc`` in and picks ``r`` more from ``free``."""

    problem: FSKernelProblem
    seed: int = 0
    n_samples: int = 100
    leaf_masks: int | None = None
    ls_starts: int = 4
    plan: SolverPlan = SolverPlan()
    clock: Deadline | None = None   # the run's deadline, for the result's last SVM solve

    name = "bnb"
    problem_name = "fs-kernel"
    node_solver = "libsvm"
    warm_up = staticmethod(_warm_up)

    def __post_init__(self) -> None:
        paper = self.problem.sense == "paper"
        self.sense = "min" if paper else "max"
        self.gap_tol = GAP_TOL
        if self.leaf_masks is None:
            p = self.problem
            scale = LEAF_SCALE / p.m if p.kernel == "poly" else math.inf
            self.leaf_masks = int(min(max(scale, 64), 50_000))

    def key(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        p = self.problem
        return ({"X": p.X, "y": p.y}, {"B": p.B, "C": p.C, "kernel": p.kernel_params(),
                                       "sense": p.sense, "seed": self.seed,
                                       "n_samples": self.n_samples,
                                       "leaf_masks": self.leaf_masks,
                                       "ls_starts": self.ls_starts})

    def describe(self) -> str:
        p = self.problem
        return (f"fs-kernel bnb ({p.kernel}, {p.sense} sense) on m={p.m}, n={p.n}, B={p.B}, "
                f"C={p.C:g}")

    def new_cache(self) -> dict:
        return {}

    def root(self, ctx: RootContext) -> Start:
        """LS* (Algorithm 2) from ``ls_starts`` seeded starts for the first incumbent, then
        the root's bound (skipped when LS* used up the time: the root keeps the bound every
        mask meets)."""
        from .local_search import ls_star

        p = self.problem
        s = Bounder(self, {}, math.inf, ctx.plan.clock)
        clock, values = ctx.plan.clock, []
        for k in range(self.ls_starts):          # LS* is start-dependent in the paper sense
            if k and clock is not None and clock.expired():
                break
            beta0 = random_masks(p.n, p.B, 1, self.seed + k)[0]
            ls = ls_star(p, ctx.plan, beta_in=beta0, seed=self.seed + k,
                         n_samples=self.n_samples)
            s.solve(np.asarray(ls.values["beta"], bool))
            values.append(float(ls.objective))
        inc, free = np.zeros(p.n, bool), np.ones(p.n, bool)
        late = ctx.plan.clock is not None and ctx.plan.clock.expired()
        ub = s.nb.trivial if late else s.bound(inc, free, p.B)[0]
        return Start(nodes=[(s.sign * ub, _node(inc, free, p.B))], solutions=s.inc.solutions,
                     stats=dict(s.stats),
                     info={"root_bound": ub, "ls_star_objective": s.inc_v,
                           "ls_star_starts": values})

    def process(self, work: Work, node: dict[str, Any], bound: float, ub: float,
                deadline: Deadline) -> Outcome:
        """Scan a node of at most ``leaf_masks`` masks, else bound it, fix features by its
        children's bounds and branch."""
        s = Bounder(self, work.cache, ub, deadline)
        out = Outcome()
        inc, free, r = node["inc"], node["free"], int(node["r"])
        branch = (None, None, None)
        if node["comb"].size == 0 and int(free.sum()) > r > 0:
            bound_v, kids = s.bound(inc, free, r)
            before = s.nb.masks(free, r)
            if s.better(bound_v):
                inc, free, r, branch = s.fix(inc, free, r, kids)
            if not s.better(bound_v) or r < 0:
                s.stats["pruned"] += 1
                s.stats["pruned_masks"] += before
                out.pruned = s.sign * (bound_v if r >= 0 else branch)
                out.solutions, out.stats = s.inc.solutions, s.stats
                return out
            s.stats["pruned_masks"] += before - s.nb.masks(free, r)
            node = _node(inc, free, r)
            bound = max(bound, s.sign * bound_v)
        if r == 0 or int(free.sum()) == r:                   # one mask left
            out.pruned = s.sign * s.solve(inc | free if r else inc)
        elif (node["comb"].size or s.nb.masks(free, r) <= self.leaf_masks
              or (s.nb.bounded is False and self.problem.n - int(free.sum()) >= SPLIT_DEPTH)):
            cert, rest = s.scan(node, deadline)
            if math.isfinite(cert):
                out.pruned = s.sign * cert
            if rest is not None:
                out.children.append((bound, rest))
        else:
            j, b_in, b_out = branch
            kids = _children(inc, free, r, int(np.flatnonzero(free)[0]) if j is None else j)
            if j is not None:
                kids = [(max(bound, s.sign * b), c) for b, (_, c) in zip((b_in, b_out), kids)]
            out.children = [(max(bound, b), c) for b, c in kids]
        out.solutions, out.stats = s.inc.solutions, s.stats
        return out

    def point(self, best: dict[str, Any], objective: float) -> Result:
        """The incumbent mask with its SVM (alpha, b); the objective is the search's."""
        from sparsekm.kernels import kernel_matrix

        p = self.problem
        beta = np.asarray(best["mask"], bool)
        alpha, b = best.get("alpha"), None
        if alpha is None:    # a checkpoint written before incumbents kept their alpha
            alpha, b, _ = alpha_subproblem(kernel_matrix(p.X[:, beta], **p.kernel_params()),
                                           p.y, p.C, deadline=self.clock)
        return mask_result(p, beta, objective, alpha, b, "bnb", self.clock)


def _children(inc: np.ndarray, free: np.ndarray, r: int, j: int
              ) -> list[tuple[float, dict[str, Any]]]:
    """The children ``j in`` and ``j out`` (with bound -inf: the caller's)."""
    rest = free.copy()
    rest[j] = False
    with_j = inc.copy()
    with_j[j] = True
    out = [(-math.inf, _node(with_j, rest, r - 1))]
    if int(rest.sum()) >= r:
        out.append((-math.inf, _node(inc.copy(), rest.copy(), r)))
    return out


def _load() -> None:
    """The registry ``warm_up``: LS*'s compiled code (the root's incumbent, both senses),
    libsvm and the scan, loaded before the CLI's clock starts."""
    from .preload import warm_up_search

    for sense in ("margin", "paper"):
        warm_up_search("ls-star", sense)()
    _warm_up()


@register("fs-kernel", "method", "bnb", paper="A",
          ref="problem (4), Section 2.2 (per-feature kernel terms)", warm_up=_load)
@single_blas
@uses_solvers(svm=SVM_DUALS)
def branch_and_bound(problem: FSKernelProblem, plan: SolverPlan, *,
                     seed: Annotated[int, SEED] = 0,
                     n_samples: Annotated[int, N_SAMPLES] = 100,
                     leaf_masks: Annotated[int | None, LEAF_MASKS] = None,
                     ls_starts: Annotated[int, LS_STARTS] = 4,
                     tree: SearchOptions = SearchOptions()) -> Result:
    """Best-first branch and bound over masks: certified optimum of (4) in either sense, for
    the polynomial (``coef0 >= 0``) and the Gaussian kernel.

    ``seed`` / ``n_samples`` / ``ls_starts`` drive the LS* incumbent; nodes of at most
    ``leaf_masks`` masks are scanned. Runs on the tree engine
    (:mod:`sparsekm.algorithms.tree`; ``tree``: workers, checkpoint, scheduler, batch,
    node_limit, log_every). Returns the best mask with a
    certified ``bound`` (upper in the margin sense, lower in the paper sense): optimal when
    the tree is closed.
    """
    plan = plan.start()
    res = run(KernelTree(problem, seed, n_samples, leaf_masks, int(ls_starts),
                         node_plan(plan), plan.clock), plan, tree)
    res.gap_tol = DEFAULT_GAP_TOL   # the incumbent's SVM interval: optimal within the default
    return res
