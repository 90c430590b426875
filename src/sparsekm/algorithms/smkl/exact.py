"""An exact method for paper B's (4): best-first branch-and-bound on the support indicators z.

The paper names this as future work (Section 4.2, Conclusion). Node (I0, I1): kernels in I0 are
excluded (z = 0), kernels in I1 are in the support (z = 1). Its subproblem is (4) over
B_node = {beta in the simplex, beta_I0 = 0, |supp(beta) minus I1| <= k0 - |I1|}.

* Bound: for every SVM solution alpha met anywhere (a pool), weak duality of the min-max gives
  sum(alpha) + min over B_node of lam||beta||^2 - d(alpha)'beta/2, solved exactly by the node-
  restricted GSSP. The best such bound over the pool is a certified node bound; maximized over
  all alpha it equals relaxation (14) at the node (the perspective relaxation's inner minimum is
  attained at a k0-sparse beta, so (14) is exactly this Lagrangian dual).
* Leaves (|I1| = k0, or at most k0 kernels left): B_node is a simplex face, the subproblem is
  convex and solved by cutting planes to a certified gap (``kelley``), stopped early once its
  bound reaches the incumbent.
* Incumbents: multistart ABR (Algorithm 1) at the root, node-restricted ABR at each branching,
  and the leaf optima. Branching on the free kernel with the largest weight in the node bound's
  minimizer. Best-first; a time limit returns the incumbent with the certified bound
  min(open and closed node bounds) and the gap.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, replace
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
from sparsekm.models.smkl.objective import evaluate
from sparsekm.models.smkl.problem import SMKLProblem
from sparsekm.models.smkl.subproblems import lagrangian_bound
from sparsekm.registry import register, uses_solvers
from sparsekm.relaxations.smkl.cutting_plane import kelley
from sparsekm.solvers import Result, SolverPlan, Termination
from sparsekm.solvers.plan import Deadline
from sparsekm.specs import GAP_TOL, SEED

from .abr import ABRStopping, abr_run, random_start
from .result import method_result
from .specs import MASTERS, STARTS, SVM_DUALS

NODE_ABR_ITER = Spec("ABR iterations (Algorithm 1's T) from the bound's minimizer at each "
                     "branching node (0: none).", ge=0, le=10_000)

__all__ = ["SMKLTree", "enumerate_supports", "exact"]


class _Pool:
    """SVM solutions (alpha, d) met so far: every one bounds every node. ``base`` entries come
    from the search's shared log; the rest were met by this task (and go back to the log)."""

    def __init__(self, shared: list[dict[str, Any]]) -> None:
        self.alphas = [e["alpha"] for e in shared]
        self.d = [e["d"] for e in shared]
        self.base = len(self.alphas)

    def add(self, alpha: np.ndarray, d: np.ndarray) -> None:
        self.alphas.append(alpha)
        self.d.append(d)

    def new_entries(self) -> list[dict[str, Any]]:
        return [{"alpha": a, "d": d} for a, d in zip(self.alphas[self.base:],
                                                      self.d[self.base:])]

    def bound(self, problem: SMKLProblem, I0: tuple, I1: tuple) -> tuple[float, np.ndarray, int]:
        best, arg, idx = -np.inf, None, -1
        for i, (a, d) in enumerate(zip(self.alphas, self.d)):
            lb, beta = lagrangian_bound(d, float(a.sum()), problem.lam, problem.k0, I0, I1)
            if lb > best:
                best, arg, idx = lb, beta, i
        return best, arg, idx

    def top(self, problem: SMKLProblem, S: list[int], n: int) -> list[tuple]:
        excl = tuple(np.setdiff1d(np.arange(problem.q), S))
        scores = [lagrangian_bound(d, float(a.sum()), problem.lam, len(S), excl)[0]
                  for a, d in zip(self.alphas, self.d)]
        order = np.argsort(scores)[::-1][:n]
        return [(self.alphas[i], self.d[i]) for i in order]


def _leaf_support(problem: SMKLProblem, I0: tuple, I1: tuple) -> list[int] | None:
    if len(I1) >= problem.k0:
        return sorted(I1)
    allowed = [i for i in range(problem.q) if i not in I0]
    return allowed if len(allowed) <= problem.k0 else None


