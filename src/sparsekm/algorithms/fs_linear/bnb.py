"""Branch and bound on the support with the perspective bound in m variables (method ``bnb``).

Not one of paper D's algorithms: a dedicated best-first branch and bound for its problem (2)
whose node bound is paper D's perspective relaxation DSCoP (13) (Lemma 4.3) in its dual form
in the m margin multipliers (:mod:`sparsekm.relaxations.fs_linear.node`), as in
Bertsimas, Pauphilet & Van Parys (2021, "Sparse classification: a scalable discrete
optimization perspective") and Hazimeh, Mazumder & Saab (2022, L0BnB: "Sparse regression at
scale: branch-and-bound rooted in first-order optimization"). The search itself (queue,
incumbent, limits, workers, checkpoints) is the shared engine :mod:`sparsekm.algorithms.tree`;
this module is paper D's side of it (:class:`LinearTree`), the heuristics are in
:mod:`.bnb_heuristics`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from sparsekm import declare
from sparsekm.algorithms.tree import (
    Outcome,
    RootContext,
    SearchOptions,
    Start,
    TreeProblem,
    Work,
    node_plan,
    run,
)
from sparsekm.declare import Annotated
from sparsekm.models.fs_linear import FSLinearProblem, support_result
from sparsekm.registry import register
from sparsekm.relaxations.fs_linear.node import NATIVE_MAX_M, NodeBound, solve_node
from sparsekm.solvers import Result, SolverPlan, relative_gap
from sparsekm.solvers.plan import Deadline
from sparsekm.specs import GAP_TOL

from .bnb_heuristics import ROOT_SEARCHES, Incumbent, fast_support, root_incumbent, support_value
from .bnb_heuristics import RootContext as HeuristicContext
from .common import Search
from .fast import warm_up as fast_warm_up

__all__ = ["BRANCHING", "LinearTree", "NodeRules", "ROOT_SEARCHES", "RootSearch", "bnb",
           "fast_support"]

BRANCHING = ("fractional", "largest", "smallest")


def _screen(nb: NodeBound, F1: list[int], free: np.ndarray, k: int, cutoff: float,
            out: Outcome) -> tuple[list[int], np.ndarray, int]:
    """Reduced-cost-like fixing at the node's alpha (valid bounds of the one-feature children).

    For j among the k largest s_j^2 of the free features, the child z_j = 0 has bound
    g + (s_j^2 - s_(k+1)^2)/2; for j outside them, the child z_j = 1 has bound
    g + (s_(k)^2 - s_j^2)/2. A child at or above the cutoff is pruned (into ``out.pruned``):
    j is fixed in (resp. out).
    """
    s2f = nb.s2[free]
    order = np.argsort(-s2f, kind="stable")
    sk, sk1 = s2f[order[k - 1]], s2f[order[k]]
    top = np.zeros(free.size, bool)
    top[order[:k]] = True
    out_child = nb.bound + 0.5 * (s2f - sk1)
    in_child = nb.bound + 0.5 * (sk - s2f)
    fix_in = top & (out_child >= cutoff)
    fix_out = ~top & (in_child >= cutoff)
    if fix_in.any():
        out.pruned = min(out.pruned, float(out_child[fix_in].min()))
    if fix_out.any():
        out.pruned = min(out.pruned, float(in_child[fix_out].min()))
    out.stats["fixed_in"] = out.stats.get("fixed_in", 0) + int(fix_in.sum())
    out.stats["fixed_out"] = out.stats.get("fixed_out", 0) + int(fix_out.sum())
    F1 = F1 + [int(j) for j in free[fix_in]]
    return F1, free[~(fix_in | fix_out)], k - int(fix_in.sum())


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


def _node(F1: tuple[int, ...] | list[int], free: np.ndarray, n: int, k: int, W: np.ndarray,
          alpha: np.ndarray | None) -> dict[str, Any]:
    """A node as plain data: F1 fixed in, the free features (packed mask), the budget k left,
    the working set and multipliers to start from."""
    mask = np.zeros(n, bool)
    mask[free] = True
    return {"F1": np.asarray(F1, np.int32), "free": np.packbits(mask), "k": np.int64(k),
            "W": np.asarray(W, np.int32),
            "alpha": None if alpha is None else np.asarray(alpha, np.float32)}


def _split(items: list[Any], k: int) -> list[list[Any]]:
    """``items`` in at most ``k`` contiguous parts of near-equal size (one task per worker)."""
    cuts = np.linspace(0, len(items), min(k, len(items)) + 1).astype(int)
    return [items[a:b] for a, b in zip(cuts[:-1], cuts[1:])]


def _flatten(parts: Any) -> list[Any]:
    return [x for part in parts for x in part]


def _warm_up() -> None:
    """Load the node solver's and the linear SVM's compiled code (numba caches)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((12, 4))
    y = np.where(np.arange(12) % 2 == 0, 1.0, -1.0)
    p = FSLinearProblem(X, y, B=2, C=1.0)
    solve_node(p, SolverPlan(), np.zeros(0, int), np.arange(4), 2)
    fast_support(p, [0, 1], SolverPlan())
    fast_warm_up()                    # the root heuristic ``fast``


