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

import heapq
import itertools
import time
from typing import Any

import numpy as np

from sparsekm.models.smkl.problem import SMKLProblem
from sparsekm.models.smkl.subproblems import lagrangian_bound
from sparsekm.registry import register
from sparsekm.relaxations.smkl.cutting_plane import kelley
from sparsekm.solvers import SolutionStatus, SolverPlan, Termination

from .abr import abr_run, random_start
from .result import method_result

__all__ = ["enumerate_supports", "exact"]


class _Pool:
    """SVM solutions (alpha, d, sum alpha) met so far: every one bounds every node."""

    def __init__(self) -> None:
        self.alphas: list[np.ndarray] = []
        self.d: list[np.ndarray] = []

    def add(self, alpha: np.ndarray, d: np.ndarray) -> None:
        self.alphas.append(alpha)
        self.d.append(d)

    def bound(self, problem: SMKLProblem, I0: frozenset, I1: frozenset
              ) -> tuple[float, np.ndarray, int]:
        best, arg, idx = -np.inf, None, -1
        for i, (a, d) in enumerate(zip(self.alphas, self.d)):
            lb, beta = lagrangian_bound(d, float(a.sum()), problem.lam, problem.k0,
                                        tuple(I0), tuple(I1))
            if lb > best:
                best, arg, idx = lb, beta, i
        return best, arg, idx

    def top(self, problem: SMKLProblem, S: list[int], n: int) -> list[tuple]:
        excl = tuple(np.setdiff1d(np.arange(problem.q), S))
        scores = [lagrangian_bound(d, float(a.sum()), problem.lam, len(S), excl)[0]
                  for a, d in zip(self.alphas, self.d)]
        order = np.argsort(scores)[::-1][:n]
        return [(self.alphas[i], self.d[i]) for i in order]


def _leaf_support(problem: SMKLProblem, I0: frozenset, I1: frozenset) -> list[int] | None:
    if len(I1) >= problem.k0:
        return sorted(I1)
    allowed = [i for i in range(problem.q) if i not in I0]
    return allowed if len(allowed) <= problem.k0 else None


@register("smkl", "method", "exact", paper="B", ref="Section 4.2 (branch-and-bound on z)",
          problem_class="MISDP")
def exact(problem: SMKLProblem, plan: SolverPlan | None = None, *, starts: int = 3,
          seed: int = 0, tol: float = 1e-4, node_abr_iter: int = 5) -> Any:
    """Best-first branch-and-bound on z with ABR incumbents and Lagrangian / (14) bounds."""
    plan = (plan or SolverPlan()).start()
    t0 = time.perf_counter()
    clock, k0, q = plan.clock, problem.k0, problem.q
    pool = _Pool()
    rng = np.random.default_rng(seed)
    inc = None
    n_svm = 0

    def absorb(run: dict[str, Any]) -> None:
        nonlocal inc, n_svm
        for e in run["evals"]:
            pool.add(e.alpha, e.d)
            n_svm += 1
            if inc is None or e.upper < inc.upper:
                inc = e

    for _ in range(max(starts, 1)):
        absorb(abr_run(problem, random_start(q, k0, rng), deadline=clock))
    counter = itertools.count()
    root = (frozenset(), frozenset())
    heap = [(pool.bound(problem, *root)[0], next(counter), root)]
    closed_lb, nodes, leaves = np.inf, 0, 0
    cutoff = lambda: inc.upper - tol * max(1.0, abs(inc.upper))  # noqa: E731
    term = Termination.CONVERGED
    while heap:
        lb, _, (I0, I1) = heapq.heappop(heap)
        if lb >= cutoff():
            closed_lb = min(closed_lb, lb)
            continue
        if clock.expired():
            heapq.heappush(heap, (lb, next(counter), (I0, I1)))
            term = Termination.TIME_LIMIT
            break
        nodes += 1
        S = _leaf_support(problem, I0, I1)
        if S is not None:
            leaves += 1
            r = kelley(problem, S=S, alphas=pool.top(problem, S, 10), tol=tol / 4,
                       cutoff=cutoff(), plan=plan)
            for a, d in r["alphas"]:
                pool.add(a, d)
            n_svm += r["iterations"] + 1
            if r["upper"] < inc.upper:
                from sparsekm.models.smkl.objective import evaluate

                inc = evaluate(problem, r["beta"])
            if r["termination"] in ("time_limit", "error") and r["bound"] < cutoff():
                heapq.heappush(heap, (max(lb, r["bound"]), next(counter), (I0, I1)))
                term = Termination.TIME_LIMIT if r["termination"] == "time_limit" \
                    else Termination.ERROR
                break
            closed_lb = min(closed_lb, max(lb, r["bound"]))
            continue
        lb2, beta_b, _ = pool.bound(problem, I0, I1)
        if node_abr_iter > 0:
            absorb(abr_run(problem, beta_b, max_iter=node_abr_iter, deadline=clock,
                           node=(tuple(I0), tuple(I1))))
            lb2, beta_b, _ = pool.bound(problem, I0, I1)
        lb2 = max(lb, lb2)
        if lb2 >= cutoff():
            closed_lb = min(closed_lb, lb2)
            continue
        free = [i for i in range(q) if i not in I0 and i not in I1]
        j = max(free, key=lambda i: (beta_b[i], -i))
        for child in ((I0, I1 | {j}), (I0 | {j}, I1)):
            clb = max(lb2, pool.bound(problem, *child)[0])
            heapq.heappush(heap, (clb, next(counter), child))
    open_lb = min((h[0] for h in heap), default=np.inf)
    bound = min(closed_lb, open_lb, inc.upper)
    res = method_result(problem, "exact", t0, evaluation=inc, bound=bound, termination=term,
                        tol=tol, nodes=nodes, leaves_solved=leaves, svm_solves=n_svm,
                        open_nodes=len(heap))
    if term is Termination.CONVERGED:
        res.solution_status = SolutionStatus.OPTIMAL
    return res


@register("smkl", "method", "enumerate", paper="B", ref="eq. (4), support by support",
          problem_class="convex per support")
def enumerate_supports(problem: SMKLProblem, plan: SolverPlan | None = None, *,
                       tol: float = 1e-5) -> Any:
    """Solve (4) on every k0-subset of kernels (a convex problem each) and take the best."""
    plan = (plan or SolverPlan()).start()
    t0 = time.perf_counter()
    best, bound, rows, term = None, np.inf, [], Termination.CONVERGED
    for S in itertools.combinations(range(problem.q), problem.k0):
        # a support whose lower bound passes the best value so far cannot win: stop it there
        # (its bound >= cutoff keeps min(bound) valid within tol)
        cutoff = np.inf if best is None else best[0] - tol * max(1.0, abs(best[0]))
        r = kelley(problem, S=list(S), tol=tol, max_iter=300, cutoff=cutoff, plan=plan)
        rows.append({"support": list(S), "upper": r["upper"], "bound": r["bound"]})
        bound = min(bound, r["bound"])
        if r["termination"] == "time_limit":
            term = Termination.TIME_LIMIT
        if best is None or r["upper"] < best[0]:
            best = (r["upper"], r["beta"])
    bound = min(bound, best[0])
    res = method_result(problem, "enumerate", t0, beta=best[1], bound=bound, tol=max(tol, 1e-6),
                        termination=term, supports=rows)
    return res
