"""One pivot of the node active-set engine: the maximiser of the node dual on the current
partition, in the null space of its constraints (numba).

The partition (:mod:`.solve`) splits the samples into M (0 < alpha_i < C), L (alpha_i = 0)
and U (alpha_i = C), and the working features into A (above the threshold r: z_j = 1), T (tied
at |s_j| = r, sign sigma_j: fractional z_j) and N (below: z_j = 0); F1 holds the fixed-in
features. On it the node dual g (:mod:`.solve`) is the concave quadratic

    q(alpha, r) = 1'alpha - 1/2 ||G'alpha||^2 - 1/2 kappa r^2,   G = [q_j, j in F1 u A],
    kappa = k - |A|,  s.t.  y'alpha = 0,  sigma_j q_j'alpha = r (j in T),  alpha_L = 0,
    alpha_U = C,

with q_j = y * x_j (row j of ``Qt``): in z = (alpha_M, r), constraints E z = e with
E' = Q [R; 0] (:mod:`.qr`; variables ``vid``, constraints ``cid``). :func:`direction` is the
step to the maximiser of q on that manifold, Z p with Z = Q's last nz - nc columns and
(Z'HZ) p = Z' grad q (the null-space method; Nocedal & Wright, Numerical Optimization, 2nd
ed., Section 16.2); :func:`multipliers` are the intercept b (of y'alpha = 0) and the primal
weights u_j = z_j sigma_j r of the tied features (of their ties), so z_j = sigma_j u_j / r.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .linalg import reduced_solve

__all__ = ["constraint_column", "correlations", "direction", "fitted", "gradient",
           "margins", "model_value", "multipliers", "variable_row"]

FAST = {"contract", "reassoc"}
RAY = 10.0            # a step of more than RAY x C in a coordinate is a ray: cut to this
ON_TOL = 1e-12        # relative to max(r, C): a residual this small is round-off, no correction


@njit(cache=True, fastmath=FAST, error_model="numpy")
def correlations(Qt, feats, a, out):
    """out_f = q_f'a for the features ``feats`` (s_j of the module docstring)."""
    for f in range(feats.size):
        row = Qt[feats[f]]
        acc = 0.0
        for i in range(a.size):
            acc += row[i] * a[i]
        out[f] = acc


@njit(cache=True, fastmath=FAST, error_model="numpy")
def fitted(Qt, FA, a):
    """G G'alpha over all m samples (sum of s_j q_j over F1 u A): the gradient's and the
    margins' common part."""
    c = np.empty(FA.size)
    correlations(Qt, FA, a, c)
    Ka = np.zeros(a.size)
    for f in range(FA.size):
        row = Qt[FA[f]]
        cf = c[f]
        for i in range(a.size):
            Ka[i] += cf * row[i]
    return Ka


@njit(cache=True, error_model="numpy")
def gradient(Ka, vid, nz, rk):
    """grad q at alpha (in the variables ``vid[:nz]``; sample i, or m for r): 1 - (G G'
    alpha)_i, and -kappa r; ``Ka`` = G G'alpha (:func:`fitted`), ``rk = (r, kappa)``."""
    r, kappa = rk
    m = Ka.size
    g = np.empty(nz)
    for t in range(nz):
        v = vid[t]
        g[t] = -kappa * r if v == m else 1.0 - Ka[v]
    return g


@njit(cache=True, fastmath=FAST, error_model="numpy")
def _gradient_v(Qt, FA, Gv, a, rtr):
    """:func:`gradient` from G' on the variables ``Gv`` (:func:`direction` gathers it for
    G'Z anyway), ``rtr = (r, kappa, r's position)``. The loop's multipliers keep
    :func:`gradient` from :func:`fitted`, which the margins share: gathering G' there only
    for the gradient cost about 2 % of a replayed node, and using :func:`gradient` here
    about 1 %."""
    r, kappa, tr = rtr
    c = np.empty(FA.size)
    correlations(Qt, FA, a, c)
    nz = Gv.shape[1]
    g = np.ones(nz)
    for f in range(FA.size):
        cf = c[f]
        for t in range(nz):
            g[t] -= cf * Gv[f, t]
    if tr >= 0:
        g[tr] = -kappa * r
    return g


@njit(cache=True, fastmath=FAST, error_model="numpy")
def model_value(Qt, FA, a, r, kappa):
    """q(alpha, r): the node dual on the partition (= g over the working set when the
    partition holds at alpha)."""
    c = np.empty(FA.size)
    correlations(Qt, FA, a, c)
    return a.sum() - 0.5 * (c @ c) - 0.5 * kappa * r * r


@njit(cache=True, fastmath=FAST, error_model="numpy")
def _correction(Q, R, nc, nz, res):
    """The least-norm step Q1 R^{-T} res back onto the manifold (E dz = res)."""
    u = res.copy()                               # R' u = res (R' lower triangular)
    for i in range(nc):
        acc = u[i]
        for c in range(i):
            acc -= R[c, i] * u[c]
        u[i] = acc / R[i, i]
    dz = np.zeros(nz)                           # Q1 u (Q is stored transposed: qr)
    for i in range(nc):
        ui = u[i]
        for t in range(nz):
            dz[t] += Q[i, t] * ui
    return dz