@dataclass
class LinearTree(TreeProblem):
    """Paper D's problem (2) for the tree engine: a node fixes ``F1`` in, leaves ``free``
    undecided with budget ``k``; its bound is the node's perspective relaxation."""

    problem: FSLinearProblem
    plan: SolverPlan
    gap_tol: float = 1e-4
    branching: str = "fractional"
    extra: int = 30
    root_search: str = "fast"
    search: Search = Search()
    heuristic_share: float = 0.25
    swap_passes: int = 10
    candidates: np.ndarray | None = None

    name = "bnb"
    problem_name = "fs-linear"
    sense = "min"
    warm_up = staticmethod(_warm_up)

    @property
    def node_solver(self) -> str:  # type: ignore[override]
        if self.plan.relax_solver is None and self.problem.m <= NATIVE_MAX_M:
            return "native-ipm"
        return self.plan.relax_solver or "default-socp"

    def key(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        p = self.problem
        return ({"X": p.X, "y": p.y},
                {"C": p.C, "B": p.B, "cardinality": p.cardinality, "gap_tol": self.gap_tol,
                 "branching": self.branching, "extra": self.extra,
                 "root_search": self.root_search, "search": repr(self.search),
                 "swap_passes": self.swap_passes, "relax_solver": self.plan.relax_solver,
                 "qp_solver": self.plan.qp_solver})

    def describe(self) -> str:
        p = self.problem
        return f"fs-linear bnb on m={p.m}, n={p.n}, B={p.B}, C={p.C:g}"

    def new_cache(self) -> dict[tuple[int, ...], float]:
        return {}

    def _incumbent(self, ub: float, seen: dict, deadline: Any) -> Incumbent:
        return Incumbent(self.problem, self.plan, ub, seen, self.candidates, deadline,
                         self.swap_passes)

    def root(self, ctx: RootContext) -> Start:
        """The root relaxation, the first incumbent (:func:`root_incumbent`), the root node;
        each step a checkpointed stage."""
        p, plan = self.problem, ctx.plan
        inc = self._incumbent(math.inf, {}, plan.clock)    # its swaps stop at the time limit
        if ctx.workers > 1:                        # the root's swap searches on the workers
            def evaluate_many(keys: list[tuple[int, ...]]) -> list[float]:
                parts = _split(keys, ctx.workers)   # a part not done at the time limit: inf
                return _flatten([math.inf] * len(part) if got is None else got
                                for part, got in zip(parts, ctx.map("support_values", parts)))

            inc.evaluate_many = evaluate_many
            inc.chunk = 2 * ctx.workers
        start = Start()
        if p.n <= p.B:
            inc.value(list(range(p.n)))
            start.solutions = inc.solutions
            return start
        rel = ctx.stage("relaxation", self._root_relaxation)
        rc = HeuristicContext(p, ctx, inc, self.search, self.heuristic_share, self.gap_tol)
        root_incumbent(rc, rel["v"], rel["s2"], self.root_search)
        self.candidates = inc.candidates
        bound = float(rel["bound"])
        start.solutions = inc.solutions
        start.nodes = [(bound, _node((), np.arange(p.n), p.n, p.B, rel["W_next"],
                                     rel["alpha"]))]
        start.stats = {"socp_solves": int(rel["solves"]), "supports_evaluated": inc.evaluated}
        start.arrays = {"candidates": inc.candidates}
        start.info = {"root_bound": bound}
        plan.progress(f"bnb root: bound {bound:.6g} UB {inc.ub:.6g} "
                      f"gap {relative_gap(inc.ub, bound) or 0:.3e}")
        return start

    def _root_relaxation(self) -> dict[str, Any]:
        """The root node's perspective relaxation as plain data (v and s^2 on all features)."""
        p = self.problem
        root = solve_node(p, self.plan, np.zeros(0, int), np.arange(p.n), p.B, extra=self.extra)
        v = np.zeros(p.n)
        v[root.W] = root.v
        return {"bound": np.float64(root.bound), "alpha": root.alpha, "s2": root.s2, "v": v,
                "W_next": root.W_next, "solves": np.int64(root.solves)}

    def support_values(self, work: Work, keys: list[tuple[int, ...]],
                       deadline: Deadline) -> list[float]:
        """Objectives of (2) on the supports ``keys`` (a root heuristic's batch, on a worker;
        cached in the worker's ``seen``)."""
        seen = work.cache
        for key in keys:
            if key not in seen:
                seen[key] = support_value(self.problem, self.plan, key)
        return [seen[k] for k in keys]

    def restore(self, arrays: dict[str, Any], info: dict[str, Any]) -> None:
        cand = arrays.get("candidates")
        self.candidates = None if cand is None else np.asarray(cand, np.int64)

    def _leaf(self, inc: Incumbent, F1: list[int], free: np.ndarray, k: int) -> bool:
        """k = 0 or |free| <= k: the node holds one best support; evaluate it exactly."""
        if k > 0 and free.size > k:
            return False
        inc.offer(F1 + ([int(j) for j in free] if k > 0 else []))
        return True

    def process(self, work: Work, node: dict[str, Any], bound: float, ub: float,
                deadline: Deadline) -> Outcome:
        """Solve the node's relaxation; round it (incumbent); prune, fix, or branch on the
        most fractional relaxed z_j (children inherit the bound, working set and alpha)."""
        p, n = self.problem, self.problem.n
        out = Outcome()
        inc = self._incumbent(ub, work.cache, deadline)
        F1 = [int(j) for j in node["F1"]]
        free = np.flatnonzero(np.unpackbits(node["free"], count=n).astype(bool))
        k = int(node["k"])
        try:
            if self._leaf(inc, F1, free, k):
                return out
            alpha = node.get("alpha")
            nb = solve_node(p, self.plan, np.asarray(F1, int), free, k,
                            ub=self.cutoff(inc.ub), extra=self.extra,
                            warm=(node["W"], None if alpha is None else alpha.astype(float)))
            out.stats["socp_solves"] = nb.solves
            b = max(nb.bound, bound)
            sel = nb.W[nb.v > 0.5]                                   # rounding heuristic
            rank = sel[np.argsort(-(nb.v[nb.v > 0.5] + 1e-9 * nb.s2[sel]), kind="stable")]
            pad = free[np.argsort(-nb.s2[free], kind="stable")]
            cand = list(dict.fromkeys([int(j) for j in rank] + [int(j) for j in pad]))[:k]
            inc.offer(F1 + cand)
            if b >= self.cutoff(inc.ub):
                out.pruned = b
                return out
            F1, free, k = _screen(nb, F1, free, k, self.cutoff(inc.ub), out)
            if self._leaf(inc, F1, free, k):
                return out
            j = _branch_feature(nb, free, self.branching)
            if j is None:     # integral relaxation: its support was just evaluated; branch on
                fin = [int(i) for i in nb.W[nb.v > 0.5] if i in set(free.tolist())]  # the
                j = min(fin, key=lambda i: nb.s2[i]) if fin else int(free[0])        # weakest
            rest = free[free != j]
            out.children = [(b, _node(tuple(F1) + (j,), rest, n, k - 1, nb.W_next, nb.alpha)),
                            (b, _node(F1, rest, n, k, nb.W_next, nb.alpha))]
            return out
        finally:
            out.solutions = inc.solutions
            out.stats["supports_evaluated"] = inc.evaluated

    def point(self, best: dict[str, Any], objective: float) -> Result:
        """The incumbent's support re-solved (the native SVM, and the QP solver's 1e-10 point
        when lower)."""
        p, plan = self.problem, self.plan
        res = fast_support(p, [int(j) for j in best["support"]], plan)
        assert res.selected is not None
        polished = support_result(p, res.selected, plan, method="bnb")
        return polished if polished.objective < res.objective else res


@dataclass(frozen=True)
class RootSearch:
    """The root incumbent of ``bnb``: which heuristic, and its share of the time limit."""

    root_search: str = declare.field(
        "fast", "Root incumbent: fast (the native swap search), local-bnb (Algorithm 1's "
        "restricted problem by this branch and bound), local-search / kernel-search (paper D's "
        "Algorithm 1 / 2 ranked by the root relaxation), or none.", choices=ROOT_SEARCHES)
    heuristic_share: float = declare.field(0.25, "Share of the time limit the root heuristic "
                                           "may use.", gt=0, le=1)

    def __post_init__(self) -> None:
        declare.check_fields(self)


@dataclass(frozen=True)
class NodeRules:
    """How ``bnb`` bounds and branches a node."""

    extra: int = declare.field(30, "Features beyond the budget in a node relaxation's first "
                               "working set; at most this many enter per round (column "
                               "generation on the dual of (13)).", ge=0, le=100_000)
    branching: str = declare.field("fractional", "Branching feature: the relaxed z_j closest "
                                   "to 1/2 (fractional), the largest or the smallest.",
                                   choices=BRANCHING)

    def __post_init__(self) -> None:
        declare.check_fields(self)


@register("fs-linear", "method", "bnb",
          paper="Bertsimas, Pauphilet & Van Parys (2021); Hazimeh, Mazumder & Saab (2022)",
          ref="branch and bound with the dual of (13) per node", warm_up=_warm_up)
def bnb(problem: FSLinearProblem, plan: SolverPlan, *, search: Search = Search(),
        root: RootSearch = RootSearch(), node: NodeRules = NodeRules(),
        gap_tol: Annotated[float, GAP_TOL] = 1e-4,
        tree: SearchOptions = SearchOptions()) -> Result:
    """Certified optimum of FS-SVM (2) (paper D) by best-first branch and bound on z.

    Node bound: the perspective relaxation DSCoP (13) of the node, certified at a feasible
    alpha by weak duality (any alpha is valid), maximised by column generation over a working
    set of features (:func:`~sparsekm.relaxations.fs_linear.node.solve_node`, the plan's
    ``relax_solver``); children inherit the parent's bound and working set. At each node:
    rounding heuristic (the relaxed support, polished by the SVM (1)), pruning at
    UB (1 - ``gap_tol``), reduced-cost-like fixing of features (:func:`_screen`), branching
    on the most fractional relaxed z_j (``node``: its working set and branching rule). The
    root incumbent (``root``: at most ``heuristic_share`` of the time limit) comes from the
    native swap search ``fast`` (default: on ionosphere B = 4, 6, sonar B = 5,
    breast_cancer_diagnostic B = 5, cleveland B = 4 and colorectal B = 5 it found the same
    incumbent as ``"local-bnb"`` with a root phase 2-11x shorter, which is the serial share
    of a parallel search), from Algorithm 1's restricted problem on the 2B + k best-ranked
    features solved by this branch and bound (``"local-bnb"``), or from paper D's Local
    Search (Algorithm 1) / Kernel Search (Algorithm 2) ranked by the root relaxation
    (``search``'s k / rho / cop_form; MIQPs by ``plan.solver`` within
    ``plan.subproblem_time_limit``); every new incumbent is improved by 1-swaps.

    The search runs on the tree engine (:mod:`sparsekm.algorithms.tree`; ``tree``: workers,
    checkpoint, scheduler, batch, node_limit, log_every). The returned bound is min(open
    nodes, pruned parts, incumbent): valid at every stop, so a time or node limit returns the
    incumbent with its certified gap. ``extra`` records nodes (this call), nodes_total, SOCP
    solves, fixings, the root bound, the open nodes left and the workers.
    """
    linear = LinearTree(problem, node_plan(plan), gap_tol, node.branching, node.extra,
                        root.root_search, search, root.heuristic_share)
    return run(linear, plan, tree)
