"""Upper bounds for paper D's branch and bound (method ``bnb``): the pluggable heuristics.

* :func:`fast_support`: the SVM (1) on a support, a feasible point of (2);
* :class:`Incumbent`: a task's incumbent, every new one improved by first-improvement 1-swaps
  over the root's candidate features (:meth:`Incumbent.swap_search`);
* :data:`ROOT_HEURISTICS`: the first incumbent from the root relaxation (option
  ``root_search``): Algorithm 1's restricted problem solved by ``bnb`` itself (``local-bnb``),
  paper D's Local Search (Algorithm 1) or Kernel Search (Algorithm 2), or none. A new root
  heuristic is one function ``(ctx, root relaxation, ranking u) -> candidate supports`` added
  here; making it the default is the one word ``root_search`` of :func:`.bnb.bnb`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.solvers import Result, SolverPlan

from .common import Search
from .heuristic import run_strategy
from .points import support_result

__all__ = ["Incumbent", "ROOT_HEURISTICS", "RootContext", "fast_support"]

def fast_support(problem: FSLinearProblem, support: list[int], plan: SolverPlan) -> Result:
    """A feasible point of (2) on ``support``: the SVM (1) by the native (|S|+1)-dimensional
    interior point (:func:`~sparsekm.engines.linear_svm.solve_linear_svm`, O(m |S|^2) per
    step), or by the plan's QP solver when one is named. Measured on 200 random supports
    each: 1.8-5.7x faster than libsvm on X_S X_S' (breast_cancer_diagnostic, ionosphere,
    sonar) and never above its objective (libsvm's tol 1e-6 left up to 0.15 on ionosphere);
    on mfeat (m = 2000) milliseconds where the QP solver took seconds. The objective is
    recomputed exactly from (w, b), so it is a true upper bound."""
    from sparsekm.engines.linear_svm import solve_linear_svm
    from sparsekm.models.fs_linear import point_result

    p = problem
    if plan.qp_solver is not None:
        return support_result(p, support, plan, method="bnb")
    fit = solve_linear_svm(p.X[:, support], p.y, p.C, method="ipm")
    w = np.zeros(p.n)
    w[support] = fit.w
    return point_result(p, w, fit.b, method="bnb")


@dataclass
class Incumbent:
    """The incumbent of one task (a node, or the root phase): starts at the search's ``ub``,
    evaluates supports through the worker's ``seen`` cache (support -> value; it only saves
    time), collects every improvement as a solution for the driver, and improves each new one
    by 1-swaps over ``candidates`` (at most ``swap_passes`` passes, within ``deadline``).
    ``evaluate_many`` (the root phase: the workers) evaluates ``chunk`` swaps at a time.
    ``wide`` > 0: each new incumbent is then polished by ``fast``'s swap search
    (:meth:`polish`: ``wide`` outside features ranked by dual correlation at each step)."""

    problem: FSLinearProblem
    plan: SolverPlan
    ub: float
    seen: dict[tuple[int, ...], float]
    candidates: np.ndarray | None = None
    deadline: Any = None
    swap_passes: int = 10
    key: tuple[int, ...] = ()
    solutions: list[tuple[float, tuple, dict]] = field(default_factory=list)
    evaluated: int = 0
    evaluate_many: Callable[[list[tuple[int, ...]]], list[float]] | None = None
    chunk: int = 1
    wide: int = 0

    def value(self, support: list[int]) -> float:
        """The SVM (1) on a support (cached); kept when it improves the incumbent."""
        key = tuple(sorted(int(j) for j in support))
        if not key:
            return math.inf
        val = self.seen.get(key)
        if val is None:
            val = self.seen[key] = support_value(self.problem, self.plan, key)
            self.evaluated += 1
        if val < self.ub:
            self.ub, self.key = val, key
            self.solutions.append((val, key, {"support": np.array(key, np.int32)}))
        return val

    def state(self) -> dict[str, Any]:
        """The incumbent as plain data (a root stage's checkpoint)."""
        return {"support": np.array(self.key, np.int32)}

    def restore(self, state: dict[str, Any]) -> None:
        """Take back a :meth:`state` (one SVM solve, or none when cached)."""
        if state["support"].size:
            self.value([int(j) for j in state["support"]])

    def offer(self, support: list[int]) -> None:
        """Evaluate a support; a new incumbent is improved by the swap search (and the wide
        polish)."""
        before = self.ub
        self.value(support)
        if self.ub < before and self.candidates is not None:
            self.swap_search()
        if self.ub < before and self.wide > 0:
            self.polish()

    def polish(self) -> None:
        """``fast``'s swap search from the incumbent with ``wide`` candidates per step (issue
        30: on colorectal B = 20, C = 1 it took the tree's 0.60779 to 0.60546 in 1.2 s of CPU,
        where the 1-swaps over the root's B + 40 candidates stopped); budgeted by its own
        evaluation cap, so a run stays reproducible unless the deadline cuts it."""
        from .iterated_swap import iterated_search
        from .swap import SwapOptions

        rem = None if self.deadline is None else self.deadline.remaining()
        if rem is not None and rem <= 0 or not self.key:
            return
        plan = replace(self.plan, time_limit=rem, deadline=None, verbose=False,
                       executor=None).start()
        res = iterated_search(self.problem, plan, list(self.key),
                              options=SwapOptions(candidates=self.wide), restarts=0)
        if res.has_solution and res.objective < self.ub and res.selected is not None:
            self.value([int(j) for j in res.selected])

    def _expired(self) -> bool:
        return self.deadline is not None and self.deadline.expired()

    def _prefetch(self, keys: list[tuple[int, ...]]) -> None:
        missing = [k for k in dict.fromkeys(keys) if k not in self.seen]
        if self.evaluate_many is not None and len(missing) > 1:
            self.seen.update(zip(missing, self.evaluate_many(missing)))
            self.evaluated += len(missing)

    def swap_search(self) -> None:
        """First-improvement 1-swap local search from the incumbent over ``candidates``
        (a heuristic: UB only). Budgeted in passes, not seconds, so a run is reproducible;
        the swaps are evaluated ``chunk`` at a time (in parallel) but taken in order, so the
        search is the same for any chunk. A ``deadline`` (the root phase: the time limit)
        stops it early; only then does the run depend on timing."""
        assert self.candidates is not None
        for _ in range(self.swap_passes):
            S, cur = list(self.key), self.ub
            moves = [tuple(sorted(S[:i] + [int(j)] + S[i + 1:]))
                     for i, j in itertools.product(range(len(S)), self.candidates)
                     if j not in S]
            improved = False
            for pos in range(0, len(moves), self.chunk):
                if self._expired():
                    return
                part = moves[pos:pos + self.chunk]
                self._prefetch(part)
                if any(self.value(list(mv)) < cur - 1e-12 * abs(cur) for mv in part):
                    improved = True
                    break
            if not improved:
                return


def support_value(problem: FSLinearProblem, plan: SolverPlan, key: tuple[int, ...]) -> float:
    """The objective of (2) at the SVM (1) on the support ``key``."""
    return fast_support(problem, list(key), plan).objective


@dataclass
class RootContext:
    """What a root heuristic gets: the problem, the engine's root context (``engine``: the
    started plan, the executor a sub-search reuses, checkpointed stages), the incumbent,
    paper D's search options, the share of the time limit it may spend, the tolerance of a
    sub-search and the node options it passes on (``node_rules``: the node bound, branching
    rule and working-set slack of the search it serves)."""

    problem: FSLinearProblem
    engine: Any
    incumbent: Incumbent
    search: Search
    share: float
    gap_tol: float
    node_rules: dict[str, Any] = field(default_factory=dict)

    @property
    def plan(self) -> SolverPlan:
        return self.engine.plan

    def run_stage(self, name: str, improve: Callable[[], None]) -> None:
        """``improve()`` the incumbent once; a resumed root phase takes its result back."""
        def compute() -> dict[str, Any]:
            improve()
            return self.incumbent.state()

        self.incumbent.restore(self.engine.stage(name, compute))

    def sub_plan(self) -> SolverPlan:
        """A plan with ``share`` of the remaining time (60 s without a limit)."""
        rem = self.plan.clock.remaining()
        return replace(self.plan, time_limit=max(self.share * rem, 0.01)
                       if math.isfinite(rem) else 60.0, deadline=None, verbose=False,
                       executor=self.engine.executor).start()


def _local_bnb(ctx: RootContext, order: np.ndarray) -> list[list[int]]:
    """Algorithm 1's restricted problem on the 2B + k best-ranked features, solved by bnb
    with the same node options (through the registry: this module is bnb's, so it does not
    import it back)."""
    from sparsekm import registry

    bnb = registry.get("fs-linear", "method", "bnb")
    p = ctx.problem
    K = np.sort(order[:min(p.n, 2 * p.B + ctx.search.k)])
    if K.size <= p.B:
        return []
    subp = replace(p, X=p.X[:, K], cardinality="le")
    h = bnb.run(subp, ctx.sub_plan(), root_search="none", gap_tol=ctx.gap_tol,
                checkpoint=ctx.engine.sub_checkpoint("local-bnb"), **ctx.node_rules)
    return [[int(K[j]) for j in h.selected]]


def _strategy(name: str) -> Callable[[RootContext, np.ndarray], list[list[int]]]:
    def run(ctx: RootContext, u: np.ndarray) -> list[list[int]]:
        h = run_strategy(ctx.problem, ctx.sub_plan(), replace(ctx.search, strategy=name), u)
        return [list(h.selected)] if h.has_solution and h.selected is not None else []

    run.__doc__ = f"paper D's {name} ranked by the root relaxation."
    return run


def _fast(ctx: RootContext, order: np.ndarray) -> list[list[int]]:
    """The registered ``fast`` method (issue 23: iterated native swap search) on the problem."""
    from sparsekm import registry

    h = registry.get("fs-linear", "method", "fast")(ctx.problem, ctx.sub_plan())
    return [list(h.selected)] if h.has_solution and h.selected is not None else []


# name -> (ctx, order or ranking) -> candidate supports; "ranking" heuristics get u, the others
# the order of the features by u. The default of bnb's root_search is one word of its signature.
ROOT_HEURISTICS: dict[str, tuple[str, Callable[[RootContext, np.ndarray], list[list[int]]]]] = {
    "local-bnb": ("order", _local_bnb),
    "local-search": ("ranking", _strategy("local-search")),
    "kernel-search": ("ranking", _strategy("kernel-search")),
    "fast": ("order", _fast),
}
ROOT_SEARCHES = (*ROOT_HEURISTICS, "none")
# root heuristics that compute their supports in the driver alone, so they run before the
# top-B stage (whose 1-swaps go to the workers): the workers' start-up (spawn, imports, the
# numba cache: ~2 s each) then overlaps them instead of preceding them
DRIVER_FIRST = ("fast",)


def root_incumbent(ctx: RootContext, v: np.ndarray, score: np.ndarray, name: str) -> None:
    """The relaxed top-B support, then the root heuristic ``name`` ranked by the node bound's
    root relaxation (``v`` the relaxed z, ``score`` its per-feature scores at the root's
    alpha, e.g. the perspective's s_j^2); sets the swap candidates."""
    p = ctx.problem
    u = 1.0 - v - 1e-9 * score / max(float(score.max()), 1e-300)   # DSCoP-style ranking
    order = np.argsort(u, kind="stable")
    ctx.incumbent.candidates = order[:min(p.n, p.B + 40)]
    if name == "none":
        ctx.run_stage("top-B", lambda: ctx.incumbent.offer(list(order[:p.B])))
        return
    kind, fn = ROOT_HEURISTICS[name]

    def heuristic() -> None:
        if ctx.plan.clock.expired():
            return
        for support in fn(ctx, order if kind == "order" else u):
            ctx.incumbent.offer(support)

    stages = [("top-B", lambda: ctx.incumbent.offer(list(order[:p.B]))), (name, heuristic)]
    if name in DRIVER_FIRST:      # it runs in this process while the workers start
        stages.reverse()
    for stage, improve in stages:
        ctx.run_stage(stage, improve)
