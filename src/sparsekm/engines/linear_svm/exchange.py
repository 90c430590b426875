"""The linear SVM (paper D eq. (1)) on a support that differs from a solved one by a few
features: warm pair updates whose kernel rows come from the solved support's Gram matrix.

A swap search of paper D's problem (2) decides hundreds of supports S' = S - P + F (P the
features leaving, F those entering, |P| = |F| = r, mostly r = 1) against one incumbent S with
its dual point alpha0. The pair updates of :mod:`.dcd` need two kernel rows per step, O(m k)
each on k columns; with K = X_S X_S' computed once per incumbent, a row of the new kernel is

    K'_i = K_i - sum_{p in P} x_ip X_p + sum_{f in F} x_if X_f,      O(m (1 + 2 r)),

and the starting gradient G = y * (X_S' w(alpha0)) - 1 and the diagonal ||x_t||^2 follow
from the incumbent's by the same r columns. Same pair updates (libsvm's second-order working
set, Fan, Chen & Lin 2005), same rounds and the same certificate (P(w, b*) and D(alpha)
recomputed exactly on X_S' at the end of each round) as :func:`.dcd.dcd_below`, so the same
decisions; each step costs O(m (1 + 2 r) + k) instead of O(m k).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .certificate import certificate, dual_value
from .dcd import CONVERGED, CUT_OFF, ITERATION_LIMIT, TAU, _pair_step, _select
from .status import ABOVE, BELOW, UNDECIDED

__all__ = ["column_weights", "exchange_below", "gram_state"]


@njit(cache=True, nogil=True)
def gram_state(XS, y, alpha0, K, G0):
    """For the incumbent's columns XS (m, k) and dual point alpha0: K = XS XS' and
    G0 = y * (XS w0) - 1 into the given arrays; returns w0 = XS'(alpha0 y)."""
    m, k = XS.shape
    w0 = np.zeros(k)
    for t in range(m):
        c = alpha0[t] * y[t]
        for f in range(k):
            w0[f] += c * XS[t, f]
    for t in range(m):
        s = 0.0
        for f in range(k):
            s += XS[t, f] * w0[f]
        G0[t] = y[t] * s - 1.0
        for u in range(t + 1):
            v = 0.0
            for f in range(k):
                v += XS[t, f] * XS[u, f]
            K[t, u] = v
            K[u, t] = v
    return w0


@njit(cache=True, nogil=True)
def column_weights(XS, y, alpha, w, cols):
    """w_c = XS[:, c]'(alpha y) for the columns ``cols`` (the others left as they are)."""
    m = XS.shape[0]
    for c in cols:
        s = 0.0
        for t in range(m):
            s += XS[t, c] * alpha[t] * y[t]
        w[c] = s


@njit(cache=True, nogil=True)
def _row(K, Xt, change, i, out):
    """Row i of the new kernel: K_i - sum_P x_ip X_p + sum_F x_if X_f."""
    gone, new = change[0], change[1]
    m = out.shape[0]
    for t in range(m):
        out[t] = K[i, t]
    for q in range(gone.shape[0]):
        p = gone[q]
        a = Xt[p, i]
        if a != 0.0:
            for t in range(m):
                out[t] -= a * Xt[p, t]
    for q in range(new.shape[0]):
        f = new[q]
        a = Xt[f, i]
        if a != 0.0:
            for t in range(m):
                out[t] += a * Xt[f, t]


@njit(cache=True, nogil=True)
def _run(XS, base, change, y, C, st, cutoff, limits):
    """:func:`.dcd.dcd_run` with the kernel rows of :func:`_row`; ``st`` = (alpha, w, G,
    diag), ``limits`` = (tol, pair updates). Returns (iterations, status)."""
    alpha, w, G, diag = st
    K, Xt = base[0], base[3]
    tol, max_iter = limits
    m, k = XS.shape
    Ki = np.empty(m)
    Kj = np.empty(m)
    sa = 0.0
    for t in range(m):
        sa += alpha[t]
    ww = 0.0
    for f in range(k):
        ww += w[f] * w[f]
    for it in range(max_iter):
        if sa - 0.5 * ww >= cutoff:
            return it, CUT_OFF
        gmax, i = -np.inf, -1
        for t in range(m):
            if y[t] > 0.0:
                if alpha[t] < C and -G[t] >= gmax:
                    gmax, i = -G[t], t
            elif alpha[t] > 0.0 and G[t] >= gmax:
                gmax, i = G[t], t
        if i < 0:
            return it, CONVERGED
        _row(K, Xt, change, i, Ki)
        j, viol = _select(alpha, G, y, C, diag, Ki, gmax, i)
        if viol < tol or j < 0:
            return it, CONVERGED
        q = diag[i] + diag[j] - 2.0 * Ki[j]
        dai, daj = _pair_step(alpha, G, y, C, i, j, q if q > 0.0 else TAU)
        sa += dai + daj
        ci, cj = dai * y[i], daj * y[j]
        ww = 0.0
        for f in range(k):
            w[f] += ci * XS[i, f] + cj * XS[j, f]
            ww += w[f] * w[f]
        _row(K, Xt, change, j, Kj)
        for t in range(m):
            G[t] += y[t] * (ci * Ki[t] + cj * Kj[t])
    return max_iter, ITERATION_LIMIT


