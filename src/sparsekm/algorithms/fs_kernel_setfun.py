"""Set functions F and H of Paper A, Section 4.2, and greedy maximization of (11).

For fixed dual variables ``alpha`` (bar-alpha in the paper) and a feature subset ``S``:

* ``F(S) = sum_{i,h} alpha_i alpha_h y^i y^h k(x_S^i, x_S^h)``, ``F(emptyset) = 0``; the
  beta-subproblem (5) is ``min 1/2 F(S)`` over ``|S| = B`` -- problem (10).
* ``lambda = F([n])`` and ``H(S) = lambda - F([n] minus S)``; problem (11) is
  ``max H(S)`` over ``|S| <= n - B`` and ``S' = [n] minus S''`` (Proposition 2).

Proposition 1: for polynomial kernels F is monotone non-decreasing and supermodular;
Proposition 2: H is then monotone, nonnegative and submodular. Appendix A.2 shows F is neither
for the Gaussian kernel. Only samples with ``alpha_i > 0`` contribute, so everything is computed
on the support (``ms x ms`` matrices).
"""

from __future__ import annotations

import heapq
from typing import Any

import numpy as np

__all__ = ["SetFunctions", "greedy_H", "lazy_greedy_H", "ls_fixed_alpha"]


class SetFunctions:
    """``F``, ``H`` and ``lambda`` of Paper A, Section 4.2, for a fixed ``alpha``.

    Parameters
    ----------
    X : array (m, n)
    y : array (m,)
    alpha : array (m,)
        Fixed dual variables (bar-alpha).
    kernel : {"poly", "rbf"}
    gamma, degree, coef0 : kernel parameters (``gamma``, ``d``, ``c``).
    """

    def __init__(self, X: Any, y: Any, alpha: Any, kernel: str = "poly", gamma: float = 0.1,
                 degree: int = 2, coef0: float = 1.0) -> None:
        X = np.asarray(X, dtype=float)
        alpha = np.asarray(alpha, dtype=float)
        sv = np.flatnonzero(np.abs(alpha) > 0)
        self.n = X.shape[1]
        self.kernel, self.gamma, self.degree, self.coef0 = kernel, gamma, degree, coef0
        self.a = (alpha * np.asarray(y, dtype=float))[sv]
        Xs = X[sv]
        # per-feature terms g_j (n, ms, ms): gamma x_j x_j' (poly) or (x_j - x_j')^2 (rbf)
        if kernel == "poly":
            self.G = gamma * np.einsum("ij,hj->jih", Xs, Xs)
        elif kernel == "rbf":
            d = Xs[:, None, :] - Xs[None, :, :]
            self.G = np.moveaxis(d * d, 2, 0).copy()
        else:
            raise ValueError(f"kernel must be 'poly' or 'rbf', got {kernel!r}")
        self.n_evals = 0

    def _f(self, agg: np.ndarray) -> np.ndarray:
        if self.kernel == "poly":
            return (agg + self.coef0) ** self.degree
        return np.exp(-self.gamma * agg)

    def _quad(self, K: np.ndarray) -> np.ndarray:
        """``a' K a`` over the last two axes."""
        self.n_evals += 1 if K.ndim == 2 else K.shape[0]
        return np.einsum("...ih,i,h->...", K, self.a, self.a)

    def agg(self, S: Any) -> np.ndarray:
        """``sum_{j in S} g_j``."""
        idx = np.asarray(sorted(S), dtype=int)
        if idx.size == 0:
            return np.zeros(self.G.shape[1:])
        return self.G[idx].sum(axis=0)

    def F(self, S: Any) -> float:
        """``F(S)`` (Section 4.2); ``F(emptyset) = 0`` by definition."""
        if len(list(S)) == 0:
            return 0.0
        return float(self._quad(self._f(self.agg(S))))

    @property
    def lam(self) -> float:
        """``lambda = F([n])`` (Section 4.2)."""
        return self.F(range(self.n))

    def H(self, S: Any) -> float:
        """``H(S) = lambda - F([n] minus S)`` (problem (11))."""
        rest = sorted(set(range(self.n)) - set(S))
        return self.lam - self.F(rest)

    def F_minus_each(self, T: Any, cands: Any) -> np.ndarray:
        """``F(T minus {e})`` for every ``e`` in ``cands`` (vectorised)."""
        T = sorted(T)
        cands = np.asarray(cands, dtype=int)
        base = self.agg(T)
        out = np.empty(cands.size)
        for k, e in enumerate(cands):
            out[k] = 0.0 if len(T) == 1 else self._quad(self._f(base - self.G[e]))
        return out


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
