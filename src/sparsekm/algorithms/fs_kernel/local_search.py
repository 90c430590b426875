"""Local search LS (Algorithm 1) and LS* (Algorithm 2) of Paper A, Section 3.

Both fix the mask ``beta``, solve the alpha-subproblem (3) and move in the neighbourhoods
``N^1`` (one 0-1 swap, size ``B (n - B)``) and ``N^2`` (2..p swaps, sampled). Both senses are
supported (see :mod:`sparsekm.models.fs_kernel.problem`). ``fast=True`` (the default) answers
each neighbourhood with :class:`~.screened.ScreenedEvaluator` -- fixed-alpha and duality bounds,
warm-started SMO stopped as soon as a neighbour is decided, libsvm only where the plain path's
decision needs an exact value, both cores -- and returns the same masks as ``fast=False``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sparsekm.declare import Annotated, Spec
from sparsekm.models.fs_kernel import FSKernelProblem, random_masks
from sparsekm.models.fs_kernel.specs import BETA_IN
from sparsekm.registry import register, uses_solvers
from sparsekm.solvers import Result, SolverPlan
from sparsekm.specs import SEED

from .evaluator import mask_key, mask_result, single_blas
from .plain import PlainEvaluator
from .preload import warm_up_search
from .screened import make_evaluator
from .search import StallWindow, sample_n2
from .specs import N_SAMPLES, SVM_DUALS, FastPath, Stopping

__all__ = ["N1_LOCAL", "descend", "local_search", "ls_star", "start_mask"]

# What LS and LS* certify at their end: a local optimum of (4) in the 1-swap neighbourhood.
N1_LOCAL = "no 1-swap neighbour in N^1 improves UB (relative tolerance 1e-9)"

N2_SWAPS = Spec("At most p swaps per sampled mask of N^2 (Algorithm 2; default max(2, "
                "floor(B/2)): the paper's floor(B/2) leaves N^2 empty for B < 4).", ge=2)


def start_mask(problem: FSKernelProblem, beta_in: np.ndarray | None, seed: int) -> np.ndarray:
    """``beta_in`` checked, or the seeded random mask multistart would draw first."""
    if beta_in is None:
        return random_masks(problem.n, problem.B, 1, seed)[0]
    return problem.check_mask(beta_in)


def descend(ev: PlainEvaluator, beta: np.ndarray, tabu: set[bytes] | None
            ) -> tuple[np.ndarray, float, bool]:
    """Best-improvement 1-swap descent on ``score``; returns (beta, objective, completed)."""
    cur = ev.eval_mask(beta)
    while True:
        if tabu is not None:
            key = mask_key(beta)
            if key in tabu:
                return beta, cur, True
            tabu.add(key)
        move, new_cur, done = ev.descend_step(beta, cur)
        if move is not None:
            beta = beta.copy()
            beta[move[0]], beta[move[1]] = False, True
            cur = new_cur
        if not done or move is None:
            return beta, cur, done


@register("fs-kernel", "method", "ls", paper="A", ref="Algorithm 1",
          warm_up=warm_up_search("ls"))
@single_blas
@uses_solvers(svm=SVM_DUALS)
def local_search(problem: FSKernelProblem, plan: SolverPlan, *,
                 beta_in: Annotated[Any, BETA_IN] = None, seed: Annotated[int, SEED] = 0,
                 path: FastPath = FastPath()) -> Result:
    """LS: best-improvement descent over the 1-swap neighbourhood N^1(beta^k).

    Starts from ``beta_in`` (default: the seeded random mask). Ends at a mask no ``N^1``
    neighbour strictly improves (relative tolerance 1e-9): Paper A accepts ties
    (``UB <= UB*``); moving only on strict improvement makes the loop provably terminate. On
    the time limit the best mask so far is returned. ``path.fast`` screens neighbourhoods
    (same masks as ``fast=False``); ``path.threads`` its worker threads (None: every core).
    """
    ev = make_evaluator(problem, plan, path.fast, path.threads)
    try:
        beta = start_mask(problem, beta_in, seed)
        start_obj = ev.eval_mask(beta)
        beta, cur, done = descend(ev, beta, None)
        alpha, b, _ = ev.solve_mask(beta)
        res = mask_result(problem, beta, cur, alpha, b, "ls", ev.plan.clock)
        out = ev.result("ls", timed_out=not done, start_objective=start_obj)
    finally:
        ev.close()
    res.termination, res.time_s, res.extra = out.termination, out.time_s, out.extra
    return res.mark_local(N1_LOCAL) if done else res


@register("fs-kernel", "method", "ls-star", paper="A", ref="Algorithm 2",
          warm_up=warm_up_search("ls-star"))
@single_blas
@uses_solvers(svm=SVM_DUALS)
def ls_star(problem: FSKernelProblem, plan: SolverPlan, *,
            beta_in: Annotated[Any, BETA_IN] = None, seed: Annotated[int, SEED] = 0,
            n_samples: Annotated[int, N_SAMPLES] = 500,
            p: Annotated[int | None, N2_SWAPS] = None, stop: Stopping = Stopping(),
            path: FastPath = FastPath()) -> Result:
    """LS*: LS with a tabu list plus sampling of N^2 to escape local minima.

    Each iteration runs LS from ``beta_1^k`` (skipping masks whose ``N^1`` was already explored,
    the TabuList), samples ``#Samples`` masks of ``N^2(beta_2^k)`` with ``p`` swaps at most,
    evaluates those not in the TabuList and restarts LS from the best sample even if it is
    worse. Stops after ``OptWindow`` consecutive iterations without improving ``UB*``
    (Section 5: OptWindow = 5, #Samples = 500), on the time limit, or after ``max_iter``
    iterations. Never returns a mask worse than ``beta_in``. Default ``p = max(2, floor(B/2))``:
    the paper's ``floor(B/2)`` leaves ``N^2`` empty for B < 4. ``stop``: OptWindow and
    max_iter; ``path`` as for LS (same masks either way).
    """
    ev = make_evaluator(problem, plan, path.fast, path.threads)
    try:
        res = _ls_star(ev, problem, beta_in, seed, n_samples, stop.opt_window, p,
                       stop.max_iter)
    finally:
        ev.close()
    return res


def _ls_star(ev: PlainEvaluator, problem: FSKernelProblem, beta_in: np.ndarray | None,
             seed: int, n_samples: int, opt_window: int, p: int | None, max_iter: int
             ) -> Result:
    rng = np.random.default_rng(seed)
    p = max(2, problem.B // 2) if p is None else int(p)
    beta1 = start_mask(problem, beta_in, seed)
    start_obj = ev.eval_mask(beta1)
    tabu: set[bytes] = set()
    window = StallWindow(opt_window, ev.best_score)
    window.history.append(start_obj)
    it, timed_out, stalled = 0, False, False
    while it < max_iter:
        it += 1
        beta2, _, done = descend(ev, beta1, tabu)
        if not done or ev.out_of_time():
            timed_out = True
            break
        samples = [c for c in sample_n2(beta2, p, n_samples, rng) if mask_key(c) not in tabu]
        k, _, _ = ev.sample_argmin(beta2, samples)
        window.update(ev.best_score, problem.sign * ev.best_score)
        if ev.out_of_time():
            timed_out = True
            break
        if k is None or window.exhausted:
            stalled = True
            break
        beta1 = samples[k]
    res = ev.result("ls-star", timed_out, start_objective=start_obj, iterations=it)
    res.log = [{"best_objective": v} for v in window.history]
    # locally optimal when the best mask met had its whole N^1 scanned (it is in the tabu
    # list) without a strict improvement; not so after max_iter or the time limit
    scanned = ev.best is not None and mask_key(ev.best[0]) in tabu
    return res.mark_local(N1_LOCAL) if stalled and scanned else res
