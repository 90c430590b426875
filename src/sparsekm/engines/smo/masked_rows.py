"""Rows of a masked kernel ``K = f(S + sum_a g_a - sum_r g_r)`` for the SMO engine.

Paper A, Section 2.2: for a feature mask ``beta`` the polynomial and Gaussian kernels are
elementwise functions of the aggregate ``S = sum_{j : beta_j = 1} g_j`` of per-feature terms
``g_j = x_j x_j'`` (poly, ``K = (scale S + shift)^d``) or ``g_j = (x_ij - x_hj)^2`` (rbf,
``K = exp(scale S)`` with ``scale = -gamma``). A neighbouring mask adds the columns ``a`` and
removes the columns ``r``; its kernel row ``i`` costs O(m (1 + #changes)) from the centre's
aggregate ``S``, so an SMO run on a neighbour never forms the m x m matrix.

Row kinds of :func:`sparsekm.engines.smo.engine.kernel_row`: ``MASKED_POLY`` and
``MASKED_RBF`` with ``X = S`` (m, m), ``sq`` = the changed columns stacked (``(n_add + n_rem)
* m``, added first) and ``kpar = [kind, scale, degree, shift, n_add, n_rem]``. The same
:func:`masked_row` builds full matrices (:func:`masked_matrix`), so a row and the matching
matrix row agree bit for bit (up to the ``exp`` of the Gaussian kernel, which the matrix
builder leaves to NumPy).

Rows of the Gaussian kind use :func:`exp_neg`, a branch-free ``exp`` that the compiler
vectorises with fused multiply-adds (within 3 ulp of ``math.exp``, 7x faster: 0.41 against
3.0 ns per entry; the SMO runs of paper A's fast local search spend most of their time in
these rows); the matrices that libsvm solves keep NumPy's ``exp`` and the pre-activation
keeps one rounding order (no fused operations), so :func:`masked_matrix` is bit-stable.
"""

from __future__ import annotations

import numpy as np
from numba import njit

MASKED_POLY, MASKED_RBF = 5, 6

__all__ = ["MASKED_POLY", "MASKED_RBF", "exp_neg", "ipow", "masked_diag", "masked_matrix",
           "masked_row", "masked_segment", "masked_upper", "upper_segment"]

_LN2_HI = 6.93147180369123816490e-01  # ln 2 split in two (Cody-Waite reduction)
_LN2_LO = 1.90821492927058770002e-10
_INV_LN2 = 1.44269504088896338700e+00
_ROUND = 6755399441055744.0  # 1.5 * 2^52: x + _ROUND - _ROUND rounds x to an integer


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


@njit(cache=True, nogil=True, inline="always", fastmath={"contract"})
def exp_neg(v):
    """``exp(v)`` for ``v <= 709`` without branches or calls, so loops over it vectorise.

    ``v = k ln 2 + r`` with ``|r| <= ln 2 / 2`` (Cody-Waite), ``exp(r)`` by its degree-13
    Taylor polynomial (remainder < 2e-16 relative), ``2^k`` from the exponent bits. Within
    3 ulp of ``math.exp`` (measured over [-708, 0]); ``v < -708`` gives ``exp(-708)`` (an
    absolute error below 3.3e-308). The masked Gaussian rows call it with ``v <= 0`` up to
    round-off.
    """
    v = max(v, -708.0)
    kf = (v * _INV_LN2 + _ROUND) - _ROUND
    r = (v - kf * _LN2_HI) - kf * _LN2_LO
    p = 1.0 / 6227020800.0
    p = p * r + 1.0 / 479001600.0
    p = p * r + 1.0 / 39916800.0
    p = p * r + 1.0 / 3628800.0
    p = p * r + 1.0 / 362880.0
    p = p * r + 1.0 / 40320.0
    p = p * r + 1.0 / 5040.0
    p = p * r + 1.0 / 720.0
    p = p * r + 1.0 / 120.0
    p = p * r + 1.0 / 24.0
    p = p * r + 1.0 / 6.0
    p = p * r + 0.5
    p = p * r + 1.0
    p = p * r + 1.0
    return p * np.int64((np.int64(kf) + 1023) << 52).view(np.float64)


@njit(cache=True, nogil=True)
def masked_pre(S, cols, kpar, i, h0, out):
    """``scale (S + sum_a g_a - sum_r g_r)[i, h] + shift`` into ``out[h]`` for ``h >= h0``
    (no outer function); one rounding per operation, in the order of ``cols``."""
    _pre(S, cols, kpar, i, h0, out)


@njit(cache=True, nogil=True, inline="always")
def _pre(S, cols, kpar, i, h0, out):
    """The body of :func:`masked_pre`; inlined, it takes the caller's floating-point flags."""
    kind = int(kpar[0])
    scale = kpar[1]
    shift = kpar[3]
    na = int(kpar[4])
    nr = int(kpar[5])
    m = S.shape[0]
    seg = out[h0:m]  # views indexed from 0: the loops vectorise (a signed start would not)
    srow = S[i, h0:m]
    n = m - h0
    for h in range(n):
        seg[h] = srow[h]
    for c in range(na + nr):
        b = c * m
        xi = cols[b + i]
        col = cols[b + h0:b + m]
        if c < na:
            if kind == MASKED_POLY:
                for h in range(n):
                    seg[h] += xi * col[h]
            else:
                for h in range(n):
                    d = xi - col[h]
                    seg[h] += d * d
        else:
            if kind == MASKED_POLY:
                for h in range(n):
                    seg[h] -= xi * col[h]
            else:
                for h in range(n):
                    d = xi - col[h]
                    seg[h] -= d * d
    for h in range(n):
        seg[h] = scale * seg[h] + shift


