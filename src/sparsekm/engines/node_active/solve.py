"""The node dual of paper D's branch and bound, maximised by a primal active-set method (numba).

A node fixes F1 in, leaves ``free`` undecided with budget k. For alpha in [0, C]^m with
y'alpha = 0 (the intercept's row) and s_j = q_j'alpha, q_j = y * x_j,

    g(alpha) = 1'alpha - 1/2 sum_{j in F1} s_j^2 - 1/2 (sum of the k largest s_j^2, j free)

is a lower bound on every support of the node (weak duality: the Lagrangian dual of (2) over
the node's supports; its maximum is the perspective bound of DSCoP (13), Lemma 4.3). g is
concave and piecewise quadratic; at its maximum many free features tie at the k-th value
(on colorectal B = 20: 33 ties, 36 free multipliers), which is what slows first-order methods.

The method keeps a feasible alpha and a partition (:mod:`.pivot`: samples M / L / U, working
features A / T / N) that holds at it, so g equals the quadratic model q there. Each pivot
maximises q on the partition's manifold (:func:`.pivot.target`) and moves toward it until a
sample reaches a bound or a feature reaches the threshold (ratio test: the constraint joins
the partition); at the target, a tie whose z_j leaves [0, 1] or a bound sample whose margin is
violated leaves it (the classic primal active-set method for QP, Nocedal & Wright, Numerical
Optimization, Algorithm 16.3). g rises along every step, so *every iterate is a certificate*.
The ratio tests run over a working set W of features; when W is optimal, one pricing pass
over all free features either certifies or brings the features above the threshold in.
Warm start: the parent's alpha and working set (the partition is read off alpha).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .partition import (
    certificate,
    full_pass,
    identify,
    kth_abs,
    price,
    repair,
    samples,
    step,
    threshold,
)
from .pivot import (
    constraint_column,
    correlations,
    direction,
    gradient,
    margins,
    model_value,
    multipliers,
    variable_row,
)
from .qr import add_constraint, add_variable, drop_constraint, drop_variable, householder

__all__ = ["LIMIT", "NUMERIC", "OPTIMAL", "PRUNED", "node_active_set", "repair"]

OPTIMAL, PRUNED, LIMIT, NUMERIC = 0, 1, 2, 3
DROP_TOL = 1e-9       # a multiplier (z_j outside [0, 1], a bound margin) violated by more
REFACTOR = 64         # updates of the QR factors between two factorisations from scratch
PRICE_EVERY = 25      # pivots between two pricing passes (each certifies; the best is kept)


@njit(cache=True)
def _build(Qt, y, parts, lin):
    """The constraints of the partition ``parts = (ast, st, sg, Wf, nW)`` and their QR from
    scratch into ``lin = (Q, R, vid, cid)``: variables M and r, constraints y and the ties.
    Returns (nz, nc, rank): rank < nc names the first tie (cid[rank]) that depends on the
    ones before it."""
    ast, st, sg, Wf, nW = parts
    Q, R, vid, cid = lin
    m = y.size
    nz = 0
    for i in range(m):
        if ast[i] == 0:
            vid[nz] = i
            nz += 1
    vid[nz] = m
    nz += 1
    cid[0] = -1
    nc = 1
    for w in range(nW):
        if st[w] == 1:
            cid[nc] = w
            nc += 1
    use = min(nc, nz)
    E = np.zeros((use, nz))
    for c in range(use):
        w = cid[c]
        E[c] = constraint_column(Qt, y, vid, nz, -1 if w < 0 else Wf[w],
                                 0.0 if w < 0 else sg[w])
    rank = householder(E, Q, R)
    return nz, nc, rank if rank < use else (nz if nc > nz else nc)


@njit(cache=True)
def _tie_features(cid, nc, Wf, sg):
    """(feature, sign) of each constraint (-1, 0 for y'alpha = 0)."""
    feats = np.empty(nc, np.int64)
    signs = np.zeros(nc)
    for c in range(nc):
        w = cid[c]
        feats[c] = -1 if w < 0 else Wf[w]
        signs[c] = 0.0 if w < 0 else sg[w]
    return feats, signs


@njit(cache=True)
def _above(F1, Wf, st, nW):
    """F1 and the features of A: the columns of G."""
    na = 0
    for w in range(nW):
        na += st[w] == 2
    FA = np.empty(F1.size + na, np.int64)
    FA[:F1.size] = F1
    p = F1.size
    for w in range(nW):
        if st[w] == 2:
            FA[p] = Wf[w]
            p += 1
    return FA


@njit(cache=True)
def _drop(lam, r, ties, margin, ast):
    """The most violated multiplier at a target, ``ties = (signs, zT)``: (kind, index) with
    kind 0 none, 1 tie to N (z_j < 0), 2 tie to A (z_j > 1), 3 sample released from its
    bound; z of each tie into ``zT``."""
    signs, zT = ties
    worst, kind, idx = DROP_TOL, 0, -1
    for c in range(1, signs.size):
        zq = signs[c] * lam[c] / r
        zT[c] = zq
        if -zq > worst:
            worst, kind, idx = -zq, 1, c
        if zq - 1.0 > worst:
            worst, kind, idx = zq - 1.0, 2, c
    for i in range(ast.size):
        if ast[i] == 1 and 1.0 - margin[i] > worst:
            worst, kind, idx = 1.0 - margin[i], 3, i
        elif ast[i] == 2 and margin[i] - 1.0 > worst:
            worst, kind, idx = margin[i] - 1.0, 3, i
    return kind, idx


@njit(cache=True)
def _tie(Qt, y, lin, size, new):
    """Feature ``new = (j, sign, w)`` becomes constraint nc; True when it is numerically
    dependent on the others (the factors are then rebuilt, which moves it out of T)."""
    Q, R, vid, cid = lin
    nz, nc = size
    col = constraint_column(Qt, y, vid, nz, new[0], new[1])
    cid[nc] = new[2]
    return add_constraint(Q, R, nz, nc, col) <= 1e-8 * np.sqrt(col @ col)


@njit(cache=True)
def _residual(y, a, cons, r):
    """e - E z at the current point, ``cons = (cid, nc, sv, sg)``: -y'alpha, and
    sigma_j r - s_j for each tie."""
    cid, nc, sv, sg = cons
    res = np.empty(nc)
    res[0] = -(y @ a)
    for c in range(1, nc):
        w = cid[c]
        res[c] = sg[w] * r - sv[w]
    return res


@njit(cache=True)
def _priced(Qt, F1, a, ws, thr):
    """A pricing pass (:func:`.partition.price`, ``ws`` its working state plus the free
    features and k) and the certificate g at alpha: (nW, entered, kappa, reread, g)."""
    s_free, inW, Wf, st, sv, sg, nW, kappa, omega, free, k = ws
    nW, entered, kappa, reread = price(Qt, free, a, (s_free, inW, Wf, st, sv, sg, nW, kappa,
                                                     omega), thr)
    correlations(Qt, Wf[:nW], a, sv)
    return nW, entered, kappa, reread, certificate(Qt, F1, a, s_free, k)


@njit(cache=True)
def _remove_at(arr, n, p):
    for t in range(p, n - 1):
        arr[t] = arr[t + 1]


@njit(cache=True)
def _near(s_free, k, omega, extra):
    """Mask of the free features a working set keeps: the k + extra largest |s| and those
    within omega of the k-th (by selection, O(|free|))."""
    nf = s_free.size
    absv = np.abs(s_free)
    thr = kth_abs(s_free, k)
    cut = omega * thr
    if k + extra < nf:
        cut = min(cut, np.partition(absv, nf - k - extra)[nf - k - extra])
    return absv >= cut


@njit(cache=True)
def _start_set(Qt, free, a, ws, k):
    """The working set when the parent's is unusable (see :func:`_near`), ``ws = (s_free,
    inW, Wf, nW, omega, extra)``. Returns nW."""
    s_free, inW, Wf, nW, omega, extra = ws
    full_pass(Qt, free, a, s_free)
    keep = _near(s_free, k, omega, extra)
    for f in range(free.size):
        if keep[f] and not inW[free[f]]:
            Wf[nW], inW[free[f]] = free[f], True
            nW += 1
    return nW


@njit(cache=True)
def node_active_set(Qt, y, C, node, start, opts):
    """Maximise g at the node ``node = (F1, free, k)`` (0 < k < |free|) from ``start = (alpha0,
    W0)`` (W0 empty: the working set from a pricing pass), ``opts = (cutoff, max_pivots,
    omega, extra)``: stop once g >= cutoff (pruned) or after max_pivots; features with |s_j|
    >= omega x the threshold join the working set, which keeps at least k + extra.

    Returns (alpha, bound = g(alpha), status, pivots, pricing passes, W, z on W, s over the
    free features, W_next): alpha is feasible and the bound exact at it whatever the status
    (OPTIMAL, PRUNED, LIMIT, NUMERIC)."""
    F1, free, k = node
    a0, W0 = start
    cutoff, max_pivots, omega, extra = opts
    n, m = Qt.shape
    nf = free.size
    a = repair(a0, y, C)
    inW, isfree = np.zeros(n, np.bool_), np.zeros(n, np.bool_)
    for j in free:
        isfree[j] = True
    Wf, st = np.empty(nf, np.int64), np.zeros(nf, np.int8)
    sg, sv, zW = np.ones(nf), np.zeros(nf), np.zeros(nf)
    frozen = np.zeros(nf, np.bool_)
    s_free = np.empty(nf)
    nW, prices = 0, 0
    for j in W0:
        if isfree[j] and not inW[j]:
            Wf[nW], inW[j] = j, True
            nW += 1
    if nW <= k:                              # no usable warm working set: price all
        nW = _start_set(Qt, free, a, (s_free, inW, Wf, nW, omega, extra), k)
        prices += 1
    correlations(Qt, Wf[:nW], a, sv)
    r, kappa = identify(sv, sg, st, nW, k)
    ast = samples(a, C)
    for i in range(m):
        a[i] = 0.0 if ast[i] == 1 else (C if ast[i] == 2 else a[i])
    for w in range(nW):
        zW[w] = 1.0 if st[w] == 2 else 0.0
    lin = (np.zeros((m + 1, m + 1)), np.zeros((m + 1, m + 1)), np.zeros(m + 1, np.int64),
           np.zeros(m + 2, np.int64))
    Q, R, vid, cid = lin
    status, pivots, build, updates, nz, nc, fresh, g = LIMIT, 0, True, 0, 0, 0, False, -np.inf
    best = (-np.inf, a.copy(), s_free.copy())
    while pivots < max_pivots:
        pivots += 1
        if build or updates >= REFACTOR:
            nz, nc, rank = _build(Qt, y, (ast, st, sg, Wf, nW), lin)
            build, updates = False, 0
            if rank < nc:                    # a dependent tie leaves T
                if rank == 0:
                    status = NUMERIC
                    break
                w = cid[rank]
                to_a = nc - 2 < kappa
                st[w], frozen[w] = 2 if to_a else 0, True
                kappa -= to_a
                build = True
                continue
        FA = _above(F1, Wf, st, nW)
        tied = nc > 1
        if pivots % PRICE_EVERY == 0 or model_value(Qt, FA, a, r if tied else 0.0,
                                                    kappa) >= cutoff:
            a = repair(a, y, C)
            nW, entered, kappa, reread, g = _priced(Qt, F1, a, (
                s_free, inW, Wf, st, sv, sg, nW, kappa, omega, free, k),
                threshold(sv, st, nW, r, tied))
            prices += 1
            if g > best[0]:
                best = (g, a.copy(), s_free.copy())
            if g >= cutoff:
                status, fresh = PRUNED, True
                break
            if reread:
                r, kappa = identify(sv, sg, st, nW, k)
                build = True
            if entered:
                continue
        dz, full = direction(Qt, FA, (Q, R, vid, nz, nc, _residual(y, a, (cid, nc, sv, sg),
                                                                   r)), a, (r, float(kappa)), C)
        d = np.zeros(m)
        dr = 0.0
        for t in range(nz):
            if vid[t] == m:
                dr = dz[t]
            else:
                d[vid[t]] = dz[t]
        ds = np.empty(nW)
        correlations(Qt, Wf[:nW], d, ds)
        t, kind, idx, sgn, idx2 = step(a, d, sv[:nW], ds, (ast, st, sg, nW, r, dr, tied, C,
                                                                  frozen))
        a += t * d
        r += t * dr
        for w in range(nW):
            sv[w] += t * ds[w]
        if kind == 1 or kind == 2:
            a[idx] = 0.0 if kind == 1 else C
            ast[idx] = kind
            p = 0
            while vid[p] != idx:
                p += 1
            drop_variable(Q, R, nz, nc, p)
            _remove_at(vid, nz, p)
            nz -= 1
        if kind == 4:
            st[idx2] = 1
            kappa += 1
            r = abs(sv[idx2])
            build |= _tie(Qt, y, (Q, R, vid, cid), (nz, nc), (Wf[idx2], sg[idx2], idx2))
            nc += 1
        if kind == 3 or kind == 4:
            kappa += st[idx] == 2
            st[idx], sg[idx] = 1, sgn
            build |= _tie(Qt, y, (Q, R, vid, cid), (nz, nc), (Wf[idx], sgn, idx))
            nc += 1
        if kind != 0 or not full:
            updates += kind != 0
            continue
        feats, signs = _tie_features(cid, nc, Wf, sg)
        lam = multipliers(Q, R, nz, nc, gradient(Qt, FA, vid, nz, a, (r, float(kappa))))
        zT = np.zeros(nc)
        kind, idx = _drop(lam, r, (signs, zT), margins(Qt, y, FA, feats[1:], lam, a), ast)
        for c in range(1, nc):
            zW[cid[c]] = min(max(zT[c], 0.0), 1.0)
        updates += kind != 0
        if kind == 1 or kind == 2:
            w = cid[idx]
            st[w] = 0 if kind == 1 else 2
            zW[w] = 0.0 if kind == 1 else 1.0
            kappa -= kind == 2
            drop_constraint(Q, R, nz, nc, idx)
            _remove_at(cid, nc, idx)
            nc -= 1
            continue
        if kind == 3:
            ast[idx] = 0
            add_variable(Q, R, nz, nc, variable_row(Qt, y, idx, feats, signs))
            vid[nz] = idx
            nz += 1
            continue
        a = repair(a, y, C)                  # optimal on W: price all free features
        nW, entered, kappa, reread, g = _priced(Qt, F1, a, (
            s_free, inW, Wf, st, sv, sg, nW, kappa, omega, free, k),
            threshold(sv, st, nW, r, tied))
        prices += 1
        if g > best[0]:
            best = (g, a.copy(), s_free.copy())
        if entered == 0 or g >= cutoff:
            status, fresh = OPTIMAL if entered == 0 else PRUNED, True
            break
        if reread:
            r, kappa = identify(sv, sg, st, nW, k)
            build = True
    if not fresh:
        a = repair(a, y, C)
        full_pass(Qt, free, a, s_free)
        prices += 1
        g = certificate(Qt, F1, a, s_free, k)
    if g < best[0]:                          # an earlier iterate certifies more
        g, a, s_free = best
    for w in range(nW):
        zW[w] = 1.0 if st[w] == 2 else (0.0 if st[w] == 0 else zW[w])
    W_next = free[_near(s_free, k, omega, extra)]
    return a, g, status, pivots, prices, Wf[:nW].copy(), zW[:nW].copy(), s_free, W_next