class _Task:
    """A task's pool, incumbent (:class:`~sparsekm.algorithms.tree.TaskIncumbent`) and
    counters."""

    def __init__(self, tree: SMKLTree, shared: list, ub: float) -> None:
        self.tree, self.pool, self.inc = tree, _Pool(shared), TaskIncumbent(ub)
        self.svm = 0

    @property
    def ub(self) -> float:
        return self.inc.ub

    def absorb(self, run: dict[str, Any]) -> None:
        for e in run["evals"]:
            self.pool.add(e.alpha, e.d)
            self.svm += 1
            self.offer(e.upper, e.beta)

    def offer(self, upper: float, beta: np.ndarray) -> None:
        if upper < self.ub:
            self.inc.offer(upper, (), {"beta": np.asarray(beta, float)})

    def outcome(self, out: Outcome) -> Outcome:
        out.solutions, out.shared = self.inc.solutions, self.pool.new_entries()
        out.stats["svm_solves"] = out.stats.get("svm_solves", 0) + self.svm
        return out


def _node(I0: tuple, I1: tuple) -> dict[str, Any]:
    return {"I0": np.array(sorted(I0), np.int32), "I1": np.array(sorted(I1), np.int32)}


def _warm_up() -> None:
    """Load libsvm and the GSSP code in a fresh worker."""
    from sparsekm.models.smkl.subproblems import beta_step

    beta_step(np.array([1.0, 2.0, 0.5]), 1.0, 2, (), ())


