"""Numba loops behind :class:`sparsekm.kernels.MaskedKernel` (imported lazily).

Each update makes one pass over the m x m aggregate ``S = sum_{j in mask} g_j`` (Paper A,
eq. (4)): it adds the per-feature term of ``x_add``, subtracts that of ``x_rem`` and writes the
pre-activation ``(scale * S + shift) ** degree`` into ``K``. The transcendental outer function
(``exp``, ``tanh``) is applied afterwards by NumPy, whose SIMD ``exp`` is about five times faster
than a scalar ``exp`` in a Numba loop (measured: 92 us vs 458 us on 300 x 300).
Branches are kept outside the inner loops so that LLVM vectorises them (2.5x faster, measured).

``kind``: 0 -> ``g_j = x_j x_j'`` (linear, poly, sigmoid); 1 -> ``(x_ij - x_hj)^2`` (rbf);
2 -> ``|x_ij - x_hj|`` (laplacian).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _power_row(K, i, degree, base, acc):
    """``K[i, :] **= degree`` for an integer ``degree >= 1`` by vectorised squaring."""
    m = K.shape[1]
    if degree == 1:
        return
    if degree == 2:
        for h in range(m):
            v = K[i, h]
            K[i, h] = v * v
        return
    for h in range(m):
        base[h] = K[i, h]
        acc[h] = 1.0
    e = degree
    while e > 0:
        if e & 1:
            for h in range(m):
                acc[h] *= base[h]
        e >>= 1
        if e > 0:
            for h in range(m):
                base[h] *= base[h]
    for h in range(m):
        K[i, h] = acc[h]


@njit(cache=True)
def update_inner(S, K, x_add, x_rem, scale, shift, degree, write_s):  # noqa: D103
    m = S.shape[0]
    base = np.empty(m)
    acc = np.empty(m)
    for i in range(m):
        a = x_add[i]
        r = x_rem[i]
        if write_s:
            for h in range(m):
                s = S[i, h] + (a * x_add[h] - r * x_rem[h])
                S[i, h] = s
                K[i, h] = scale * s + shift
        else:
            for h in range(m):
                K[i, h] = scale * (S[i, h] + (a * x_add[h] - r * x_rem[h])) + shift
        _power_row(K, i, degree, base, acc)


@njit(cache=True)
def update_sq(S, K, x_add, x_rem, scale, shift, degree, write_s):  # noqa: D103
    m = S.shape[0]
    base = np.empty(m)
    acc = np.empty(m)
    for i in range(m):
        a = x_add[i]
        r = x_rem[i]
        if write_s:
            for h in range(m):
                u = a - x_add[h]
                v = r - x_rem[h]
                s = S[i, h] + (u * u - v * v)
                S[i, h] = s
                K[i, h] = scale * s + shift
        else:
            for h in range(m):
                u = a - x_add[h]
                v = r - x_rem[h]
                K[i, h] = scale * (S[i, h] + (u * u - v * v)) + shift
        _power_row(K, i, degree, base, acc)


@njit(cache=True)
def update_abs(S, K, x_add, x_rem, scale, shift, degree, write_s):  # noqa: D103
    m = S.shape[0]
    base = np.empty(m)
    acc = np.empty(m)
    for i in range(m):
        a = x_add[i]
        r = x_rem[i]
        if write_s:
            for h in range(m):
                s = S[i, h] + (abs(a - x_add[h]) - abs(r - x_rem[h]))
                S[i, h] = s
                K[i, h] = scale * s + shift
        else:
            for h in range(m):
                K[i, h] = scale * (S[i, h] + (abs(a - x_add[h]) - abs(r - x_rem[h]))) + shift
        _power_row(K, i, degree, base, acc)


@njit(cache=True)
def accumulate(S, XT, cols, sign, kind):
    """``S += sign * sum_{j in cols} g_j`` (no kernel evaluation)."""
    m = S.shape[0]
    for t in range(cols.shape[0]):
        x = XT[cols[t]]
        for i in range(m):
            a = x[i]
            if kind == 0:
                for h in range(m):
                    S[i, h] += sign * (a * x[h])
            elif kind == 1:
                for h in range(m):
                    u = a - x[h]
                    S[i, h] += sign * (u * u)
            else:
                for h in range(m):
                    S[i, h] += sign * abs(a - x[h])


@njit(cache=True)
def apply(S, K, scale, shift, degree):
    """``K = (scale * S + shift) ** degree`` elementwise."""
    m = S.shape[0]
    base = np.empty(m)
    acc = np.empty(m)
    for i in range(m):
        for h in range(m):
            K[i, h] = scale * S[i, h] + shift
        _power_row(K, i, degree, base, acc)


UPDATES = (update_inner, update_sq, update_abs)

__all__ = ["UPDATES", "accumulate", "apply"]
