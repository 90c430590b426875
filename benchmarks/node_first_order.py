"""A first-order node solver for the replay benchmark's comparison (a trial, not shipped).

The candidate the node engine was measured against: accelerated projected gradient (FISTA
with adaptive restart, O'Donoghue & Candes 2015) on the node dual g of FS-SVM (2) smoothed
in its top-k term (Nesterov smoothing: max over the capped simplex of v's^2 - mu/2 ||v||^2,
whose gradient is the projection of s^2 / mu), mu halved every ``period`` iterations, from
the parent's multipliers, on the working set of the features within 0.8 of the k-th |s_j|;
the bound is g itself at the best iterate (every iterate is feasible, so every g certifies),
evaluated over all free features at the end. Compiled with numba like the engine it is
compared with.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["first_order_node"]


@njit(cache=True)
def _project(a, y, C):
    """The Euclidean projection onto {0 <= alpha <= C, y'alpha = 0} (bisection on the
    multiplier of y'alpha = 0)."""
    lo, hi = -2.0 * C - 1.0, 2.0 * C + 1.0
    for _ in range(60):
        nu = 0.5 * (lo + hi)
        tot = 0.0
        for i in range(a.size):
            tot += y[i] * min(max(a[i] - nu * y[i], 0.0), C)
        if tot > 0:
            lo = nu
        else:
            hi = nu
    nu = 0.5 * (lo + hi)
    out = np.empty(a.size)
    for i in range(a.size):
        out[i] = min(max(a[i] - nu * y[i], 0.0), C)
    return out


@njit(cache=True)
def _capped(s2, k, mu):
    """argmax over 0 <= v <= 1, sum v <= k of v's2 - mu/2 ||v||^2."""
    v = np.minimum(np.maximum(s2 / mu, 0.0), 1.0)
    if v.sum() <= k:
        return v
    lo, hi = 0.0, s2.max()
    for _ in range(50):
        th = 0.5 * (lo + hi)
        if np.minimum(np.maximum((s2 - th) / mu, 0.0), 1.0).sum() > k:
            lo = th
        else:
            hi = th
    return np.minimum(np.maximum((s2 - hi) / mu, 0.0), 1.0)


@njit(cache=True)
def _g(QW, QF, a, k):
    """g restricted to the working set (rows of QW) and F1 (rows of QF)."""
    s = QW @ a
    c = QF @ a
    s2 = s * s
    top = np.partition(s2, s2.size - k)[s2.size - k:].sum() if k < s2.size else s2.sum()
    return a.sum() - 0.5 * (c @ c) - 0.5 * top


@njit(cache=True)
def _smoothed(QW, QF, a, k, mu):
    """(value, gradient) of the smoothed dual at a."""
    s = QW @ a
    c = QF @ a
    v = _capped(s * s, k, mu)
    val = a.sum() - 0.5 * (c @ c) - 0.5 * (v @ (s * s) - 0.5 * mu * (v @ v))
    grad = 1.0 - QF.T @ c - QW.T @ (v * s)
    return val, grad


@njit(cache=True)
def _fista(QW, QF, y, C, a0, k, iters, period):
    a = _project(a0, y, C)
    z = a.copy()
    t, L = 1.0, 1.0
    best, best_a = _g(QW, QF, a, k), a.copy()
    s0 = QW @ a
    mu = 1e-2 * max(np.partition(s0 * s0, s0.size - k)[s0.size - k], 1e-12)
    prev = -np.inf
    for it in range(iters):
        fz, gz = _smoothed(QW, QF, z, k, mu)
        while True:
            an = _project(z + gz / L, y, C)
            fa, _ = _smoothed(QW, QF, an, k, mu)
            d = an - z
            if fa >= fz + gz @ d - 0.5 * L * (d @ d) - 1e-15:
                break
            L *= 2.0
        gval = _g(QW, QF, an, k)
        if gval > best:
            best, best_a = gval, an.copy()
        tn = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
        if fa < prev:                          # adaptive restart
            z, tn = an.copy(), 1.0
        else:
            z = an + (t - 1.0) / tn * (an - a)
        a, t, prev = an, tn, fa
        L *= 0.9
        if (it + 1) % period == 0:
            mu *= 0.5
    return best_a


def first_order_node(Qt: np.ndarray, y: np.ndarray, C: float, node: tuple, alpha0: np.ndarray,
                     iters: int = 200) -> tuple[float, np.ndarray]:
    """(certified bound, alpha) after ``iters`` FISTA iterations from ``alpha0`` at the node
    ``(F1, free, k)``; ``Qt`` = (y * X)'."""
    F1, free, k = node
    s = Qt[free] @ alpha0
    a = np.abs(s)
    thr = np.partition(a, a.size - k)[a.size - k]
    W = free[a >= 0.8 * thr]
    alpha = _fista(np.ascontiguousarray(Qt[W]), np.ascontiguousarray(Qt[F1]), y, C,
                   np.asarray(alpha0, float), int(k), int(iters), 50)
    sf = Qt[free] @ alpha
    cF = Qt[F1] @ alpha
    top = np.partition(sf * sf, sf.size - k)[sf.size - k:].sum()
    return float(alpha.sum() - 0.5 * (cF @ cF) - 0.5 * top), alpha