@njit(cache=True, fastmath=FAST, error_model="numpy")
def direction(Qt, FA, lin, a, rk, cap):
    """The step dz (in ``vid`` order) to the maximiser of q on the manifold, ``lin = (Q, R,
    vid, nz, nc, res)`` with ``res = e - E z`` the constraints' residual at the current point
    (beyond round-off when it is off the manifold: a tie read within tolerance, a feature that
    entered above the threshold): first the least-norm correction onto the manifold
    (:func:`_correction`; skipped when every |res| is at most ON_TOL x max(r, C), as after a
    step along the manifold), then the null-space step from there (0 when no degree of
    freedom is left). A step longer than RAY x ``cap`` (C) in some coordinate follows a flat
    direction of the model (a ray): it is shortened to that length and flagged (returns (dz,
    reaches the maximiser))."""
    Q, R, vid, nz, nc, res = lin
    r, kappa = rk
    m = a.size
    d = nz - nc
    off = 0.0
    for i in range(nc):
        off = max(off, abs(res[i]))
    dz = _correction(Q, R, nc, nz, res) if off > ON_TOL * max(r, cap) else np.zeros(nz)
    if d <= 0:
        return dz, True
    a2, r2 = a.copy(), r
    for t in range(nz):
        if vid[t] == m:
            r2 += dz[t]
        else:
            a2[vid[t]] += dz[t]
    Gv = np.empty((FA.size, nz))                 # G' on the variables (0 for r), and
    tr = -1                                      # r's position among them
    for t in range(nz):
        if vid[t] == m:
            tr = t
    for f in range(FA.size):
        row = Qt[FA[f]]
        for t in range(nz):
            Gv[f, t] = row[vid[t]] if t != tr else 0.0
    g = _gradient_v(Qt, FA, Gv, a2, (r2, kappa, tr))
    zr = np.zeros(d)
    if tr >= 0:
        for q in range(d):
            zr[q] = Q[nc + q, tr]
    CZ = np.empty((FA.size, d))                  # G'Z: contiguous dot products over the
    for f in range(FA.size):                     # variables (Q stored transposed)
        for q in range(d):
            acc = 0.0
            for t in range(nz):
                acc += Gv[f, t] * Q[nc + q, t]
            CZ[f, q] = acc
    Rr = np.empty((d, d))
    gr = np.zeros(d)
    for q in range(d):
        for q2 in range(q + 1):
            acc = kappa * zr[q] * zr[q2]
            for f in range(FA.size):
                acc += CZ[f, q] * CZ[f, q2]
            Rr[q, q2] = Rr[q2, q] = acc
        acc = 0.0
        for t in range(nz):
            acc += Q[nc + q, t] * g[t]
        gr[q] = acc
    p = reduced_solve(Rr, gr)
    step = np.zeros(nz)
    for q in range(d):
        for t in range(nz):
            step[t] += Q[nc + q, t] * p[q]
    big = 0.0
    for t in range(nz):
        big = max(big, abs(step[t]) / (RAY * (cap if vid[t] < m else max(r, cap))))
    if big > 1.0:                                # a ray: a long step of bounded length
        step /= big
    dz += step
    return dz, big <= 1.0


@njit(cache=True, error_model="numpy")
def multipliers(Q, R, nz, nc, g):
    """lambda with E' lambda = g in the range of E' (R lambda = Q1'g): exact where g is
    stationary on the manifold; lambda[0] = b, lambda[1 + t] = u of the t-th tie."""
    w = np.zeros(nc)
    for i in range(nc):                          # w = Q1'g (rows of the stored Q')
        acc = 0.0
        for t in range(nz):
            acc += Q[i, t] * g[t]
        w[i] = acc
    for i in range(nc - 1, -1, -1):
        acc = w[i]
        for c in range(i + 1, nc):
            acc -= R[i, c] * w[c]
        w[i] = acc / R[i, i]
    return w


@njit(cache=True, fastmath=FAST, error_model="numpy")
def margins(Qt, y, Ka, ties, lam):
    """f_i = y_i (x_i'w + b) of the relaxation's hyperplane, every sample: w_j = q_j'alpha on
    F1 u A (their part ``Ka``: :func:`fitted`), u_j on T (``ties``, u = lam[1:]), b = lam[0]."""
    m = y.size
    f = lam[0] * y + Ka
    for t in range(ties.size):
        row = Qt[ties[t]]
        u = lam[1 + t]
        for i in range(m):
            f[i] += u * row[i]
    return f


@njit(cache=True, error_model="numpy")
def constraint_column(Qt, y, vid, nz, feat, sign):
    """Column of E' for y'alpha = 0 (``feat`` < 0) or the tie sigma q_feat'alpha = r."""
    m = y.size
    col = np.zeros(nz)
    for t in range(nz):
        v = vid[t]
        if v == m:
            col[t] = 0.0 if feat < 0 else -sign
        else:
            col[t] = y[v] if feat < 0 else Qt[feat, v]
    return col


@njit(cache=True, error_model="numpy")
def variable_row(Qt, y, sample, cons, signs):
    """Row of E' for the variable alpha_sample (or r when sample = m) over the constraints
    ``cons`` (feature of each tie, -1 for y'alpha = 0) with their ``signs``."""
    m = y.size
    row = np.zeros(cons.size)
    for c in range(cons.size):
        j = cons[c]
        if sample == m:
            row[c] = 0.0 if j < 0 else -signs[c]
        else:
            row[c] = y[sample] if j < 0 else Qt[j, sample]
    return row