@njit(cache=True, nogil=True, fastmath={"contract"})
def masked_segment(S, cols, kpar, i, h0, out):
    """Entries ``h >= h0`` of row ``i`` of the masked kernel into ``out[h]`` (see
    :func:`segment`)."""
    segment(S, cols, kpar, i, h0, out, np.uint64(h0))


@njit(cache=True, nogil=True, fastmath={"contract"})
def masked_upper(S, cols, kpar, K):
    """The upper triangle ``K[t, h], h >= t`` of the masked kernel (the lower one is left
    alone) for a square dense block ``S``; ``K`` C-contiguous. Row by row with
    :func:`upper_segment`."""
    m = S.shape[0]
    Kf = K.reshape(-1)
    for t in range(m):
        upper_segment(S, cols, kpar, t, Kf, np.uint64(t * m + t))


@njit(cache=True, nogil=True, inline="always")
def _term(poly, xi, col, k):
    """One changed feature's term: ``xi col[k]`` or ``(xi - col[k])^2``."""
    if poly:
        return xi * col[k]
    d = xi - col[k]
    return d * d


@njit(cache=True, nogil=True, fastmath={"contract"})
def upper_segment(S, cols, kpar, t, out, o):
    """Entries ``h >= t`` of row ``t`` of the masked kernel into ``out[o + h - t]``."""
    segment(S, cols, kpar, t, t, out, o)


@njit(cache=True, nogil=True, fastmath={"contract"}, inline="always")
def segment(S, cols, kpar, i, h0, out, o):
    """Entries ``h >= h0`` of row ``i`` of the masked kernel into ``out[o + h - h0]``.

    A swap adds a column and removes one: the changes are applied two swaps (four columns)
    per pass over the segment, so each pass loads and stores it once for four columns, and
    every index is an unsigned offset into a flat array (no view per row or column, no
    wraparound test): a 229 x 229 triangle with four swaps in ~27 us, against 44 us with
    one column per pass and ~35 us with views. Fused multiply-adds: within a few ulp of
    :func:`masked_matrix`, not bit-equal.
    """
    poly = int(kpar[0]) == MASKED_POLY
    scale = kpar[1]
    d = int(kpar[2])
    shift = kpar[3]
    na = int(kpar[4])
    nr = int(kpar[5])
    npair = min(na, nr)
    m = np.uint64(S.shape[0])
    iu = np.uint64(i)
    hu = np.uint64(h0)
    n = m - hu
    srow = S[i]
    for h in range(n):
        out[o + h] = srow[hu + h]
    c = 0
    while c + 1 < npair:  # two swaps: added c, c + 1; removed na + c, na + c + 1
        a1 = np.uint64(c) * m
        a2 = a1 + m
        r1 = np.uint64(na + c) * m
        r2 = r1 + m
        x1, x2, z1, z2 = cols[a1 + iu], cols[a2 + iu], cols[r1 + iu], cols[r2 + iu]
        a1 += hu
        a2 += hu
        r1 += hu
        r2 += hu
        for h in range(n):
            out[o + h] += ((_term(poly, x1, cols, a1 + h) - _term(poly, z1, cols, r1 + h))
                           + (_term(poly, x2, cols, a2 + h) - _term(poly, z2, cols, r2 + h)))
        c += 2
    if c < npair:
        a1 = np.uint64(c) * m
        r1 = np.uint64(na + c) * m
        x1, z1 = cols[a1 + iu], cols[r1 + iu]
        a1 += hu
        r1 += hu
        for h in range(n):
            out[o + h] += _term(poly, x1, cols, a1 + h) - _term(poly, z1, cols, r1 + h)
    for c in range(na + nr):  # unpaired additions, then removals
        if npair <= c < na or c >= na + npair:
            a1 = np.uint64(c) * m
            x = cols[a1 + iu]
            a1 += hu
            sg = 1.0 if c < na else -1.0
            for h in range(n):
                out[o + h] += sg * _term(poly, x, cols, a1 + h)
    if poly:
        for h in range(n):
            out[o + h] = ipow(scale * out[o + h] + shift, d)
    else:
        for h in range(n):
            out[o + h] = exp_neg(scale * out[o + h] + shift)


@njit(cache=True, nogil=True)
def masked_row(S, cols, kpar, i, out):
    """Row ``i`` of the masked kernel (see the module docstring) into ``out``."""
    masked_segment(S, cols, kpar, i, 0, out)


@njit(cache=True, nogil=True)
def masked_matrix(S, cols, kpar, K):
    """The whole matrix into ``K`` (poly: finished; rbf: the exponent, apply ``np.exp``)."""
    m = S.shape[0]
    poly = int(kpar[0]) == MASKED_POLY
    d = int(kpar[2])
    for i in range(m):
        row = K[i]
        masked_pre(S, cols, kpar, i, 0, row)
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
            out[i] = exp_neg(scale * s + shift)


def stack_columns(XT: np.ndarray, add: np.ndarray, rem: np.ndarray) -> tuple[np.ndarray, int, int]:
    """The flat column block ``sq`` of the masked kinds (added columns first)."""
    idx = np.concatenate([np.asarray(add, np.int64), np.asarray(rem, np.int64)])
    return np.ascontiguousarray(XT[idx]).ravel(), len(add), len(rem)
