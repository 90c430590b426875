"""A dense primal-dual interior-point solver for the node dual SOCP, for small m (numba).

Solves, for a working set W (rows of ``QW`` = (y * x_j)' for j in W) and ``QF`` =
Y X_F1 X_F1' Y (m x m),

    min  1/2 a'QF a - 1'a + k tau / 2 + 1/2 sum_j t_j
    s.t. s_j^2 - t_j - tau <= 0 (s_j = QW_j a),  t >= 0,  0 <= a <= C,  tau >= 0,  y'a = 0,

i.e. the negated dual of a node's perspective relaxation (see
:mod:`sparsekm.relaxations.fs_linear.node`), with the
primal-dual path-following method of Boyd & Vandenberghe, Convex Optimization, Section 11.7.
The t variables are eliminated per j, so each Newton step solves one dense (m + 2) system:
O(|W| m^2 + m^3) work, far less than a general sparse conic solver for the m <= ~150 of the
microarray sets. Its output needs no certificate of its own: the caller evaluates the node
bound at the returned (feasible) multipliers. The relaxed selection is v_j = 2 lambda_j
(the multiplier of s_j^2 <= t_j + tau, doubled).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["ipm_node_dual"]


@njit(cache=True)
def _slacks(a, tau, t, QW, C):
    s = QW @ a
    phi = t + tau - s * s
    ok = tau > 0.0
    for j in range(t.size):
        if phi[j] <= 0.0 or t[j] <= 0.0:
            ok = False
    for i in range(a.size):
        if a[i] <= 0.0 or a[i] >= C:
            ok = False
    return s, phi, ok


@njit(cache=True)
def _residual(prob, x, z, s, phi, T):
    """Norms of the KKT residual with centring 1/T: (all, stationarity, y'a)."""
    QW, QF, y, C, k = prob
    a, tau, t = x
    lam, mu, zeta, omega, kappa, nu = z
    ra = QF @ a - 1.0 + 2.0 * (QW.T @ (lam * s)) - zeta + omega + nu * y
    rtau = 0.5 * k - lam.sum() - kappa
    rt = 0.5 - lam - mu
    norm = (ra @ ra) + rtau * rtau + (rt @ rt)
    cent = np.sum((lam * phi - 1.0 / T) ** 2) + np.sum((mu * t - 1.0 / T) ** 2) \
        + np.sum((zeta * a - 1.0 / T) ** 2) + np.sum((omega * (C - a) - 1.0 / T) ** 2) \
        + (kappa * tau - 1.0 / T) ** 2
    rp = y @ a
    return np.sqrt(norm + cent + rp * rp), np.sqrt(norm), abs(rp)


@njit(cache=True)
def _direction(K, prob, x, z, s, phi, cd, g):
    """Newton direction for complementarity targets g = (lam*phi, mu*t, zeta*a,
    omega*(C - a), kappa*tau) (Boyd & Vandenberghe (11.54)-(11.55) with r_cent =
    lambda * slack - target), t eliminated; K the reduced matrix, cd = (lam/phi, d)."""
    QW, QF, y, C, k = prob
    a, tau, t = x
    lam, mu, zeta, omega, kappa, nu = z
    c, d = cd
    g1, g2, g3, g4, g5 = g
    m = a.size
    g_t = 0.5 - g1 / phi - g2 / t
    g_a = QF @ a - 1.0 + 2.0 * (QW.T @ (s * g1 / phi)) - g3 / a + g4 / (C - a) + nu * y
    g_tau = 0.5 * k - (g1 / phi).sum() - g5 / tau
    rhs = np.empty(m + 2)
    rhs[:m] = -g_a - QW.T @ (2.0 * c * s * g_t / d)
    rhs[m] = -g_tau + (c * g_t / d).sum()
    rhs[m + 1] = -(y @ a)
    sol = np.linalg.solve(K, rhs)
    da = sol[:m]
    dtau = sol[m]
    ds = QW @ da
    dt = (-g_t + 2.0 * c * s * ds - c * dtau) / d
    dz = (-lam + (g1 + lam * (2.0 * s * ds - dtau - dt)) / phi, -mu + (g2 - mu * dt) / t,
          -zeta + (g3 - zeta * da) / a, -omega + (g4 + omega * da) / (C - a),
          -kappa + (g5 - kappa * dtau) / tau, sol[m + 1])
    return (da, dtau, dt), dz


@njit(cache=True)
def _ratio(v, dv, step):
    """min(step, -v/dv over dv < 0): the step keeping v + step * dv >= 0."""
    for i in range(v.size):
        if dv[i] < 0:
            step = min(step, -v[i] / dv[i])
    return step


@njit(cache=True)
def _max_step(x, z, dx, dz, s, phi, prob):
    """Largest step in [0, 1] keeping duals and linear slacks (and the linearised quadratic
    slacks) nonnegative."""
    QW, C = prob[0], prob[3]
    a, tau, t = x
    da, dtau, dt = dx
    step = 1.0
    for v, dv in zip(z[:4], dz[:4]):
        step = _ratio(v, dv, step)
    step = _ratio(t, dt, step)
    step = _ratio(phi, dt + dtau - 2.0 * s * (QW @ da), step)
    step = _ratio(a, da, step)
    step = _ratio(C - a, -da, step)
    if dz[4] < 0:
        step = min(step, -z[4] / dz[4])
    if dtau < 0:
        step = min(step, -tau / dtau)
    return step


@njit(cache=True)
def ipm_node_dual(QW, QF, y, C, k, a0, tol, max_iter):
    """Returns (a, tau, v, iterations, converged). ``a0`` a starting point (pushed inside)."""
    p, m = QW.shape
    nc = 2 * p + 2 * m + 1
    # --- strictly interior start --------------------------------------------------------
    npos = 0
    for i in range(m):
        if y[i] > 0:
            npos += 1
    nneg = m - npos
    a = np.empty(m)
    a0c = np.minimum(np.maximum(a0, 0.0), C)
    tot = max(a0c.sum(), 1e-6 * C * m)
    for i in range(m):
        mid = 0.5 * tot / (npos if y[i] > 0 else nneg)
        a[i] = 0.9 * a0c[i] + 0.1 * min(mid, 0.5 * C)
    sp = 0.0
    sn = 0.0
    for i in range(m):
        if y[i] > 0:
            sp += a[i]
        else:
            sn += a[i]
    for i in range(m):
        if y[i] > 0 and sp > sn:
            a[i] *= sn / sp
        elif y[i] < 0 and sn > sp:
            a[i] *= sp / sn
    s = QW @ a
    s2 = s * s
    srt = np.sort(s2)
    tau = srt[p - k] if k <= p else 0.0
    tau = max(tau, 1e-3 * max(srt[p - 1], 1e-12))
    t = np.maximum(s2 - tau, 0.0) + 0.1 * tau
    s, phi, ok = _slacks(a, tau, t, QW, C)
    # dual start: stationarity in tau and t holds, complementarity not yet
    lam = np.full(p, 0.45 * k / p if k < p else 0.45)
    mu = 0.5 - lam
    kappa = max(0.5 * k - lam.sum(), 0.05 * k)
    ga = QF @ a - 1.0 + 2.0 * (QW.T @ (lam * s))
    zeta = np.maximum(ga, 0.0) + 1e-3
    omega = np.maximum(-ga, 0.0) + 1e-3
    nu = 0.0
    K = np.zeros((m + 2, m + 2))
    it = 0
    converged = False
    prob = (QW, QF, y, C, k)
    x = (a, tau, t)
    z = (lam, mu, zeta, omega, kappa, nu)
    while it < max_iter:
        it += 1
        eta = lam @ phi + mu @ t + zeta @ a + omega @ (C - a) + kappa * tau
        _, rdual, rpri = _residual(prob, x, z, s, phi, nc / eta)
        fscale = 1.0 + abs(a.sum())
        if rdual < tol * fscale and rpri < tol * fscale and eta < tol * fscale:
            converged = True
            break
        c = lam / phi
        d = c + mu / t
        wq = 2.0 * lam + 4.0 * s * s * c * (1.0 - c / d)
        Haa = QF + QW.T @ (QW * wq.reshape(-1, 1))
        for i in range(m):
            Haa[i, i] += zeta[i] / a[i] + omega[i] / (C - a[i])
        hat = -(QW.T @ (2.0 * c * s * (1.0 - c / d)))
        K[:m, :m] = Haa
        K[:m, m] = hat
        K[m, :m] = hat
        K[m, m] = (c * (1.0 - c / d)).sum() + kappa / tau + 1e-14
        K[:m, m + 1] = y
        K[m + 1, :m] = y
        # centring targets 1/T with T = 10 nc / eta (Boyd & Vandenberghe, Algorithm 11.2)
        g = eta / (10.0 * nc)
        gp = np.full(p, g)
        gm = np.full(m, g)
        dx, dz = _direction(K, prob, x, z, s, phi, (c, d), (gp, gp, gm, gm, g))
        rnorm, _, _ = _residual(prob, x, z, s, phi, 1.0 / g)
        step = 0.99 * _max_step(x, z, dx, dz, s, phi, prob)
        while step > 1e-12:       # strictly feasible (quadratic slacks) and residual decrease
            xn = (a + step * dx[0], tau + step * dx[1], t + step * dx[2])
            sn_, phin, okn = _slacks(xn[0], xn[1], xn[2], QW, C)
            if okn:
                zn = (lam + step * dz[0], mu + step * dz[1], zeta + step * dz[2],
                      omega + step * dz[3], kappa + step * dz[4], nu + step * dz[5])
                rn, _, _ = _residual(prob, xn, zn, sn_, phin, 1.0 / g)
                if rn <= (1.0 - 0.01 * step) * rnorm:
                    break
            step *= 0.5
        if step <= 1e-12:
            break
        x, z, s, phi = xn, zn, sn_, phin
        a, tau, t = x
        lam, mu, zeta, omega, kappa, nu = z
    return a, tau, np.minimum(np.maximum(2.0 * lam, 0.0), 1.0), it, converged
