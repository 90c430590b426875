"""The linear SVM (paper D eq. (1)) on a few columns, by warm-started dual coordinate descent.

    min_{w, b, xi} 1/2 ||w||^2 + C sum_i xi_i  s.t.  y_i (w'x_i + b) >= 1 - xi_i, xi >= 0,

with the intercept b *unregularised*, as in paper D. Its dual is

    max_alpha D(alpha) = 1'alpha - 1/2 ||w(alpha)||^2,  w(alpha) = X'(alpha * y),
    0 <= alpha <= C,  y'alpha = 0.

Liblinear's dual coordinate descent (Hsieh, Chang, Lin, Keerthi & Sundararajan, ICML 2008)
keeps ``w(alpha)`` and updates one alpha_i at a time; that needs a *regularised* bias (no
equality constraint). Here the bias is the paper's, so the coordinates move in pairs (i, j)
along y'alpha = 0, chosen by the second-order rule of Fan, Chen & Lin (JMLR 2005, libsvm's
WSS2), with the kernel rows of the linear kernel computed from the columns (O(m k) per step,
k = number of columns) and ``w`` and the gradient ``G_t = y_t x_t'w - 1`` kept up to date.
The dual feasible set does not depend on the columns, so the alpha of one support is a warm
start for any other: the swap searches of paper D's problem (2) move from support to support
without starting over.

Every solve carries its own certificate: P(w, b*) at the optimal intercept b* (an exact
one-dimensional minimisation, O(m log m)) is the objective of a feasible point, and D(alpha)
a lower bound on the optimum (weak duality), so ``P - D`` bounds the error.
:func:`dcd_below` decides "is the optimum on these columns below ``cutoff``?" and stops as
soon as either certificate answers.

Everything hot is numba (``cache=True``: a fresh process loads the compiled code).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .certificate import certificate, dual_value
from .status import ABOVE, BELOW, UNDECIDED

__all__ = ["dcd_below"]

CONVERGED, CUT_OFF, ITERATION_LIMIT = 0, 1, 2
TAU = 1e-12  # libsvm's floor on the curvature of a pair


@njit(cache=True, nogil=True)
def init_state(XS, y, st):
    """In ``st`` = (alpha, w, G, diag): w = XS'(alpha * y), G = y * (XS w) - 1 and
    diag_t = ||x_t||^2."""
    alpha, w, G, diag = st
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
        d = 0.0
        for f in range(k):
            s += XS[t, f] * w[f]
            d += XS[t, f] * XS[t, f]
        G[t] = y[t] * s - 1.0
        diag[t] = d


@njit(cache=True, nogil=True)
def _pair_step(alpha, G, y, C, i, j, q):
    """libsvm's two-variable update of (alpha_i, alpha_j) along y'alpha = 0, clipped to the
    box; returns the two changes."""
    ai, aj = alpha[i], alpha[j]
    if y[i] != y[j]:
        delta = (-G[i] - G[j]) / q
        diff = ai - aj
        ni, nj = ai + delta, aj + delta
        if diff > 0.0:
            if nj < 0.0:
                nj, ni = 0.0, diff
            if ni > C:
                ni, nj = C, C - diff
        else:
            if ni < 0.0:
                ni, nj = 0.0, -diff
            if nj > C:
                nj, ni = C, C + diff
    else:
        delta = (G[i] - G[j]) / q
        s = ai + aj
        ni, nj = ai - delta, aj + delta
        if s > C:
            if ni > C:
                ni, nj = C, s - C
            if nj > C:
                nj, ni = C, s - C
        else:
            if nj < 0.0:
                nj, ni = 0.0, s
            if ni < 0.0:
                ni, nj = 0.0, s
    alpha[i], alpha[j] = ni, nj
    return ni - ai, nj - aj


@njit(cache=True, nogil=True)
def _select(alpha, G, y, C, diag, Ki, gmax, i):
    """libsvm's second-order choice of j for the pair (i, j); returns (j, m(alpha) gap)."""
    m = alpha.shape[0]
    gmax2, j, best = -np.inf, -1, np.inf
    for t in range(m):
        if y[t] > 0.0:
            if alpha[t] <= 0.0:
                continue
            v = G[t]
        else:
            if alpha[t] >= C:
                continue
            v = -G[t]
        if v >= gmax2:
            gmax2 = v
        gd = gmax + v
        if gd > 0.0:
            q = diag[i] + diag[t] - 2.0 * Ki[t]
            if q <= 0.0:
                q = TAU
            od = -gd * gd / q
            if od <= best:
                best, j = od, t
    return j, gmax + gmax2