@njit(cache=True, nogil=True)
def _fresh(XS, y, alpha, w, G):
    """w = XS'(alpha y) and G = y * (XS w) - 1, exactly."""
    m, k = XS.shape
    for f in range(k):
        w[f] = 0.0
    for t in range(m):
        c = alpha[t] * y[t]
        if c != 0.0:
            for f in range(k):
                w[f] += c * XS[t, f]
    for t in range(m):
        s = 0.0
        for f in range(k):
            s += XS[t, f] * w[f]
        G[t] = y[t] * s - 1.0


@njit(cache=True, nogil=True)
def exchange_below(XS, base, change, y, C, state, cutoff, limits):
    """Is the SVM optimum on the new columns XS (m, k) below ``cutoff``? As
    :func:`.dcd.dcd_below`, from ``state`` = (alpha, w, own): alpha the incumbent's dual
    point (the one ``base`` was made at), updated in place; w must hold X_S'(alpha y) on
    entry (:func:`column_weights`: the incumbent's weights with the r new columns') and
    receives it at the end. ``own`` True: alpha is another feasible point (e.g. an earlier
    decision's); w and the gradient are then computed from it, O(m k).

    ``base`` = (K, G0, diag0, Xt): the incumbent's Gram matrix, gradient and diagonal
    (:func:`gram_state`) and X' (n, m); ``change`` = (P, F): the features leaving and
    entering. Returns (status, P, D, b, pair updates); P is inf when the dual reached the
    cutoff (as in :func:`.dcd.dcd_below`).
    """
    alpha, w, own = state
    G0, diag0, Xt = base[1], base[2], base[3]
    gone, new = change
    tol, tol_final, max_iter = limits
    m = XS.shape[0]
    G = np.empty(m)
    diag = np.empty(m)
    for t in range(m):      # the diagonal of the new kernel: r columns out, r in
        dd = diag0[t]
        for q in range(gone.shape[0]):
            dd -= Xt[gone[q], t] * Xt[gone[q], t]
        for q in range(new.shape[0]):
            dd += Xt[new[q], t] * Xt[new[q], t]
        diag[t] = dd
    if own:
        _fresh(XS, y, alpha, w, G)
    else:                   # G0 with the r columns' terms: X_p'(alpha0 y), X_f'(alpha0 y)
        dg = np.zeros(gone.shape[0])
        dn = np.zeros(new.shape[0])
        for t in range(m):
            c = alpha[t] * y[t]
            for q in range(gone.shape[0]):
                dg[q] += Xt[gone[q], t] * c
            for q in range(new.shape[0]):
                dn[q] += Xt[new[q], t] * c
        for t in range(m):
            g = G0[t]
            for q in range(gone.shape[0]):
                g -= y[t] * Xt[gone[q], t] * dg[q]
            for q in range(new.shape[0]):
                g += y[t] * Xt[new[q], t] * dn[q]
            G[t] = g
    st = (alpha, w, G, diag)
    total = 0
    tl = tol
    while True:
        it, how = _run(XS, base, change, y, C, st, cutoff, (tl, max_iter - total))
        total += it
        if how == CUT_OFF:
            dual = dual_value(XS, y, alpha, w)
            if dual >= cutoff:
                return ABOVE, np.inf, dual, 0.0, total
        primal, dual, b = certificate(XS, y, C, alpha, w)
        if primal < cutoff:
            return BELOW, primal, dual, b, total
        if how == CUT_OFF or dual >= cutoff or tl <= tol_final:
            return ABOVE, primal, dual, b, total
        if total >= max_iter:
            return UNDECIDED, primal, dual, b, total
        tl = max(tl * 0.01, tol_final)
        _fresh(XS, y, alpha, w, G)
