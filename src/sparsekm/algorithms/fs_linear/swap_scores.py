"""Primal scores of the moves of paper D's swap search (FS-SVM (2)), compiled, and their bounds.

For the SVM (1) at (w, b) on a support S, the *backward sacrifice* of i in S is the primal
value with w_i set to 0 and the intercept re-optimised, P(w - w_i e_i, b*) (abess's backward
sacrifice, Zhu et al. 2020, with the SVM's exact loss in place of a quadratic model). The
*swap score* of (i out, j in) is the primal value of the feasible point that keeps w on
S - i and b, and gives feature j its best weight t:

    ub(i, j) = 1/2 (||w||^2 - w_i^2 + t^2) + C sum_r max(0, a_r - t y_r x_rj),
    a_r = 1 - y_r (x_r' w - x_ri w_i + b),

minimised over t (a one-dimensional convex piecewise-quadratic function: one sort of its
kinks). ub(i, j) is the
objective of a feasible point of (2) on S - i + j, so it is an upper bound on that support's
SVM optimum: ub < P accepts the swap without solving anything.

Why primal: at an SVM optimum the dual correlation |X_j'(alpha y)| (the gradient, abess's
forward sacrifice) ranks swaps badly, because the margin vectors pin the hinge -- adding j
with the other weights fixed gains nothing, and the gain only appears once i frees the
margin. Measured on lymphoma (B = 10, C = 1, at a local optimum of the 40-candidate search):
the seven improving swaps had dual-correlation ranks 194-1438 among the 4016 outside features
and ub ranks 4-320 among all 40,160 pairs (``docs/guides/fs_linear_fast.md``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sparsekm.engines.linear_svm import best_intercept

__all__ = ["backward_sacrifices", "line_lower_bounds", "line_minimum", "removal_state",
           "smallest_swap_values", "swap_values"]


@njit(cache=True, nogil=True)
def line_minimum(a, c, C, kinks, rows):
    """min_t 1/2 t^2 + C sum_r max(0, a_r - t c_r): returns (value, t).

    The slope phi(t) = t - C sum_{a_r > t c_r} c_r increases and jumps only at the kinks
    a_r / c_r. Its one-sided values at 0 tell on which side the root lies; on that side
    phi(C S(0)) has the other sign, so only the kinks between 0 and C S(0) are swept, in
    increasing order, each found by a scan of the ones left (``kinks``, ``rows``: work arrays
    of length m; overwritten): the sweep stops after a few of them, so selecting them costs
    less than sorting them all.
    """
    m = a.shape[0]
    sp, sm = 0.0, 0.0                 # sum of c over the rows active right / left of t = 0
    for r in range(m):
        if a[r] > 0.0 or (a[r] == 0.0 and c[r] < 0.0):
            sp += c[r]
        if a[r] > 0.0 or (a[r] == 0.0 and c[r] > 0.0):
            sm += c[r]
    sign = 1.0
    if C * sp > 0.0:
        s, hi = sp, C * sp
    elif C * sm < 0.0:
        sign, s, hi = -1.0, -sm, -C * sm      # mirrored: t -> -t, c -> -c
    else:
        s, hi = 0.0, 0.0
    nk = 0
    for r in range(m):
        cr = sign * c[r]
        if cr != 0.0:
            k = a[r] / cr
            if 0.0 < k < hi:
                kinks[nk] = k
                rows[nk] = r
                nk += 1
    lo, t = 0.0, C * s
    for _ in range(nk):
        q = 0                         # the smallest kink left
        for i in range(1, nk):
            if kinks[i] < kinks[q]:
                q = i
        kq = kinks[q]
        t = C * s                     # the stationary point of the segment (lo, kq)
        if t <= lo:
            t = lo
            break
        if t < kq:
            break
        cr = sign * c[rows[q]]
        s -= cr if cr > 0.0 else -cr
        lo = kq
        kinks[q] = np.inf             # swept
        t = C * s
    t = min(max(t, lo), hi) * sign
    v = 0.5 * t * t
    for r in range(m):
        h = a[r] - t * c[r]
        if h > 0.0:
            v += C * h
    return v, t


@njit(cache=True, nogil=True)
def backward_sacrifices(XS, y, C, w, out):
    """``out[i]`` = P(w with w_i = 0, b*) on the columns XS (m, B); returns the scores
    f = XS w (m)."""
    m, k = XS.shape
    f = np.zeros(m)
    for r in range(m):
        for p in range(k):
            f[r] += XS[r, p] * w[p]
    ww = 0.0
    for p in range(k):
        ww += w[p] * w[p]
    g = np.empty(m)
    for i in range(k):
        for r in range(m):
            g[r] = f[r] - XS[r, i] * w[i]
        b = best_intercept(g, y)
        hinge = 0.0
        for r in range(m):
            h = 1.0 - y[r] * (g[r] + b)
            if h > 0.0:
                hinge += h
        out[i] = 0.5 * (ww - w[i] * w[i]) + C * hinge
    return f


@njit(cache=True, nogil=True)
def removal_state(XS, y, w, f, i):
    """After w_i := 0: the intercept b* re-optimised and a_r = 1 - y_r (f_r - x_ri w_i + b*)."""
    m = y.shape[0]
    g = np.empty(m)
    for r in range(m):
        g[r] = f[r] - XS[r, i] * w[i]
    b = best_intercept(g, y)
    a = np.empty(m)
    for r in range(m):
        a[r] = 1.0 - y[r] * (g[r] + b)
    return a


@njit(cache=True, nogil=True)
def swap_values(Xt, y, C, a, cand, out):
    """``out[q]`` = the line minimum for feature cand[q] at the removal state ``a``
    (:func:`removal_state`); ``Xt`` is X' (n, m) contiguous."""
    m = y.shape[0]
    c = np.empty(m)
    kinks = np.empty(m)
    rows = np.empty(m, np.int64)
    for q in range(cand.shape[0]):
        j = cand[q]
        for r in range(m):
            c[r] = y[r] * Xt[j, r]
        out[q] = line_minimum(a, c, C, kinks, rows)[0]


