"""Greedy maximization of the submodular problem (11) and LS on the beta-subproblem (5) with
alpha fixed: the beta-step of DecSubLight* (Paper A, Section 4)."""

from __future__ import annotations

import heapq
from typing import Any

import numpy as np

from sparsekm.models.fs_kernel import SetFunctions

__all__ = ["greedy_H", "lazy_greedy_H", "ls_fixed_alpha"]


def lazy_greedy_H(sf: SetFunctions, B: int) -> tuple[np.ndarray, dict[str, Any]]:
    """Minoux's lazy greedy on (11): ``max H(S)``, ``|S| = n - B``; returns ``beta`` of (10).

    Marginal gains ``H(S + e) - H(S) = F(T) - F(T - e)`` with ``T = [n] minus S`` are kept in
    a max-heap of upper bounds (valid because H is submodular, Proposition 2); a popped bound
    is recomputed and accepted if it is still the largest. Ties break on the smaller index, so
    the result is deterministic. For Gaussian kernels (no submodularity, Appendix A.2) the
    same procedure is a heuristic.
    """
    n = sf.n
    T = set(range(n))
    FT = sf.F(sorted(T))
    gains0 = FT - sf.F_minus_each(sorted(T), range(n))
    heap = [(-g, e, 0) for e, g in enumerate(gains0)]  # (-gain bound, index, iteration)
    heapq.heapify(heap)
    it, n_eval = 0, n
    while len(T) > B:
        while True:
            neg, e, stamp = heapq.heappop(heap)
            if stamp == it:  # bound is the exact gain for the current T: accept
                T.discard(e)
                FT = FT + neg  # F(T - e) = F(T) - gain
                break
            g = FT - float(sf.F_minus_each(sorted(T), [e])[0])
            n_eval += 1
            heapq.heappush(heap, (-g, e, it))
        it += 1
    beta = np.zeros(n, dtype=bool)
    beta[sorted(T)] = True
    return beta, {"n_evals": n_eval}


def greedy_H(sf: SetFunctions, B: int) -> tuple[np.ndarray, dict[str, Any]]:
    """Plain (Nemhauser-Wolsey-Fisher) greedy on (11); reference for :func:`lazy_greedy_H`."""
    n = sf.n
    T = list(range(n))
    n_eval = 0
    while len(T) > B:
        vals = sf.F_minus_each(T, T)
        n_eval += len(T)
        # max gain F(T) - F(T - e)  <=>  min F(T - e); ties -> smaller index
        e = T[int(np.argmin(vals))]
        T.remove(e)
    beta = np.zeros(n, dtype=bool)
    beta[T] = True
    return beta, {"n_evals": n_eval}


def ls_fixed_alpha(sf: SetFunctions, beta: np.ndarray, sign: float = 1.0,
                   max_iter: int = 1000) -> tuple[np.ndarray, list[tuple[float, bytes]]]:
    """LS (Algorithm 1) on the beta-subproblem (5) with ``alpha`` fixed (Algorithm 3, step 7).

    Minimizes ``sign * F`` over 1-swap neighbourhoods ``N^1`` until no strict improvement.
    Returns the final mask and every evaluated ``(F, packed mask)`` pair (for ``#SolPool``).
    """
    beta = beta.copy()
    seen: dict[bytes, float] = {}
    cur = sf.F(np.flatnonzero(beta))
    seen[np.packbits(beta).tobytes()] = cur
    for _ in range(max_iter):
        sel, uns = np.flatnonzero(beta), np.flatnonzero(~beta)
        if uns.size == 0:
            break
        base = sf.agg(sel)
        best = (sign * cur, -1, -1)
        for jo in sel:
            A = base - sf.G[jo]
            vals = sf._quad(sf._f(A[None] + sf.G[uns]))
            for k, ji in enumerate(uns):
                nb = beta.copy()
                nb[jo], nb[ji] = False, True
                seen.setdefault(np.packbits(nb).tobytes(), float(vals[k]))
            k = int(np.argmin(sign * vals))
            if sign * vals[k] < best[0] - 1e-12 * max(1.0, abs(best[0])):
                best = (float(sign * vals[k]), int(jo), int(uns[k]))
        if best[1] < 0:
            break
        beta[best[1]], beta[best[2]] = False, True
        cur = sign * best[0]
    pool = sorted(((v, k) for k, v in seen.items()), key=lambda t: (sign * t[0], t[1]))
    return beta, pool
