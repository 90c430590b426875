"""Local search LS (Algorithm 1) and LS* (Algorithm 2) of Paper A, Section 3.

Both fix the mask ``beta``, solve the alpha-subproblem (3) and move in the neighbourhoods
``N^1`` (one 0-1 swap, size ``B (n - B)``) and ``N^2`` (2..p swaps, sampled, ``p = floor(B/2)``).
Every ``N^1`` neighbour is evaluated with one O(m^2) masked-kernel pass
(:meth:`MaskedKernel.with_swap`) instead of an O(m^2 n) rebuild. Both senses are supported
(see :mod:`sparsekm.algorithms.fs_kernel_core`).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .fs_kernel_core import Evaluator, FSKernelProblem, FSKernelResult, mask_key, single_blas

__all__ = ["local_search", "ls_star", "sample_n2"]

_REL_TOL = 1e-9


def _improves(new: float, old: float) -> bool:
    return new < old - _REL_TOL * max(1.0, abs(old))


def _check_start(problem: FSKernelProblem, beta_in: Any) -> np.ndarray:
    beta = np.asarray(beta_in)
    if beta.dtype != bool:
        beta = beta.astype(bool)
    if beta.shape != (problem.n,) or int(beta.sum()) != problem.B:
        raise ValueError(f"beta_in must be a mask of length n={problem.n} with B={problem.B} "
                         f"ones, got shape {beta.shape} with {int(beta.sum())} ones")
    return beta.copy()


def _ls_core(ev: Evaluator, beta: np.ndarray, tabu: set[bytes] | None
             ) -> tuple[np.ndarray, float, bool]:
    """Best-improvement 1-swap descent on ``score``; returns (beta, objective, completed)."""
    cur = ev.eval_mask(beta)
    while True:
        if tabu is not None:
            key = mask_key(beta)
            if key in tabu:
                return beta, cur, True
            tabu.add(key)
        best_s, move = ev.score(cur), None
        sel, uns = np.flatnonzero(beta), np.flatnonzero(~beta)
        for jo in sel:
            for ji in uns:
                v = ev.eval_swap(beta, int(jo), int(ji))
                if _improves(ev.score(v), best_s):
                    best_s, move = ev.score(v), (int(jo), int(ji))
            if ev.out_of_time():
                if move is not None:
                    beta[move[0]], beta[move[1]] = False, True
                    cur = ev.p.sign * best_s
                return beta, cur, False
        if move is None:
            return beta, cur, True
        beta = beta.copy()
        beta[move[0]], beta[move[1]] = False, True
        cur = ev.p.sign * best_s


@single_blas
def local_search(problem: FSKernelProblem, beta_in: Any, *, time_limit: float | None = None,
                 evaluator: Evaluator | None = None) -> FSKernelResult:
    """LS, Paper A Algorithm 1: best-improvement descent over ``N^1(beta^k)``.

    Parameters
    ----------
    problem : FSKernelProblem
    beta_in : array of bool (n,)
        Initial mask ``beta^in`` with ``B`` ones.
    time_limit : float, optional
        Seconds; on expiry the best mask so far is returned with status "time_limit".

    Returns
    -------
    FSKernelResult
        ``status="local_optimum"``: no ``N^1`` neighbour is strictly better (relative tolerance
        1e-9). Paper A accepts ties (``UB <= UB*``); we move only on strict improvement so that
        the loop provably terminates.
    """
    t0 = time.perf_counter()
    ev = evaluator or Evaluator(problem, time_limit)
    beta = _check_start(problem, beta_in)
    start_obj = ev.eval_mask(beta)
    beta, cur, done = _ls_core(ev, beta, None)
    alpha, b, obj = ev.solve_mask(beta)
    return FSKernelResult(beta=beta, objective=cur, alpha=alpha, b=b, method="ls",
                          sense=problem.sense, status="local_optimum" if done else "time_limit",
                          time_s=time.perf_counter() - t0, n_evals=ev.n_evals,
                          extra={"start_objective": start_obj})


def sample_n2(beta: np.ndarray, p: int, count: int, rng: np.random.Generator
              ) -> list[np.ndarray]:
    """``count`` distinct random masks of ``N^2(beta)`` (Section 3.2): 2..p swaps each."""
    sel, uns = np.flatnonzero(beta), np.flatnonzero(~beta)
    pmax = min(p, sel.size, uns.size)
    if pmax < 2:
        return []
    out: dict[bytes, np.ndarray] = {}
    tries = 0
    while len(out) < count and tries < 20 * count:
        tries += 1
        q = int(rng.integers(2, pmax + 1))
        nb = beta.copy()
        nb[rng.choice(sel, q, replace=False)] = False
        nb[rng.choice(uns, q, replace=False)] = True
        out.setdefault(mask_key(nb), nb)
    return list(out.values())


@single_blas
def ls_star(problem: FSKernelProblem, beta_in: Any, *, n_samples: int = 500,
            opt_window: int = 5, p: int | None = None, seed: int | None = 0,
            time_limit: float | None = None, max_iter: int = 1000) -> FSKernelResult:
    """LS*, Paper A Algorithm 2: LS with a tabu list plus sampling of ``N^2``.

    Each iteration runs LS from ``beta_1^k`` (skipping masks whose ``N^1`` was already explored,
    the TabuList), samples ``#Samples`` masks of ``N^2(beta_2^k)`` with ``p = floor(B/2)``,
    evaluates those not in the TabuList and restarts LS from the best sample even if it is
    worse (to escape the local minimum). Stops after ``OptWindow`` consecutive iterations
    without improving ``UB*`` (Section 5: OptWindow = 5, #Samples = 500), on the time limit, or
    after ``max_iter`` iterations. Never returns a mask worse than ``beta_in``. Default
    ``p = max(2, floor(B/2))``: the paper's ``floor(B/2)`` leaves ``N^2`` empty for B < 4.
    When ``min(p, B, n - B) < 2``, ``N^2`` is empty and LS* reduces to LS.
    """
    t0 = time.perf_counter()
    ev = Evaluator(problem, time_limit)
    rng = np.random.default_rng(seed)
    p = max(2, problem.B // 2) if p is None else int(p)
    beta1 = _check_start(problem, beta_in)
    start_obj = ev.eval_mask(beta1)
    tabu: set[bytes] = set()
    best, stall, it, status = ev.best_score, 0, 0, "heuristic"
    history = [start_obj]
    while it < max_iter:
        it += 1
        beta2, _, done = _ls_core(ev, beta1, tabu)
        if not done or ev.out_of_time():
            status = "time_limit"
            break
        cands = [c for c in sample_n2(beta2, p, n_samples, rng) if mask_key(c) not in tabu]
        best_c, best_cs = None, np.inf
        for c in cands:
            s = ev.score(ev.eval_mask(c))
            if s < best_cs:
                best_c, best_cs = c, s
            if ev.out_of_time():
                break
        history.append(ev.p.sign * ev.best_score)
        if _improves(ev.best_score, best):
            best, stall = ev.best_score, 0
        else:
            stall += 1
        if ev.out_of_time():
            status = "time_limit"
            break
        if best_c is None or stall >= opt_window:
            break
        beta1 = best_c
    res = ev.result("ls-star", status, t0, start_objective=start_obj, iterations=it)
    res.history = history
    return res