@njit(cache=True, nogil=True)
def smallest_swap_values(Xt, y, C, state, cand, pick, out):
    """``out[k, q]`` = off[k] + the line minimum of feature cand[q] at the removal state
    A[k] (as :func:`swap_values`), ``state`` = (A, off), for the pairs that can be among the
    ``T`` smallest; +inf elsewhere. ``pick`` = (lower, order, T).

    ``lower[k, q]`` - off[k] is a lower bound on the line minimum: the hinge part h of the
    line function is convex, so h(t) >= h(0) + s t for its subgradient
    s = -C sum_{a_r > 0} c_r at 0, and min_t 1/2 t^2 + h(t) >= h(0) - s^2 / 2 (+inf for a
    pair left out). Pairs are computed in
    increasing ``order`` of that bound until it reaches the T-th smallest value computed: the
    pairs skipped cannot be among the T smallest (lymphoma, B = 10: a few hundred line
    minimisations in place of 3 x 4016).
    """
    A, off = state
    lower, order, T = pick
    m = y.shape[0]
    nq = cand.shape[0]
    out[:, :] = np.inf
    c = np.empty(m)
    kinks = np.empty(m)
    rows = np.empty(m, np.int64)
    best = np.full(T, np.inf)     # the T smallest values so far; tau = their maximum
    tau, where = np.inf, 0
    for flat in order:
        k, q = flat // nq, flat % nq
        lo = lower[k, q]
        if lo >= tau or not np.isfinite(lo):
            break
        j = cand[q]
        for r in range(m):
            c[r] = y[r] * Xt[j, r]
        v = line_minimum(A[k], c, C, kinks, rows)[0] + off[k]
        out[k, q] = v
        if v < tau:
            best[where] = v
            tau, where = -np.inf, 0
            for s in range(T):
                if best[s] > tau:
                    tau, where = best[s], s


def line_lower_bounds(Xt: np.ndarray, rows: np.ndarray, y: np.ndarray, C: float,
                       A: np.ndarray) -> np.ndarray:
    """Lower bounds on the line minima min_t 1/2 t^2 + C sum_r max(0, a_r - t y_r x_rj)
    (:func:`line_minimum`) for each removal state a (rows of A) and feature j in ``rows``
    (of X' = ``Xt``). Weak duality: C max(0, z) >= beta z for beta in [0, C], so for any
    beta in [0, C]^m the line function is at least 1/2 t^2 + sum_r beta_r (a_r - t c_r),
    whose minimum is beta'a - (beta'c)^2 / 2. Here beta = lam C 1_R: with A_R = C sum_R a_r
    and s = C sum_R c_r, the best lam in [0, 1] gives A_R - s^2 / 2 when s^2 <= A_R, else
    A_R^2 / (2 s^2). R = {a_r > tau} for tau = 0 and the octiles of the positive a_r (the
    rows barely violated leave R first as t grows); the best of the eight, all states in one
    product with X'."""
    Rs, consts = [], []
    for a in A:
        pos = a[a > 0]
        taus = np.concatenate([[0.0], np.quantile(pos, np.arange(1, 8) / 8)]) if pos.size \
            else np.zeros(1)
        R = a[None, :] > taus[:, None]                                     # (taus, m)
        Rs.append(R)
        consts.append(C * (R @ a))
    sizes = np.cumsum([0] + [R.shape[0] for R in Rs])
    s2 = (np.vstack(Rs) * y[None, :]) @ Xt.T                               # (all taus, n)
    s2 *= C
    s2 *= s2
    out = np.empty((A.shape[0], Xt.shape[0]))
    for k in range(A.shape[0]):
        a_R, sq = consts[k][:, None], s2[sizes[k]:sizes[k + 1]]
        with np.errstate(divide="ignore", invalid="ignore"):
            bound = np.where(sq <= a_R, a_R - 0.5 * sq, 0.5 * a_R * a_R / sq)
        np.max(bound, axis=0, out=out[k])
    return out[:, rows]
