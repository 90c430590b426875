"""A dense primal-dual interior-point solver for the node dual SOCP, for small m (numba).

Solves, for a working set W (rows of ``QW`` = (y * x_j)' for j in W) and ``QF`` =
Y X_F1 X_F1' Y (m x m),

    min  1/2 a'QF a - 1'a + k tau / 2 + 1/2 sum_j t_j
    s.t. s_j^2 - t_j - tau <= 0 (s_j = QW_j a),  t >= 0,  0 <= a <= C,  tau >= 0,  y'a = 0,

i.e. the negated dual of a node's perspective relaxation (see :mod:`.node`), with the
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
def _residual(a, tau, t, lam, mu, zeta, omega, kappa, nu, s, phi, QW, QF, y, C, k, T):
    m = a.size
    ra = QF @ a - 1.0 + 2.0 * (QW.T @ (lam * s)) - zeta + omega + nu * y
    rtau = 0.5 * k - lam.sum() - kappa
    rt = 0.5 - lam - mu
    norm = (ra @ ra) + rtau * rtau + (rt @ rt)
    cent = 0.0
    for j in range(t.size):
        c1 = lam[j] * phi[j] - 1.0 / T
        c2 = mu[j] * t[j] - 1.0 / T
        cent += c1 * c1 + c2 * c2
    for i in range(m):
        c1 = zeta[i] * a[i] - 1.0 / T
        c2 = omega[i] * (C - a[i]) - 1.0 / T
        cent += c1 * c1 + c2 * c2
    c1 = kappa * tau - 1.0 / T
    cent += c1 * c1
    rp = y @ a
    return np.sqrt(norm + cent + rp * rp), np.sqrt(norm), abs(rp)


@njit(cache=True)
def _direction(K, QW, QF, y, C, k, a, tau, t, s, phi, lam, mu, zeta, omega, kappa, nu, c, d,
               g1, g2, g3, g4, g5):
    """Newton direction for complementarity targets lam*phi = g1, mu*t = g2, zeta*a = g3,
    omega*(C - a) = g4, kappa*tau = g5 (Boyd & Vandenberghe (11.54)-(11.55) with r_cent =
    lambda * slack - target), t eliminated."""
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
    dnu = sol[m + 1]
    ds = QW @ da
    dt = (-g_t + 2.0 * c * s * ds - c * dtau) / d
    dlam = -lam + (g1 + lam * (2.0 * s * ds - dtau - dt)) / phi
    dmu = -mu + (g2 - mu * dt) / t
    dzeta = -zeta + (g3 - zeta * da) / a
    domega = -omega + (g4 + omega * da) / (C - a)
    dkappa = -kappa + (g5 - kappa * dtau) / tau
    return da, dtau, dnu, dt, dlam, dmu, dzeta, domega, dkappa


@njit(cache=True)
def _max_step(a, tau, t, s, phi, lam, mu, zeta, omega, kappa, da, dtau, dt, dlam, dmu, dzeta,
              domega, dkappa, QW, C):
    """Largest step in [0, 1] keeping duals and linear slacks (and the linearised quadratic
    slacks) nonnegative."""
    step = 1.0
    dphi = dt + dtau - 2.0 * s * (QW @ da)
    for j in range(t.size):
        if dlam[j] < 0:
            step = min(step, -lam[j] / dlam[j])
        if dmu[j] < 0:
            step = min(step, -mu[j] / dmu[j])
        if dt[j] < 0:
            step = min(step, -t[j] / dt[j])
        if dphi[j] < 0:
            step = min(step, -phi[j] / dphi[j])
    for i in range(a.size):
        if dzeta[i] < 0:
            step = min(step, -zeta[i] / dzeta[i])
        if domega[i] < 0:
            step = min(step, -omega[i] / domega[i])
        if da[i] < 0:
            step = min(step, -a[i] / da[i])
        elif da[i] > 0:
            step = min(step, (C - a[i]) / da[i])
    if dkappa < 0:
        step = min(step, -kappa / dkappa)
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
    while it < max_iter:
        it += 1
        eta = lam @ phi + mu @ t + zeta @ a + omega @ (C - a) + kappa * tau
        mu_c = eta / nc
        _, rdual, rpri = _residual(a, tau, t, lam, mu, zeta, omega, kappa, nu, s, phi,
                                   QW, QF, y, C, k, 1.0 / mu_c)
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
        K[m, m + 1] = 0.0
        K[m + 1, m] = 0.0
        K[m + 1, m + 1] = 0.0
        # centring targets 1/T with T = 10 nc / eta (Boyd & Vandenberghe, Algorithm 11.2)
        g = eta / (10.0 * nc)
        ga_ = np.full(p, g)
        gm_ = np.full(m, g)
        da, dtau, dnu, dt, dlam, dmu, dzeta, domega, dkappa = _direction(
            K, QW, QF, y, C, k, a, tau, t, s, phi, lam, mu, zeta, omega, kappa, nu, c, d,
            ga_, ga_, gm_, gm_, g)
        rnorm, _, _ = _residual(a, tau, t, lam, mu, zeta, omega, kappa, nu, s, phi,
                                QW, QF, y, C, k, 1.0 / g)
        step = 0.99 * _max_step(a, tau, t, s, phi, lam, mu, zeta, omega, kappa, da, dtau, dt,
                                dlam, dmu, dzeta, domega, dkappa, QW, C)
        while step > 1e-12:       # strictly feasible (quadratic slacks) and residual decrease
            an = a + step * da
            taun = tau + step * dtau
            tn = t + step * dt
            sn_, phin, okn = _slacks(an, taun, tn, QW, C)
            if okn:
                rn, _, _ = _residual(an, taun, tn, lam + step * dlam, mu + step * dmu,
                                     zeta + step * dzeta, omega + step * domega,
                                     kappa + step * dkappa, nu + step * dnu, sn_, phin,
                                     QW, QF, y, C, k, 1.0 / g)
                if rn <= (1.0 - 0.01 * step) * rnorm:
                    break
            step *= 0.5
        if step <= 1e-12:
            break
        a, tau, t, s, phi = an, taun, tn, sn_, phin
        lam = lam + step * dlam
        mu = mu + step * dmu
        zeta = zeta + step * dzeta
        omega = omega + step * domega
        kappa = kappa + step * dkappa
        nu = nu + step * dnu
    return a, tau, np.minimum(np.maximum(2.0 * lam, 0.0), 1.0), it, converged