@njit(cache=True, nogil=True)
def dcd_run(XS, y, C, st, tol, max_iter, cutoff):
    """Pair updates from a consistent ``st`` = (alpha, w, G, diag) until the maximal KKT
    violation m(alpha) - M(alpha) < tol (CONVERGED), the dual value reaches ``cutoff``
    (CUT_OFF: the optimum is >= cutoff) or ``max_iter`` (ITERATION_LIMIT). Returns
    (iterations, status)."""
    alpha, w, G, diag = st
    m, k = XS.shape
    Ki = np.empty(m)
    dw = np.empty(k)
    sa = 0.0
    for t in range(m):
        sa += alpha[t]
    ww = 0.0
    for f in range(k):
        ww += w[f] * w[f]
    for it in range(max_iter):
        if sa - 0.5 * ww >= cutoff:
            return it, CUT_OFF
        gmax, i = -np.inf, -1  # i = argmax over I_up of -y_t G_t
        for t in range(m):
            if y[t] > 0.0:
                if alpha[t] < C and -G[t] >= gmax:
                    gmax, i = -G[t], t
            elif alpha[t] > 0.0 and G[t] >= gmax:
                gmax, i = G[t], t
        if i < 0:
            return it, CONVERGED
        for t in range(m):
            s = 0.0
            for f in range(k):
                s += XS[t, f] * XS[i, f]
            Ki[t] = s
        j, viol = _select(alpha, G, y, C, diag, Ki, gmax, i)  # second order, over I_low
        if viol < tol or j < 0:
            return it, CONVERGED
        q = diag[i] + diag[j] - 2.0 * Ki[j]
        dai, daj = _pair_step(alpha, G, y, C, i, j, q if q > 0.0 else TAU)
        sa += dai + daj
        ci, cj = dai * y[i], daj * y[j]
        ww = 0.0
        for f in range(k):
            dw[f] = ci * XS[i, f] + cj * XS[j, f]
            w[f] += dw[f]
            ww += w[f] * w[f]
        for t in range(m):
            s = 0.0
            for f in range(k):
                s += XS[t, f] * dw[f]
            G[t] += y[t] * s
    return max_iter, ITERATION_LIMIT


@njit(cache=True, nogil=True)
def dcd_below(XS, y, C, alpha, w, cutoff, limits):
    """Decide whether the SVM optimum on the columns XS is below ``cutoff``, from the warm
    start ``alpha`` (updated in place; ``w`` receives XS'(alpha y)).

    ``limits`` = (tol, tol_final, max_iter). Pair updates at tolerance ``tol``; then the
    certificate: P(w, b*) < cutoff is a feasible point below (BELOW); D(alpha) >= cutoff
    proves the optimum is not (ABOVE, also checked at every step); otherwise the tolerance
    shrinks 100-fold, down to ``tol_final``, after which the answer is ABOVE up to the gap
    P - D; UNDECIDED after ``max_iter`` pair updates. When the running dual reaches the
    cutoff, D(alpha) is recomputed exactly and, if it holds, the answer is ABOVE with P left
    at inf (the primal point's O(m k) and sort are not needed for a proof).
    Returns (status, P, D, b, iterations).
    """
    tol, tol_final, max_iter = limits
    m = XS.shape[0]
    st = (alpha, w, np.empty(m), np.empty(m))
    init_state(XS, y, st)
    total = 0
    t = tol
    while True:
        it, how = dcd_run(XS, y, C, st, t, max_iter - total, cutoff)
        total += it
        if how == CUT_OFF:       # the dual reached the cutoff: recomputed exactly, no P
            dual = dual_value(XS, y, alpha, w)
            if dual >= cutoff:
                return ABOVE, np.inf, dual, 0.0, total
        primal, dual, b = certificate(XS, y, C, alpha, w)
        if primal < cutoff:
            return BELOW, primal, dual, b, total
        if how == CUT_OFF or dual >= cutoff or t <= tol_final:
            return ABOVE, primal, dual, b, total
        if total >= max_iter:
            return UNDECIDED, primal, dual, b, total
        t = max(t * 0.01, tol_final)
        init_state(XS, y, st)  # a fresh gradient: no drift between rounds
