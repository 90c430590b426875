"""A dense primal-dual interior-point solver for the node dual SOCP, for small m (numba).

Solves, for a working set W (rows of ``QW`` = (y * x_j)' for j in W) and ``QF`` =
Y X_F1 X_F1' Y (m x m),

    min  1/2 a'QF a - 1'a + k tau / 2 + 1/2 sum_j t_j
    s.t. s_j^2 - t_j - tau <= 0 (s_j = QW_j a),  t >= 0,  0 <= a <= C,  tau >= 0,  y'a = 0,

i.e. the negated dual of a node's perspective relaxation (see
:mod:`sparsekm.relaxations.fs_linear.node`). With bounds lo_j <= 0 <= hi_j on w_j (paper D's
big-M rows of DSCoMP (14), one interval per feature) each s_j^2 becomes 2 psi_j(s_j), the
Huber-like psi_j(s) = max_{t in [lo_j, hi_j]} (s t - t^2 / 2) (:func:`ipm_node_dual_bigm`),
and the fixed-in term 1/2 a'QF a becomes sum_{F1} psi_j((QFr a)_j): the dual of the node's
DSCoMP (:mod:`sparsekm.relaxations.fs_linear.node_dscomp`); infinite bounds give the
perspective's terms. Solved with the
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

__all__ = ["ipm_node_dual", "ipm_node_dual_bigm"]

INF = np.inf


@njit(cache=True)
def _psi2(s, lo, hi):
    """(P, P', P'') of P(s) = 2 psi(s) = 2 max_{t in [lo, hi]} (s t - t^2/2), elementwise:
    s^2, 2 s, 2 inside [lo, hi]; linear outside (its slope 2 lo or 2 hi)."""
    c = np.minimum(np.maximum(s, lo), hi)
    inside = np.where((s > lo) & (s < hi), 2.0, 0.0)
    return 2.0 * c * s - c * c, 2.0 * c, inside


@njit(cache=True)
def _f1_grad(a, F):
    """Gradient of the fixed-in term: QF a (quadratic) or QFr' psi'(QFr a) (big-M)."""
    QF, QFr, loF, hiF, huber = F
    if not huber:
        return QF @ a
    sF = QFr @ a
    return QFr.T @ np.minimum(np.maximum(sF, loF), hiF)


@njit(cache=True)
def _f1_hess(a, F):
    """Hessian of the fixed-in term: QF, or QFr' diag(psi''(QFr a)) QFr."""
    QF, QFr, loF, hiF, huber = F
    if not huber:
        return QF.copy()
    sF = QFr @ a
    d = np.where((sF > loF) & (sF < hiF), 1.0, 0.0)
    return QFr.T @ (QFr * d.reshape(-1, 1))


@njit(cache=True)
def _slacks(a, tau, t, QW, C, box):
    s = QW @ a
    P, _, _ = _psi2(s, box[0], box[1])
    phi = t + tau - P
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
    QW, F, y, C, k, box = prob
    a, tau, t = x
    lam, mu, zeta, omega, kappa, nu = z
    _, dP, _ = _psi2(s, box[0], box[1])
    ra = _f1_grad(a, F) - 1.0 + QW.T @ (lam * dP) - zeta + omega + nu * y
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
    QW, F, y, C, k, box = prob
    a, tau, t = x
    lam, mu, zeta, omega, kappa, nu = z
    c, d = cd
    g1, g2, g3, g4, g5 = g
    m = a.size
    _, dP, _ = _psi2(s, box[0], box[1])
    g_t = 0.5 - g1 / phi - g2 / t
    g_a = _f1_grad(a, F) - 1.0 + QW.T @ (dP * g1 / phi) - g3 / a + g4 / (C - a) + nu * y
    g_tau = 0.5 * k - (g1 / phi).sum() - g5 / tau
    rhs = np.empty(m + 2)
    rhs[:m] = -g_a - QW.T @ (c * dP * g_t / d)
    rhs[m] = -g_tau + (c * g_t / d).sum()
    rhs[m + 1] = -(y @ a)
    sol = np.linalg.solve(K, rhs)
    da = sol[:m]
    dtau = sol[m]
    ds = QW @ da
    dt = (-g_t + c * dP * ds - c * dtau) / d
    dz = (-lam + (g1 + lam * (dP * ds - dtau - dt)) / phi, -mu + (g2 - mu * dt) / t,
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
    QW, C, box = prob[0], prob[3], prob[5]
    a, tau, t = x
    da, dtau, dt = dx
    _, dP, _ = _psi2(s, box[0], box[1])
    step = 1.0
    for v, dv in zip(z[:4], dz[:4]):
        step = _ratio(v, dv, step)
    step = _ratio(t, dt, step)
    step = _ratio(phi, dt + dtau - dP * (QW @ da), step)
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
    box = (np.full(p, -INF), np.full(p, INF))
    F = (QF, np.zeros((0, m)), np.zeros(0), np.zeros(0), False)
    return _ipm((QW, F, y, C, k, box), a0, tol, max_iter)


@njit(cache=True)
def ipm_node_dual_bigm(QW, box, QFr, boxF, y, C, k, opts):
    """The big-M (DSCoMP) node dual: ``box = (lo, hi)`` on the features of ``QW``, ``boxF``
    on the fixed-in rows ``QFr``; ``opts = (a0, tol, max_iter)``. Returns as
    :func:`ipm_node_dual`."""
    m = QW.shape[1]
    F = (np.zeros((m, m)), QFr, boxF[0], boxF[1], True)
    return _ipm((QW, F, y, C, k, box), opts[0], opts[1], opts[2])


@njit(cache=True)
def _ipm(prob, a0, tol, max_iter):
    QW, F, y, C, k, box = prob
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
    s2, _, _ = _psi2(s, box[0], box[1])
    srt = np.sort(s2)
    tau = srt[p - k] if k <= p else 0.0
    tau = max(tau, 1e-3 * max(srt[p - 1], 1e-12))
    t = np.maximum(s2 - tau, 0.0) + 0.1 * tau
    s, phi, ok = _slacks(a, tau, t, QW, C, box)
    # dual start: stationarity in tau and t holds, complementarity not yet
    lam = np.full(p, 0.45 * k / p if k < p else 0.45)
    mu = 0.5 - lam
    kappa = max(0.5 * k - lam.sum(), 0.05 * k)
    ga = _f1_grad(a, F) - 1.0 + QW.T @ (lam * _psi2(s, box[0], box[1])[1])
    zeta = np.maximum(ga, 0.0) + 1e-3
    omega = np.maximum(-ga, 0.0) + 1e-3
    nu = 0.0
    K = np.zeros((m + 2, m + 2))
    it = 0
    converged = False
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
        _, dP, ddP = _psi2(s, box[0], box[1])
        wq = lam * ddP + dP * dP * c * (1.0 - c / d)
        Haa = _f1_hess(a, F) + QW.T @ (QW * wq.reshape(-1, 1))
        for i in range(m):
            Haa[i, i] += zeta[i] / a[i] + omega[i] / (C - a[i])
        hat = -(QW.T @ (c * dP * (1.0 - c / d)))
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
            sn_, phin, okn = _slacks(xn[0], xn[1], xn[2], QW, C, box)
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