@dataclass
class SMKLTree(TreeProblem):
    """Paper B's (4) for the tree engine: a node excludes ``I0`` and forces ``I1``."""

    problem: SMKLProblem
    plan: SolverPlan = SolverPlan()
    starts: int = 3
    seed: int = 0
    tol: float = 1e-4
    node_abr_iter: int = 5
    clock: Deadline | None = None   # the run's deadline, for the result's last SVM solve

    name = "exact"
    problem_name = "smkl"
    sense = "min"
    node_solver = "libsvm"
    warm_up = staticmethod(_warm_up)

    @property
    def gap_tol(self) -> float:  # type: ignore[override]
        return self.tol

    def leaf_tol(self, ub: float) -> float:
        """Cutting planes' tolerance on a leaf (its rule is ``tol max(1, |upper|)``): a
        quarter of the tree's relative tolerance, also when ``|UB| < 1``."""
        scale = min(1.0, abs(ub)) if math.isfinite(ub) and ub != 0 else 1.0
        return self.tol / 4 * scale

    def key(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        p = self.problem
        return ({"X": p.X, "y": p.y},
                {"kernels": repr(p.labels), "k0": p.k0, "C": p.C, "lam": p.lam,
                 "normalize": getattr(p, "normalize", None), "starts": self.starts,
                 "seed": self.seed, "tol": self.tol, "node_abr_iter": self.node_abr_iter,
                 "relax_solver": self.plan.relax_solver})

    def describe(self) -> str:
        p = self.problem
        return f"smkl exact on m={p.m}, q={p.q} kernels, k0={p.k0}, lam={p.lam:g}"

    def root(self, ctx: RootContext) -> Start:
        """Multistart ABR (Algorithm 1): the first incumbent and the pool's first entries."""
        p = self.problem
        task = _Task(self, [], np.inf)
        rng = np.random.default_rng(self.seed)
        for _ in range(max(self.starts, 1)):
            task.absorb(abr_run(p, random_start(p.q, p.k0, rng), deadline=ctx.plan.clock))
        lb = task.pool.bound(p, (), ())[0]
        out = task.outcome(Outcome(stats={"leaves_solved": 0}))
        return Start(nodes=[(lb, _node((), ()))], solutions=out.solutions,
                     shared=out.shared, stats=out.stats)

    def process(self, work: Work, node: dict[str, Any], bound: float, ub: float,
                deadline: Deadline) -> Outcome:
        """A leaf: (4) on its support by cutting planes; else node ABR, the pool bound, and
        branching on the free kernel with the largest weight in the bound's minimizer."""
        p, out = self.problem, Outcome()
        task = _Task(self, work.shared, ub)
        I0, I1 = tuple(int(i) for i in node["I0"]), tuple(int(i) for i in node["I1"])
        S = _leaf_support(p, I0, I1)
        if S is not None:
            out.stats["leaves_solved"] = 1
            plan = replace(self.plan, deadline=deadline)
            warm = task.pool.top(p, S, 10)
            r = kelley(p, S=S, alphas=warm, tol=self.leaf_tol(task.ub),
                       cutoff=self.cutoff(task.ub), plan=plan)
            for a, d in r["alphas"][len(warm):]:     # the cuts it met; warm ones are known
                task.pool.add(a, d)
            task.svm += r["iterations"] + 1
            if r["upper"] < task.ub:
                e = evaluate(p, r["beta"], deadline=deadline)
                task.offer(e.upper, e.beta)
            lb = max(bound, r["bound"])
            if r["termination"] in ("time_limit", "error") and r["bound"] < self.cutoff(task.ub):
                out.children = [(lb, node)]
                out.stop = Termination(r["termination"])
            else:
                out.pruned = lb
            return task.outcome(out)
        lb2, beta_b, _ = task.pool.bound(p, I0, I1)
        if self.node_abr_iter > 0:
            task.absorb(abr_run(p, beta_b, stop=ABRStopping(max_iter=self.node_abr_iter),
                                deadline=deadline, node=(I0, I1)))
            lb2, beta_b, _ = task.pool.bound(p, I0, I1)
        lb2 = max(bound, lb2)
        if lb2 >= self.cutoff(task.ub):
            out.pruned = lb2
            return task.outcome(out)
        free = [i for i in range(p.q) if i not in I0 and i not in I1]
        j = max(free, key=lambda i: (beta_b[i], -i))
        for c0, c1 in ((I0, I1 + (j,)), (I0 + (j,), I1)):
            clb = max(lb2, task.pool.bound(p, c0, c1)[0])
            out.children.append((clb, _node(c0, c1)))
        return task.outcome(out)

    def point(self, best: dict[str, Any], objective: float) -> Result:
        """The incumbent beta evaluated: (4)'s certified value and the classifier."""
        return method_result(self.problem, "exact", time.perf_counter(), deadline=self.clock,
                             evaluation=evaluate(self.problem, best["beta"],
                                                 deadline=self.clock))


@register("smkl", "method", "exact", paper="B", ref="Section 4.2 (branch-and-bound on z)",
          problem_class="MISDP")
@uses_solvers(svm=SVM_DUALS,
              leaves=MASTERS)
def exact(problem: SMKLProblem, plan: SolverPlan | None = None, *,
          starts: Annotated[int, STARTS] = 3, seed: Annotated[int, SEED] = 0,
          gap_tol: Annotated[float, GAP_TOL] = 1e-4,
          node_abr_iter: Annotated[int, NODE_ABR_ITER] = 5,
          tree: SearchOptions = SearchOptions()) -> Any:
    """Best-first branch-and-bound on z with ABR incumbents and Lagrangian / (14) bounds.

    Runs on the tree engine (:mod:`sparsekm.algorithms.tree`; ``tree``: workers, checkpoint,
    scheduler, batch, node_limit, log_every); certified within the relative ``gap_tol``.
    """
    plan = (plan or SolverPlan()).start()
    return run(SMKLTree(problem, node_plan(plan), starts, seed, gap_tol, node_abr_iter,
                        plan.clock), plan, tree)


@register("smkl", "method", "enumerate", paper="B", ref="eq. (4), support by support",
          problem_class="convex per support")
@uses_solvers(svm=SVM_DUALS,
              supports=MASTERS)
def enumerate_supports(problem: SMKLProblem, plan: SolverPlan | None = None, *,
                       gap_tol: Annotated[float, GAP_TOL] = 1e-5) -> Any:
    """Solve (4) on every k0-subset of kernels (a convex problem each) and take the best.

    Stopped by the time limit, the supports left are skipped; the bound is then the best
    Lagrangian bound (over every support) of the SVM solutions met."""
    plan = (plan or SolverPlan()).start()
    t0 = time.perf_counter()
    best, bound, rows, term = None, np.inf, [], Termination.CONVERGED
    whole = -np.inf   # max over the alphas met of the Lagrangian bound on all of (4)
    for S in itertools.combinations(range(problem.q), problem.k0):
        if best is not None and plan.clock is not None and plan.clock.expired():
            term, bound = Termination.TIME_LIMIT, -np.inf   # supports left unsolved
            break
        # a support whose lower bound passes the best value so far cannot win: stop it there
        # (its bound >= cutoff keeps min(bound) valid within tol)
        cutoff = np.inf if best is None else best[0] - gap_tol * abs(best[0])
        r = kelley(problem, S=list(S), tol=max(gap_tol, 1e-9), max_iter=300, cutoff=cutoff,
                   plan=plan)
        rows.append({"support": list(S), "upper": r["upper"], "bound": r["bound"]})
        bound = min(bound, r["bound"])
        whole = max([whole] + [lagrangian_bound(d, float(a.sum()), problem.lam, problem.k0)[0]
                               for a, d in r["alphas"]])
        if r["termination"] == "time_limit":
            term = Termination.TIME_LIMIT
        if best is None or r["upper"] < best[0]:
            best = (r["upper"], r["beta"])
    bound = min(max(bound, whole), best[0])
    res = method_result(problem, "enumerate", t0, evaluation=best[1], deadline=plan.clock,
                        bound=bound if np.isfinite(bound) else None,
                        termination=term, supports=rows)
    res.gap_tol = gap_tol
    return res
