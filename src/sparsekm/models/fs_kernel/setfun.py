"""Set functions F and H of Paper A, Section 4.2 (the beta-subproblem (5) as (10) and (11)).

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

from typing import Any

import numpy as np

from sparsekm.kernels import feature_terms

__all__ = ["TENSOR_LIMIT_BYTES", "SetFunctions"]

TENSOR_LIMIT_BYTES = 256 * 2**20   # the (n, ms, ms) terms held at once; above: per feature


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
        self.Xsv = X[sv]
        self._G: np.ndarray | None = None
        self._last: tuple[bytes, np.ndarray] | None = None
        self.small = self.n * sv.size ** 2 * 8 <= TENSOR_LIMIT_BYTES
        self.n_evals = 0

    @property
    def G(self) -> np.ndarray:
        """The per-feature terms g_j as an (n, ms, ms) array: gamma x_j x_j' (poly) or
        (x_j - x_j')^2 (rbf), built at first use."""
        if self._G is None:
            self._G = self._terms(self.Xsv)
        return self._G

    def _terms(self, X: np.ndarray) -> np.ndarray:
        """:func:`~sparsekm.kernels.feature_terms` of the columns X, scaled by gamma (poly)."""
        T = feature_terms(X, self.kernel)
        return T * self.gamma if self.kernel == "poly" else T

    def g(self, j: int) -> np.ndarray:
        """g_j: from the (n, ms, ms) array when it is small enough to hold (at most
        TENSOR_LIMIT_BYTES), else computed (madelon's 500 x 2000^2 terms would take 16 GB)."""
        if self.small or self._G is not None:
            return self.G[j]
        return self._terms(self.Xsv[:, j:j + 1])[0]

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
        if idx.size and (self.small or self._G is not None):
            return self.G[idx].sum(axis=0)
        key = idx.tobytes()
        if self._last is not None and self._last[0] == key:   # RFE1 scores T by chunks
            return self._last[1]
        XS = self.Xsv[:, idx]      # the same sum without the terms: one Gram matrix (BLAS)
        if self.kernel == "poly":
            out = self.gamma * (XS @ XS.T)
        else:
            sq = np.einsum("ij,ij->i", XS, XS)
            out = np.maximum(sq[:, None] + sq[None, :] - 2.0 * (XS @ XS.T), 0.0)
        self._last = (key, out)
        return out

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
            out[k] = 0.0 if len(T) == 1 else self._quad(self._f(base - self.g(int(e))))
        return out
