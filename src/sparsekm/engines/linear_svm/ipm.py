"""The linear SVM (paper D eq. (1)) on a few columns by a primal-dual interior-point method.

    min_{w, b, xi} 1/2 ||w||^2 + C 1'xi   s.t.  r = y * (X w + b) + xi - 1 >= 0,  xi >= 0,

with multipliers 0 <= alpha <= C (the SVM dual) and the bias b unregularised, as in paper D.
Mehrotra's predictor-corrector on the complementarity pairs (alpha, r) and (C - alpha, xi);
the Newton system reduces to (k + 1) x (k + 1) normal equations

    (E + Z' Theta Z) [dw; db] = rhs,   Z = [X, 1],  E = diag(1, ..., 1, 0),

so one iteration costs O(m k^2) (Ferris & Munson, "Interior-point methods for massive support
vector machines", SIAM J. Optim. 13 (2003): the linear SVM with many rows and few columns).
Unlike the pair updates of :mod:`.dcd`, whose iteration count grows with C when the
classes overlap (thousands of pair steps for m = 120, k = 10, C = 1), the IPM takes 15-30
iterations whatever C: it is the workhorse for the supports of paper D's swap searches.

Each iteration ends with the SVM's certificate (:func:`.certificate.certificate`): P(w, b*) at
the optimal intercept is the objective of a feasible point; D(alpha~) at alpha made feasible
(clipped, heavier class scaled down so that y'alpha = 0) is a lower bound on the optimum. The
solve stops when P - D <= tol * max(1, P), or -- given a ``cutoff`` -- as soon as P < cutoff
(BELOW) or D >= cutoff (ABOVE).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .certificate import certificate, feasible_dual, primal_best_b
from .status import ABOVE, BELOW

__all__ = ["ipm_below"]

STEP = 0.99   # fraction of the step to the boundary


@njit(cache=True, nogil=True)
def _cholesky(M):
    """M = L L' in place (L in the lower triangle) for a small symmetric positive definite M."""
    d = M.shape[0]
    for c in range(d):
        s = M[c, c]
        for t in range(c):
            s -= M[c, t] * M[c, t]
        s = max(s, 1e-14 * (1.0 + abs(M[c, c])))
        M[c, c] = np.sqrt(s)
        for r in range(c + 1, d):
            v = M[r, c]
            for t in range(c):
                v -= M[r, t] * M[c, t]
            M[r, c] = v / M[c, c]


@njit(cache=True, nogil=True)
def _cholesky_solve(L, rhs, out):
    """Solve L L' out = rhs, L from :func:`_cholesky`."""
    d = L.shape[0]
    for r in range(d):
        v = rhs[r]
        for t in range(r):
            v -= L[r, t] * out[t]
        out[r] = v / L[r, r]
    for r in range(d - 1, -1, -1):
        v = out[r]
        for t in range(r + 1, d):
            v -= L[t, r] * out[t]
        out[r] = v / L[r, r]


@njit(cache=True, nogil=True)
def _max_step(x, dx):
    """Largest s in (0, 1] with x + s dx >= 0 (x > 0)."""
    s = 1.0
    for t in range(x.shape[0]):
        if dx[t] < 0.0:
            s = min(s, -x[t] / dx[t])
    return s


@njit(cache=True, nogil=True)
def _normal_matrix(XS, pt, M, theta):
    """The normal matrix E + Z' Theta Z of the Newton system at ``pt`` = (a, u, r, xi),
    Theta = diag(a / (r + a xi / u)), Cholesky-factored into M ((k+1, k+1)); ``theta``
    receives Theta's diagonal. The predictor and the corrector share it: O(m k^2) once per
    iteration."""
    a, u, r, xi = pt
    m, k = XS.shape
    d = k + 1
    M[:, :] = 0.0
    for p in range(k):
        M[p, p] = 1.0
    for t in range(m):
        th = a[t] / (r[t] + a[t] * xi[t] / u[t])
        theta[t] = th
        for p in range(k):
            zp = th * XS[t, p]
            for q in range(p + 1):
                M[p, q] += zp * XS[t, q]
            M[k, p] += zp
        M[k, k] += th
    for p in range(d):
        for q in range(p + 1, d):
            M[p, q] = M[q, p]
    _cholesky(M)


@njit(cache=True, nogil=True)
def _direction(XS, y, pt, res, tau, fac, step):
    """Newton direction for the targets a*r -> tau[0], u*xi -> tau[1] (module doc) into
    ``step`` = (dv, da, dxi, dr); ``pt`` = (a, u, r, xi), ``res`` = (rw, rb), ``fac`` =
    (M, theta) from :func:`_normal_matrix` at ``pt``."""
    a, u, r, xi = pt
    rw, rb = res
    tau1, tau2 = tau
    M, theta = fac
    dv, da, dxi, dr = step
    m, k = XS.shape
    d = k + 1
    rhs = np.zeros(d)
    for p in range(k):
        rhs[p] = -rw[p]
    rhs[k] = rb
    g = np.empty(m)
    h = np.empty(m)
    for t in range(m):
        h[t] = (tau2[t] - u[t] * xi[t]) / u[t]
        den = r[t] + a[t] * xi[t] / u[t]
        g[t] = (tau1[t] - a[t] * r[t] - a[t] * h[t]) / den
        yg = y[t] * g[t]
        for p in range(k):
            rhs[p] += XS[t, p] * yg
        rhs[k] += yg
    _cholesky_solve(M, rhs, dv)
    for t in range(m):
        zv = dv[k]
        for p in range(k):
            zv += XS[t, p] * dv[p]
        da[t] = g[t] - theta[t] * y[t] * zv
        dxi[t] = h[t] + xi[t] / u[t] * da[t]
        dr[t] = y[t] * zv + dxi[t]


