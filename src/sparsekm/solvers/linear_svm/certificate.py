"""The linear SVM's certificate from any dual point (paper D eq. (1), weak duality), compiled.

For alpha in [0, C] with y'alpha = 0 and w(alpha) = X'(alpha * y):

    D(alpha) = 1'alpha - 1/2 ||w(alpha)||^2  <=  SVM optimum  <=  P(w, b*),
    P(w, b) = 1/2 ||w||^2 + C sum_i max(0, 1 - y_i (w'x_i + b)),

with b* the exact minimiser of the hinge sum for fixed w (a kink of a convex piecewise-linear
function, found after one sort). The same certificate as :mod:`sparsekm.solvers.smo.certificate`
(kernel form), here on explicit columns and in numba for the inner loops of paper D's searches.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["best_intercept", "certificate", "feasible_dual", "primal_best_b"]


@njit(cache=True, nogil=True)
def best_intercept(f, y):
    """The b minimising sum_i max(0, 1 - y_i (f_i + b)) for scores f (kinks at y_i - f_i;
    the first kink where the slope to its right is >= 0)."""
    m = f.shape[0]
    kinks = y - f
    order = np.argsort(kinks)
    npos = 0
    for t in range(m):
        if y[t] > 0.0:
            npos += 1
    pos_seen, neg_seen = 0, 0
    for r in range(m):
        t = order[r]
        if y[t] > 0.0:
            pos_seen += 1
        else:
            neg_seen += 1
        if neg_seen - (npos - pos_seen) >= 0:
            return kinks[t]
    return kinks[order[m - 1]]


@njit(cache=True, nogil=True)
def primal_best_b(XS, y, C, w):
    """(P(w, b*), b*): the primal value of ``w`` on the columns XS at its optimal intercept."""
    m, k = XS.shape
    sc = np.empty(m)
    for t in range(m):
        s = 0.0
        for p in range(k):
            s += XS[t, p] * w[p]
        sc[t] = s
    b = best_intercept(sc, y)
    ww = 0.0
    for p in range(k):
        ww += w[p] * w[p]
    hinge = 0.0
    for t in range(m):
        h = 1.0 - y[t] * (sc[t] + b)
        if h > 0.0:
            hinge += h
    return 0.5 * ww + C * hinge, b


@njit(cache=True, nogil=True)
def certificate(XS, y, C, alpha, w):
    """w = XS'(alpha y) into ``w``; returns (P(w, b*), D(alpha), b*)."""
    m, k = XS.shape
    for p in range(k):
        w[p] = 0.0
    sa = 0.0
    for t in range(m):
        sa += alpha[t]
        c = alpha[t] * y[t]
        if c != 0.0:
            for p in range(k):
                w[p] += c * XS[t, p]
    P, b = primal_best_b(XS, y, C, w)
    ww = 0.0
    for p in range(k):
        ww += w[p] * w[p]
    return P, sa - 0.5 * ww, b


@njit(cache=True, nogil=True)
def feasible_dual(y, a, C, out):
    """``a`` clipped to [0, C] with the heavier class scaled down so that y'out = 0."""
    sp, sn = 0.0, 0.0
    for t in range(a.shape[0]):
        out[t] = min(max(a[t], 0.0), C)
        if y[t] > 0.0:
            sp += out[t]
        else:
            sn += out[t]
    if sp > sn and sp > 0.0:
        f, pos = sn / sp, True
    elif sn > sp and sn > 0.0:
        f, pos = sp / sn, False
    else:
        return
    for t in range(a.shape[0]):
        if (y[t] > 0.0) == pos:
            out[t] *= f
