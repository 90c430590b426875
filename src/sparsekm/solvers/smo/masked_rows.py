"""Rows of a masked kernel ``K = f(S + sum_a g_a - sum_r g_r)`` for the SMO engine.

Paper A, Section 2.2: for a feature mask ``beta`` the polynomial and Gaussian kernels are
elementwise functions of the aggregate ``S = sum_{j : beta_j = 1} g_j`` of per-feature terms
``g_j = x_j x_j'`` (poly, ``K = (scale S + shift)^d``) or ``g_j = (x_ij - x_hj)^2`` (rbf,
``K = exp(scale S)`` with ``scale = -gamma``). A neighbouring mask adds the columns ``a`` and
removes the columns ``r``; its kernel row ``i`` costs O(m (1 + #changes)) from the centre's
aggregate ``S``, so an SMO run on a neighbour never forms the m x m matrix.

Row kinds of :func:`sparsekm.solvers.smo.engine.kernel_row`: ``MASKED_POLY`` and
``MASKED_RBF`` with ``X = S`` (m, m), ``sq`` = the changed columns stacked (``(n_add + n_rem)
* m``, added first) and ``kpar = [kind, scale, degree, shift, n_add, n_rem]``. The same
:func:`masked_row` builds full matrices (:func:`masked_matrix`), so a row and the matching
matrix row agree bit for bit (up to the ``exp`` of the Gaussian kernel, which the matrix
builder leaves to NumPy).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

MASKED_POLY, MASKED_RBF = 5, 6

__all__ = ["MASKED_POLY", "MASKED_RBF", "ipow", "masked_diag", "masked_matrix", "masked_row"]


@njit(cache=True, nogil=True, inline="always")
def ipow(v, d):
    """``v ** d`` for an integer ``d >= 1`` by repeated squaring (one fixed rounding order)."""
    if d == 1:
        return v
    if d == 2:
        return v * v
    acc = 1.0
    base = v
    e = d
    while e > 0:
        if e & 1:
            acc *= base
        e >>= 1
        if e > 0:
            base *= base
    return acc


@njit(cache=True, nogil=True)
def masked_pre(S, cols, kpar, i, out):
    """``scale (S + sum_a g_a - sum_r g_r)[i, :] + shift`` into ``out`` (no outer function)."""
    kind = int(kpar[0])
    scale = kpar[1]
    shift = kpar[3]
    na = int(kpar[4])
    nr = int(kpar[5])
    m = S.shape[0]
    for h in range(m):
        out[h] = S[i, h]
    for c in range(na + nr):
        b = c * m
        xi = cols[b + i]
        if c < na:
            if kind == MASKED_POLY:
                for h in range(m):
                    out[h] += xi * cols[b + h]
            else:
                for h in range(m):
                    d = xi - cols[b + h]
                    out[h] += d * d
        else:
            if kind == MASKED_POLY:
                for h in range(m):
                    out[h] -= xi * cols[b + h]
            else:
                for h in range(m):
                    d = xi - cols[b + h]
                    out[h] -= d * d
    for h in range(m):
        out[h] = scale * out[h] + shift


@njit(cache=True, nogil=True)
def masked_row(S, cols, kpar, i, out):
    """Row ``i`` of the masked kernel (see the module docstring) into ``out``."""
    masked_pre(S, cols, kpar, i, out)
    m = S.shape[0]
    if int(kpar[0]) == MASKED_POLY:
        d = int(kpar[2])
        for h in range(m):
            out[h] = ipow(out[h], d)
    else:
        for h in range(m):
            out[h] = math.exp(out[h])


@njit(cache=True, nogil=True)
def masked_matrix(S, cols, kpar, K):
    """The whole matrix into ``K`` (poly: finished; rbf: the exponent, apply ``np.exp``)."""
    m = S.shape[0]
    poly = int(kpar[0]) == MASKED_POLY
    d = int(kpar[2])
    for i in range(m):
        row = K[i]
        masked_pre(S, cols, kpar, i, row)
        if poly:
            for h in range(m):
                row[h] = ipow(row[h], d)


@njit(cache=True, nogil=True)
def masked_diag(S, cols, kpar, out):
    """``K_ii`` for every i."""
    m = S.shape[0]
    kind = int(kpar[0])
    scale = kpar[1]
    shift = kpar[3]
    na = int(kpar[4])
    nr = int(kpar[5])
    for i in range(m):
        s = S[i, i]
        if kind == MASKED_POLY:
            for c in range(na + nr):
                x = cols[c * m + i]
                if c < na:
                    s += x * x
                else:
                    s -= x * x
            out[i] = ipow(scale * s + shift, int(kpar[2]))
        else:
            out[i] = math.exp(scale * s + shift)


def stack_columns(XT: np.ndarray, add: np.ndarray, rem: np.ndarray) -> tuple[np.ndarray, int, int]:
    """The flat column block ``sq`` of the masked kinds (added columns first)."""
    idx = np.concatenate([np.asarray(add, np.int64), np.asarray(rem, np.int64)])
    return np.ascontiguousarray(XT[idx]).ravel(), len(add), len(rem)
