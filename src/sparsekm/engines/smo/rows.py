"""Kernel rows for the compiled SMO loop: a precomputed matrix indexed directly, or rows
computed on demand into a bounded LRU cache.

``ks`` = (K, X, sq, kpar, cache, slot_of, owner, stamp, counters): ``K`` is (m, m) or (0, 0)
in row mode; ``X`` (m, n) and ``sq`` (its squared row norms) feed :func:`kernel_row` with
``kpar = [kind, gamma, degree, coef0]``; ``cache`` (slots, m) holds the rows of ``owner``,
``slot_of[i]`` is the slot of row i or -1, ``stamp`` the last use of each slot, ``counters``
= [clock, rows computed, row requests]. Masked kernels (paper A, :mod:`.masked_rows`) use
``X`` = the aggregate S, ``sq`` = the changed feature columns and ``kpar = [kind, scale,
degree, shift, n_add, n_rem]``. A precomputed matrix needs no cache: :func:`get_row` returns
a view of its row (no copy, no bookkeeping).
"""

from __future__ import annotations

import math

from numba import njit

from .masked_rows import MASKED_POLY, masked_row

__all__ = ["LAPLACIAN", "LINEAR", "POLY", "RBF", "SIGMOID", "cache_slot", "flat_rows", "get_row",
           "kernel_row", "row_start"]

# kernel kinds of kernel_row (anisotropic_rbf is rbf with gamma = 1 on sqrt(w)-scaled X)
LINEAR, POLY, RBF, LAPLACIAN, SIGMOID = 0, 1, 2, 3, 4


@njit(cache=True, nogil=True)
def kernel_row(X, sq, kpar, i, out):
    """Row ``i`` of the kernel matrix of ``X`` into ``out`` (kinds as in kernels.functions)."""
    kind = int(kpar[0])
    if kind >= MASKED_POLY:  # masked kernels of paper A (X is the aggregate S)
        masked_row(X, sq, kpar, i, out)
        return
    g = kpar[1]
    deg = kpar[2]
    c0 = kpar[3]
    m, n = X.shape
    if kind == LAPLACIAN:
        for j in range(m):
            s = 0.0
            for f in range(n):
                s += abs(X[i, f] - X[j, f])
            out[j] = math.exp(-g * s)
        return
    for j in range(m):
        s = 0.0
        for f in range(n):
            s += X[i, f] * X[j, f]
        out[j] = s
    if kind == RBF:
        for j in range(m):
            d = sq[i] + sq[j] - 2.0 * out[j]
            out[j] = math.exp(-g * d) if d > 0.0 else 1.0
        out[i] = 1.0
    elif kind == POLY:
        for j in range(m):
            out[j] = (g * out[j] + c0) ** deg
    elif kind == SIGMOID:
        for j in range(m):
            out[j] = math.tanh(g * out[j] + c0)


@njit(cache=True, nogil=True)
def cache_slot(ks, i):
    """The slot of row ``i`` in the LRU cache of row mode, computed there on a miss.

    The row just asked for is the most recently used, so asking for a second row never
    evicts it (the cache has at least two slots).
    """
    K, X, sq, kpar, cache, slot_of, owner, stamp, cnt = ks
    cnt[0] += 1
    cnt[2] += 1
    s = slot_of[i]
    if s >= 0:
        stamp[s] = cnt[0]
        return s
    s = 0
    if cnt[1] < stamp.shape[0]:  # slots fill in order before the first eviction
        s = cnt[1]
    else:
        oldest = stamp[0]
        for r in range(1, stamp.shape[0]):
            if stamp[r] < oldest:
                oldest = stamp[r]
                s = r
    if owner[s] >= 0:
        slot_of[owner[s]] = -1
    owner[s] = i
    slot_of[i] = s
    stamp[s] = cnt[0]
    cnt[1] += 1
    kernel_row(X, sq, kpar, i, cache[s])
    return s


@njit(cache=True, nogil=True)
def get_row(ks, i):
    """Row ``i`` of K: a view of the precomputed matrix, or of the LRU cache (computed on a
    miss; see :func:`cache_slot`)."""
    if ks[0].shape[0] > 0:
        return ks[0][i]
    return ks[4][cache_slot(ks, i)]


@njit(cache=True, nogil=True)
def flat_rows(ks):
    """The rows as one flat array: row ``i`` starts at :func:`row_start` (no view per row,
    so the compiled loop does no reference counting per iteration)."""
    if ks[0].shape[0] > 0:
        return ks[0].reshape(-1)
    return ks[4].reshape(-1)


@njit(cache=True, nogil=True)
def row_start(ks, i):
    """Offset of row ``i`` in :func:`flat_rows` (row mode: computed into the cache first)."""
    if ks[0].shape[0] > 0:
        return i * ks[0].shape[1]
    return cache_slot(ks, i) * ks[4].shape[1]