@njit(cache=True, nogil=True)
def _step_length(pt, step):
    """Largest s in (0, 1] keeping r, xi, a, C - a >= 0 along ``step``."""
    a, u, r, xi = pt
    dv, da, dxi, dr = step
    return min(_max_step(r, dr), _max_step(xi, dxi), _max_step(a, da), _max_step(u, -da))


@njit(cache=True, nogil=True)
def _residuals(XS, y, v, pt, rw):
    """r = y * (XS w + b) + xi - 1 (into pt[2]), rw = w - XS'(a y); returns (rb = y'a, mu)."""
    a, u, r, xi = pt
    m, k = XS.shape
    for p in range(k):
        rw[p] = v[p]
    rb = 0.0
    mu = 0.0
    for t in range(m):
        zv = v[k]
        for p in range(k):
            zv += XS[t, p] * v[p]
        r[t] = y[t] * zv + xi[t] - 1.0
        c = y[t] * a[t]
        for p in range(k):
            rw[p] -= XS[t, p] * c
        rb += c
        mu += a[t] * r[t] + u[t] * xi[t]
    return rb, mu / (2.0 * m)


@njit(cache=True, nogil=True)
def ipm_below(XS, y, C, cutoff, tol, max_iter, alpha_out, w_out):
    """The SVM (1) on the columns ``XS`` (m, k) by Mehrotra's predictor-corrector.

    Stops when P - D <= tol * max(1, |P|) (status BELOW if P < cutoff, else ABOVE), or
    early when P < cutoff (BELOW) or D >= cutoff (ABOVE); ``cutoff = inf`` solves to
    ``tol``. ``alpha_out`` receives the feasible dual point of the best D met, ``w_out``
    and ``b`` the primal point of the best P met (the IPM's own w, or w(alpha), each at its
    optimal intercept). Returns (status, P, D, b, iterations).
    """
    m, k = XS.shape
    v = np.zeros(k + 1)
    a = np.full(m, 0.5 * C)
    pt = (a, C - a, np.empty(m), np.full(m, 2.0))   # (a, u = C - a, r, xi)
    u, xi = pt[1], pt[3]
    step = (np.empty(k + 1), np.empty(m), np.empty(m), np.empty(m))
    dv, da, dxi, dr = step
    r = pt[2]
    rw = np.empty(k)
    M = np.empty((k + 1, k + 1))
    theta = np.empty(m)
    zero = np.zeros(m)
    tau = (np.empty(m), np.empty(m))
    wa = np.empty(k)
    af = np.empty(m)
    best_p, best_d, best_b = np.inf, -np.inf, 0.0
    it = 0
    for it in range(1, max_iter + 1):
        rb, mu = _residuals(XS, y, v, pt, rw)
        _normal_matrix(XS, pt, M, theta)
        _direction(XS, y, pt, (rw, rb), (zero, zero), (M, theta), step)   # predictor
        s = _step_length(pt, step)
        mu_aff = 0.0
        for t in range(m):
            mu_aff += (a[t] + s * da[t]) * (r[t] + s * dr[t]) + \
                (u[t] - s * da[t]) * (xi[t] + s * dxi[t])
        sigma = (mu_aff / (2.0 * m * mu)) ** 3 if mu > 0.0 else 0.0
        for t in range(m):
            tau[0][t] = sigma * mu - da[t] * dr[t]
            tau[1][t] = sigma * mu + da[t] * dxi[t]
        _direction(XS, y, pt, (rw, rb), tau, (M, theta), step)            # corrector
        s = min(1.0, STEP * _step_length(pt, step))
        for p in range(k + 1):
            v[p] += s * dv[p]
        for t in range(m):
            xi[t] += s * dxi[t]
            a[t] += s * da[t]
            u[t] = C - a[t]
        # the certificates: the dual point made feasible, and the primal w at its best b
        feasible_dual(y, a, C, af)
        primal, dual, b = certificate(XS, y, C, af, wa)
        if dual > best_d:
            best_d = dual
            alpha_out[:] = af
        primal2, b2 = primal_best_b(XS, y, C, v[:k])
        if primal2 < primal:
            primal, b = primal2, b2
            wa[:] = v[:k]
        if primal < best_p:
            best_p, best_b = primal, b
            w_out[:] = wa
        if cutoff < np.inf and best_p < cutoff:
            return BELOW, best_p, best_d, best_b, it
        if best_d >= cutoff:
            return ABOVE, best_p, best_d, best_b, it
        if best_p - best_d <= tol * max(1.0, abs(best_p)):
            break
    return (BELOW if best_p < cutoff else ABOVE), best_p, best_d, best_b, it
