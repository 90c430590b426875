"""Branch and bound on the support with a pluggable node bound (method ``bnb``).

Not one of paper D's algorithms: a dedicated best-first branch and bound for its problem (2)
whose node bound is any relaxation with a node form (option ``node_bound``, :mod:`.bnb_rules`):
by default paper D's perspective relaxation DSCoP (13) (Lemma 4.3) in its dual form in the m
margin multipliers (:mod:`sparsekm.relaxations.fs_linear.node`), as in
Bertsimas, Pauphilet & Van Parys (2021, "Sparse classification: a scalable discrete
optimization perspective") and Hazimeh, Mazumder & Saab (2022, L0BnB: "Sparse regression at
scale: branch-and-bound rooted in first-order optimization"). The search itself (queue,
incumbent, limits, workers, checkpoints) is the shared engine :mod:`sparsekm.algorithms.tree`;
this module is paper D's side of it (:class:`LinearTree`), the heuristics are in
:mod:`.bnb_heuristics`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

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
from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.registry import Part, register, uses_solvers, with_plugin_options
from sparsekm.relaxations.fs_linear.node import solve_node
from sparsekm.relaxations.fs_linear.node_form import NodeForm, NodeTask
from sparsekm.solvers import Result, SolverPlan, relative_gap
from sparsekm.solvers.plan import Deadline
from sparsekm.specs import GAP_TOL

from .bnb_branching import inherited_choice, strong_branch, table_data
from .bnb_heuristics import ROOT_SEARCHES, Incumbent, fast_support, root_incumbent, support_value
from .bnb_heuristics import RootContext as HeuristicContext
from .bnb_options import NodeRules, RootSearch, tree_report
from .bnb_pairs import PAIR_LIMIT, merge, pair_cuts, split
from .bnb_rules import (
    BRANCHING,
    as_data,
    branch_feature,
    branching_rule,
    defers,
    integral_branch,
    member,
    node_form,
    node_form_params,
    rounded,
    screen,
)
from .common import Search
from .iterated_swap import warm_up as fast_warm_up
from .points import support_result
from .specs import NATIVE_SVM, cop_classes

__all__ = ["BRANCHING", "LinearTree", "NodeRules", "ROOT_SEARCHES", "RootSearch", "bnb",
           "fast_support"]

ROUND_EVERY = 4       # levels between two rounding heuristics with a fast node form
FAST_CHUNK = 16       # nodes per task with a fast node form


def _node(F1: tuple[int, ...] | list[int], free: np.ndarray, n: int, k: int, W: np.ndarray,
          alpha: np.ndarray | None, depth: int = 0, **more: Any) -> dict[str, Any]:
    """A node as plain data: F1 fixed in, the free features (packed mask), the budget k left,
    the working set and multipliers to start from (what the node form reuses), its depth,
    and ``more`` (reliability branching's inherited gains)."""
    mask = np.zeros(n, bool)
    mask[free] = True
    return {"F1": np.asarray(F1, np.int32), "free": np.packbits(mask), "k": np.int64(k),
            "W": np.asarray(W, np.int32), "depth": np.int32(depth),
            "alpha": None if alpha is None else np.asarray(alpha, np.float64), **more}


def _split(items: list[Any], k: int) -> list[list[Any]]:
    """``items`` in at most ``k`` contiguous parts of near-equal size (one task per worker)."""
    cuts = np.linspace(0, len(items), min(k, len(items)) + 1).astype(int)
    return [items[a:b] for a, b in zip(cuts[:-1], cuts[1:])]


def _flatten(parts: Any) -> list[Any]:
    return [x for part in parts for x in part]


def _warm_up(form: NodeForm | None = None) -> None:
    """Load the node solver's and the linear SVM's compiled code (numba caches): the
    perspective's, and ``form``'s on a tiny problem with an incumbent."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((12, 4))
    y = np.where(np.arange(12) % 2 == 0, 1.0, -1.0)
    p = FSLinearProblem(X, y, B=2, C=1.0)
    root = solve_node(p, SolverPlan(), np.zeros(0, int), np.arange(4), 2)
    if form is not None:
        form.solve(p, SolverPlan(), NodeTask.root(p, ub=10.0, alpha0=root.alpha))
    fast_support(p, [0, 1], SolverPlan())
    fast_warm_up()                    # the root heuristic ``fast``


@dataclass
class LinearTree(TreeProblem):
    """Paper D's problem (2) for the tree engine: a node fixes ``F1`` in, leaves ``free``
    undecided with budget ``k``; its bound is the chosen relaxation's node form
    (``node_bound``, a registered relaxation's name)."""

    problem: FSLinearProblem
    plan: SolverPlan
    gap_tol: float = 1e-4
    branching: str = "auto"
    extra: int = 30
    root_search: str = "fast"
    search: Search = Search()
    heuristic_share: float = 0.25
    swap_passes: int = 10
    candidates: np.ndarray | None = None
    node_bound: str = "perspective-active"
    context: dict[str, np.ndarray] = field(default_factory=dict)
    strong_candidates: int = 8
    strong_rounds: int = 25
    strong_every: int = 3
    polish_candidates: int = 200
    defer: float = 1e-4
    run_clock: Any = None      # the run's deadline (the node plan has none): see point()
    node_options: dict[str, Any] = field(default_factory=dict)  # the node form's own options

    name = "bnb"
    problem_name = "fs-linear"
    sense = "min"

    def __post_init__(self) -> None:
        self.node_bound, self.form, self.citation = node_form(self.node_bound,
                                                              self.node_options)
        fast = self.form.fast(self.problem, self.plan)
        self.rule = branching_rule(self.branching, fast)
        self.warm_up = partial(_warm_up, self.form)
        # a fast form's nodes take about a millisecond: FAST_CHUNK of them per task (a
        # message costs the driver about 0.4 ms), and the rounding heuristic (an SVM solve,
        # about 0.5 ms on 20 features of colorectal) every ROUND_EVERY levels
        self.chunk = FAST_CHUNK if fast else 1
        self.round_every = ROUND_EVERY if fast else 1

    @property
    def node_solver(self) -> str:  # type: ignore[override]
        return self.form.solver_name(self.problem, self.plan)

    def node_rules(self) -> dict[str, Any]:
        """The node options a sub-search (the ``local-bnb`` root heuristic) passes on."""
        return {"node_bound": self.node_bound, "branching": self.branching,
                "extra": self.extra, "strong_candidates": self.strong_candidates,
                "defer": self.defer, **self.node_options}

    def key(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        p = self.problem
        return ({"X": p.X, "y": p.y},
                {"C": p.C, "B": p.B, "cardinality": p.cardinality, "gap_tol": self.gap_tol,
                 "branching": self.branching, "extra": self.extra,
                 "node_bound": self.node_bound, "node_options": repr(self.node_options),
                 "strong_candidates": self.strong_candidates,
                 "strong_rounds": self.strong_rounds, "strong_every": self.strong_every,
                 "root_search": self.root_search, "search": repr(self.search),
                 "polish_candidates": self.polish_candidates, "defer": self.defer,
                 "swap_passes": self.swap_passes, "relax_solver": self.plan.relax_solver,
                 "qp_solver": self.plan.qp_solver})

    def describe(self) -> str:
        p = self.problem
        return f"fs-linear bnb on m={p.m}, n={p.n}, B={p.B}, C={p.C:g}"

    def new_cache(self) -> dict[tuple[int, ...], float]:
        return {}

    def _incumbent(self, ub: float, seen: dict, deadline: Any) -> Incumbent:
        return Incumbent(self.problem, self.plan, ub, seen, self.candidates, deadline,
                         self.swap_passes, wide=self.polish_candidates)

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
        timed = self.plan.with_(deadline=plan.clock)      # the node forms keep the limit
        self.context = ctx.stage("node-bound context",
                                 lambda: self.form.prepare(p, timed, math.inf))
        rel = ctx.stage("relaxation", lambda: self._root_relaxation(timed))
        rc = HeuristicContext(p, ctx, inc, self.search, self.heuristic_share, self.gap_tol,
                              self.node_rules())
        root_incumbent(rc, rel["v"], rel["score"], self.root_search)
        self.candidates = inc.candidates
        bound = float(rel["bound"])
        start.solutions = inc.solutions
        start.nodes = [(bound, _node((), np.arange(p.n), p.n, p.B, rel["W_next"],
                                     rel["alpha"]))]
        start.stats = {"socp_solves": int(rel["solves"]), "supports_evaluated": inc.evaluated}
        start.arrays = {"candidates": inc.candidates,
                        **{f"context_{k}": v for k, v in self.context.items()}}
        start.info = {"root_bound": bound, "node_bound": self.node_bound,
                      "node_bound_ref": self.citation}
        plan.progress(f"bnb root: bound {bound:.6g} UB {inc.ub:.6g} "
                      f"gap {relative_gap(inc.ub, bound) or 0:.3e}")
        return start

    def _root_relaxation(self, plan: SolverPlan) -> dict[str, Any]:
        """The root node's relaxation by the node form (within ``plan``'s clock), before any
        incumbent, as plain data (v and the scores on all features: the ranking of the root
        heuristics)."""
        p = self.problem
        task = NodeTask.root(p, extra=self.extra, context=self.context)
        return as_data(self.form.solve(p, plan, task), p.n)

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
        self.context = {k.removeprefix("context_"): v for k, v in arrays.items()
                        if k.startswith("context_")}

    def _leaf(self, inc: Incumbent, F1: list[int], free: np.ndarray, k: int) -> bool:
        """k = 0 or |free| <= k: the node holds one best support; evaluate it exactly."""
        if k > 0 and free.size > k:
            return False
        inc.offer(F1 + ([int(j) for j in free] if k > 0 else []))
        return True

    def process(self, work: Work, node: dict[str, Any], bound: float, ub: float,
                deadline: Deadline) -> Outcome:
        """Bound the node by the node form; round it (incumbent); prune, fix by the form's
        rule, defer (re-queue it once, unbranched: :func:`~.bnb_rules.defers`), or branch on a
        fractional relaxed z_j (children inherit the bound, working set and multipliers)."""
        p, n = self.problem, self.problem.n
        out = Outcome()
        inc = self._incumbent(ub, work.cache, deadline)
        F1 = [int(j) for j in node["F1"]]
        free = np.flatnonzero(np.unpackbits(node["free"], count=n).astype(bool))
        k, depth = int(node["k"]), int(node.get("depth", 0))
        try:
            if self._leaf(inc, F1, free, k):
                return out
            alpha = node.get("alpha")
            task = NodeTask(np.asarray(F1, int), free, k, ub=inc.ub,
                            cutoff=self.cutoff(inc.ub), W0=node["W"],
                            alpha0=None if alpha is None else alpha.astype(float),
                            extra=self.extra, context=self.context)
            nb = self.form.solve(p, self.plan.with_(deadline=deadline), task)
            out.stats["socp_solves"] = nb.solves
            for key in ("pivots", "pricing"):
                if key in nb.info:
                    out.stats[key] = nb.info[key]
            b = max(nb.bound, bound)
            if depth == 0:
                out.stats["root_node_bound"] = b
            deferred = bool(node.get("deferred", 0))
            if depth % self.round_every == 0 and not deferred:      # rounding heuristic
                inc.offer(F1 + rounded(nb, free, k))
            if b >= self.cutoff(inc.ub):
                out.pruned = b
                return out
            fixed = screen(self.form, nb, task, self.cutoff(inc.ub), out)
            if fixed is None:
                return out
            F1, free, k = fixed
            if self._leaf(inc, F1, free, k):
                return out
            if not deferred and defers(self.rule, self.defer, b, bound):
                again = _node(F1, free, n, k, self._reused(nb), nb.alpha, depth)
                out.children.append((b, {**node, **again, "deferred": np.int8(1)}))
                out.stats["deferred"] = 1
                return out
            nb.bound = b
            branched = self._branch(nb, NodeTask(np.asarray(F1, int), free, k, ub=inc.ub,
                                                 cutoff=self.cutoff(inc.ub),
                                                 extra=self.extra, context=self.context),
                                    (inc, node), out)
            if "probe_pivots" in nb.info:
                out.stats["probe_pivots"] = nb.info["probe_pivots"]
            if branched is None:
                return out
            F1, free, k, j, bounds, more = branched
            W = self._reused(nb)
            kids, cuts = self._children(nb, (F1, free, k), j, (node, self.cutoff(inc.ub)),
                                        out)
            starts = nb.info.get("starts", {}).get(j, (nb.alpha, nb.alpha))   # probes' ends
            for kid, b_kid, a_kid in zip(kids, bounds, starts):
                if kid is None:                        # emptied by the pairwise cuts
                    out.pruned = min(out.pruned, self.cutoff(inc.ub))
                elif not self._leaf(inc, *kid):
                    out.children.append((b_kid, _node(kid[0], kid[1], n, kid[2], W, a_kid,
                                                      depth + 1, **more, **cuts)))
            return out
        finally:
            out.solutions = inc.solutions
            out.stats["supports_evaluated"] = inc.evaluated
            out.stats["closed_nodes"] = int(not out.children)   # pruned, fixed away, leaf

    def _reused(self, nb: Any) -> np.ndarray:
        """The working set a node hands on (its children, or itself when deferred)."""
        return nb.W_next if "working_set" in self.form.reuse else np.zeros(0, np.int32)

    def _children(self, nb: Any, node: tuple[list[int], np.ndarray, int], j: int,
                  at: tuple[dict[str, Any], float], out: Outcome
                  ) -> tuple[list[Any], dict[str, Any]]:
        """The children (j in, j out) of ``node = (F1, free, k)`` with the fixings of the
        pairwise cuts (:mod:`.bnb_pairs`: this node's, for forms with the perspective's
        fixing rule, and the inherited ones) and the cuts they inherit; ``at = (node data,
        cutoff)``."""
        F1, free, k = node
        data, cutoff = at
        if not self.form.pairs:
            rest = free[free != j]
            return [(F1 + [j], rest, k - 1), (F1, rest, k)], {}
        phi = 0.5 * nb.score[free]
        cand = free[np.argsort(-phi)[:PAIR_LIMIT]] if free.size > PAIR_LIMIT else free
        new = pair_cuts(nb.bound, phi, free, k, cutoff, np.sort(cand))
        cuts = merge(data, new, free)
        kids, fixed = split(cuts, node, j)
        out.stats["pair_cuts"] = out.stats.get("pair_cuts", 0) + sum(
            len(v) for v in new.values())
        out.stats["pair_fixed"] = out.stats.get("pair_fixed", 0) + fixed
        return kids, cuts

    def _branch(self, nb: Any, task: NodeTask, at: tuple[Incumbent, dict[str, Any]],
                out: Outcome) -> tuple[Any, ...] | None:
        """The branching feature and its children's bounds and data (F1, free, k after strong
        branching's fixings, j, (bound in, bound out), data for the children); None when the
        node is done (pruned by strong branching, or a leaf after its fixings)."""
        inc, node = at
        F1, free, k, b = [int(j) for j in task.F1], task.free, task.k, nb.bound
        bounds: tuple[float, float] = (b, b)
        j, more = None, {}
        strong = self.rule in ("strong", "reliability")
        if self.rule == "reliability":
            got = inherited_choice(node, nb, free, self.strong_every)
            if got is not None:
                out.stats["inherited_branchings"] = out.stats.get("inherited_branchings", 0) + 1
                return F1, free, k, got[0], bounds, got[1]
        if strong:
            st = strong_branch(self.form, self.problem, self.plan.with_(deadline=inc.deadline),
                               nb, task,
                               (self.strong_candidates, self.strong_rounds), out)
            if st.pruned or len(st.fix_in) > k:
                return None
            F1, k = F1 + st.fix_in, k - len(st.fix_in)
            free = free[~member(free, np.asarray(st.fix_in + st.fix_out, int), self.problem.n)]
            if self._leaf(inc, F1, free, k):
                return None
            if st.j is not None:
                j, bounds = st.j, (st.in_bound, st.out_bound)
                if self.rule == "reliability":
                    more = table_data(st.table, st.j, 1)
        if j is None:
            j = branch_feature(nb, free, "fractional" if strong else self.rule)
        if j is None:         # integral relaxation: its support was just evaluated
            j = integral_branch(nb, free)
        return F1, free, k, j, bounds, more

    def point(self, best: dict[str, Any], objective: float) -> Result:
        """The incumbent's support re-solved (the native SVM, and the QP solver's 1e-10 point
        when lower; not after the time limit, when finding and probing the QP solver alone
        took 0.5 s on a loaded machine)."""
        p, plan = self.problem, self.plan
        res = fast_support(p, [int(j) for j in best["support"]], plan)
        assert res.selected is not None
        if self.run_clock is not None and self.run_clock.expired():
            return res
        polished = support_result(p, res.selected, plan, method="bnb")
        return polished if polished.objective < res.objective else res


@register("fs-linear", "method", "bnb",
          paper="Bertsimas, Pauphilet & Van Parys (2021); Hazimeh, Mazumder & Saab (2022)",
          ref="branch and bound with the dual of (13) per node", warm_up=_warm_up)
@with_plugin_options("node_form", node_form_params)
@uses_solvers(node_bound=Part("node bounds", ("relax_solver",), default="sparsekm node-active-set"),
              svm=NATIVE_SVM,
              miqp=Part("root MIQPs CoP(K) (16)", ("solver",), classes=cop_classes,
                        when=lambda o: o.get("root_search") in ("local-search", "kernel-search"),
                        when_text="with --option root_search=local-search or kernel-search"))
def bnb(problem: FSLinearProblem, plan: SolverPlan, *, search: Search = Search(),
        root: RootSearch = RootSearch(), node: NodeRules = NodeRules(),
        gap_tol: Annotated[float, GAP_TOL] = 1e-4,
        tree: SearchOptions = SearchOptions(), **node_options: Any) -> Result:
    """Certified optimum of FS-SVM (2) (paper D) by best-first branch and bound on z.

    Node bound: the perspective relaxation DSCoP (13) of the node, certified at a feasible
    alpha by weak duality (any alpha is valid). By default the native active-set engine
    (:mod:`sparsekm.engines.node_active`, node form ``perspective-active``) maximises it from
    the parent's multipliers and stops once the node is pruned; ``node_bound="perspective"``
    keeps the interior point with column generation
    (:func:`~sparsekm.relaxations.fs_linear.node.solve_node`, the plan's ``relax_solver``);
    children inherit the parent's bound and multipliers. At each node:
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
    solves, fixings, the root bound, the open nodes left and the workers. ``node_options``:
    the chosen node bound's own declared options (:func:`~.bnb_rules.node_form`).
    """
    plan = plan.start()          # one clock for the tree and the final point, resumed or not
    linear = LinearTree(problem, node_plan(plan), gap_tol, node.branching, node.extra,
                        root.root_search, search, root.heuristic_share,
                        node_bound=node.node_bound, strong_candidates=node.strong_candidates,
                        polish_candidates=root.polish_candidates, defer=node.defer,
                        run_clock=plan.clock, node_options=node_options)
    res = tree_report(run(linear, plan, tree))
    res.extra["solvers"] = {"node_bound": linear.node_solver}   # the one that ran
    return res
