"""The compiled SMO loop for the family min 1/2 a'Qa + p'a + sum_i phi_i(a_i), y'a = 0, box.

``Q = (yy') * K``. ``phi`` is 0 (``HINGE``: the hinge-loss SVM dual, ``p = -1``) or the
entropy ``C_i G(a_i / C_i)`` with ``G(t) = t log t + (1 - t) log(1 - t)`` (``LOGISTIC``:
paper C eq. (22), ``p = -lam``). Everything here is numba (``@njit(cache=True, nogil=True)``);
the Python side (:mod:`.kernel_dual`) prepares the arrays and calls :func:`smo_run` in chunks.

Working-set selection (paper C Section 4.1): ``i = argmax_{t in I_up} -y_t G_t`` (eq. (32));
``j`` is the maximal violating partner (eq. (32), first order, Keerthi et al.'s KLR-1ord) or
the minimiser of ``-v_it^2 / q_it`` over violating ``t in I_low`` (eqs. (33)-(35), second
order; for the hinge this is Fan, Chen & Lin's WSS2). The two-variable subproblem (30) moves
``a_i += y_i t``, ``a_j -= y_j t``: solved in closed form for the hinge and by a safeguarded
1-D Newton method (bisection fallback inside a shrinking bracket) for the entropy.

Kernel rows come from a precomputed matrix or are computed on demand into a bounded LRU cache
(``ks`` below); the two modes run the same loop.

``ks`` = (K, X, sq, kpar, cache, slot_of, owner, stamp, counters): ``K`` is (m, m) or (0, 0)
in row mode; ``X`` (m, n) and ``sq`` (its squared row norms) feed :func:`kernel_row` with
``kpar = [kind, gamma, degree, coef0]``; ``cache`` (slots, m) holds the rows of ``owner``,
``slot_of[i]`` is the slot of row i or -1, ``stamp`` the last use of each slot, ``counters``
= [clock, rows computed, row requests]. Masked kernels (paper A, :mod:`.masked_rows`) use
``X`` = the aggregate S, ``sq`` = the changed feature columns and ``kpar = [kind, scale,
degree, shift, n_add, n_rem]``.
``st`` = (alpha, grad, y, p, lo, hi, c, diag, curv): the point, its gradient
``G = Qa + p + phi'(a)``, labels, linear term, bounds, entropy scales, ``diag(K)`` and
``curv = diag(K) + phi''(a)`` (kept up to date: the second-order rule reads it for every t).
``opts`` = [loss, wss, tol, max_iter, tau]; ``out`` receives [iterations, converged,
m(a) - M(a)] (the maximal KKT violation, eq. (27)).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .masked_rows import MASKED_POLY, masked_row

HINGE, LOGISTIC = 0, 1
FIRST_ORDER, SECOND_ORDER = 0, 1
# kernel kinds of kernel_row (anisotropic_rbf is rbf with gamma = 1 on sqrt(w)-scaled X)
LINEAR, POLY, RBF, LAPLACIAN, SIGMOID = 0, 1, 2, 3, 4


@njit(cache=True, nogil=True)
def kernel_row(X, sq, kpar, i, out):
    """Row ``i`` of the kernel matrix of ``X`` into ``out`` (kinds as in kernels.functions)."""
    kind = int(kpar[0])
    if kind >= MASKED_POLY:  # masked kernels of paper A (X is the aggregate S)
        masked_row(X, sq, kpar, i, out)
        return
    g = kpar[1]
    deg = kpar[2]
    c0 = kpar[3]
    m, n = X.shape
    if kind == LAPLACIAN:
        for j in range(m):
            s = 0.0
            for f in range(n):
                s += abs(X[i, f] - X[j, f])
            out[j] = math.exp(-g * s)
        return
    for j in range(m):
        s = 0.0
        for f in range(n):
            s += X[i, f] * X[j, f]
        out[j] = s
    if kind == RBF:
        for j in range(m):
            d = sq[i] + sq[j] - 2.0 * out[j]
            out[j] = math.exp(-g * d) if d > 0.0 else 1.0
        out[i] = 1.0
    elif kind == POLY:
        for j in range(m):
            out[j] = (g * out[j] + c0) ** deg
    elif kind == SIGMOID:
        for j in range(m):
            out[j] = math.tanh(g * out[j] + c0)


@njit(cache=True, nogil=True)
def get_row(ks, i):
    """Row ``i`` of K: a view of the precomputed matrix, or the LRU cache (computed on a miss).

    The row just returned is the most recently used, so fetching a second row never evicts
    it (the cache has at least two slots).
    """
    K, X, sq, kpar, cache, slot_of, owner, stamp, cnt = ks
    if K.shape[0] > 0:
        return K[i]
    cnt[0] += 1
    cnt[2] += 1
    s = slot_of[i]
    if s >= 0:
        stamp[s] = cnt[0]
        return cache[s]
    s = 0
    if cnt[1] < stamp.shape[0]:  # slots fill in order before the first eviction
        s = cnt[1]
    else:
        oldest = stamp[0]
        for r in range(1, stamp.shape[0]):
            if stamp[r] < oldest:
                oldest = stamp[r]
                s = r
    if owner[s] >= 0:
        slot_of[owner[s]] = -1
    owner[s] = i
    slot_of[i] = s
    stamp[s] = cnt[0]
    cnt[1] += 1
    kernel_row(X, sq, kpar, i, cache[s])
    return cache[s]


@njit(cache=True, nogil=True)
def phi_d1(loss, a, c):
    """phi'(a) = log(a / (c - a)) for the entropy, 0 for the hinge."""
    if loss == LOGISTIC:
        return math.log(a) - math.log(c - a)
    return 0.0


@njit(cache=True, nogil=True)
def phi_d2(loss, a, c):
    """phi''(a) = c / (a (c - a)) for the entropy (eq. (35)), 0 for the hinge."""
    if loss == LOGISTIC:
        return c / (a * (c - a))
    return 0.0


@njit(cache=True, nogil=True)
def phi_value(loss, a, c):
    """phi(a) = c G(a / c) = a log(a / c) + (c - a) log(1 - a / c) (0 log 0 = 0)."""
    if loss != LOGISTIC:
        return 0.0
    v = 0.0
    if a > 0.0:
        v += a * math.log(a / c)
    if a < c:
        v += (c - a) * math.log1p(-a / c)
    return v


@njit(cache=True, nogil=True)
def objective(st, loss):
    """f(a) = 1/2 a'Qa + p'a + sum phi(a), read off the gradient in O(m)."""
    alpha, grad, y, p, lo, hi, c, diag, curv = st
    f = 0.0
    for k in range(alpha.shape[0]):
        a = alpha[k]
        qa = grad[k] - p[k] - phi_d1(loss, a, c[k])
        f += 0.5 * a * qa + p[k] * a + phi_value(loss, a, c[k])
    return f


@njit(cache=True, nogil=True, inline="always")
def track(st, t, acc):
    """Fold variable t into acc = (m, M, i, j): the running max of -y G over I_up and min over
    I_low (eq. (26)-(27)). Branch-free membership tests: 3x faster than ``if``/``or`` chains
    on mixed labels (measured)."""
    alpha, grad, y, p, lo, hi, c, diag, curv = st
    gmax, gmin, imax, jmin = acc
    v = -y[t] * grad[t]
    pos = y[t] > 0.0
    below = alpha[t] < hi[t]
    above = alpha[t] > lo[t]
    vu = v if (pos & below) | ((not pos) & above) else -np.inf
    vl = v if ((not pos) & below) | (pos & above) else np.inf
    if vu > gmax:
        gmax = vu
        imax = t
    if vl < gmin:
        gmin = vl
        jmin = t
    return gmax, gmin, imax, jmin


@njit(cache=True, nogil=True)
def violation(st):
    """(m(a), M(a), i, j): max of -y G over I_up, min over I_low (eq. (27)), their indices."""
    acc = (-np.inf, np.inf, -1, -1)
    for t in range(st[0].shape[0]):
        acc = track(st, t, acc)
    return acc


@njit(cache=True, nogil=True)
def select_j(st, loss, i, gmax, Ki, tau):
    """Paper C WSS step 2: argmin over violating t in I_low of -v_it^2 / q_it (eqs. (34)-(35)).

    q_it = curv_i + curv_t - 2 K_it (eq. (35)); the comparison v^2 / q > best is made as
    v^2 > best * q, so the loop has no division.
    """
    alpha, grad, y, p, lo, hi, c, diag, curv = st
    base = curv[i]
    best_v2 = 0.0
    best_q = 1.0
    j = -1
    for t in range(alpha.shape[0]):
        pos = y[t] > 0.0
        low = ((not pos) & (alpha[t] < hi[t])) | (pos & (alpha[t] > lo[t]))
        v = gmax + y[t] * grad[t]
        q = base + curv[t] - 2.0 * Ki[t]
        q = q if q > 0.0 else tau
        v2 = v * v if low & (v > 0.0) else 0.0
        if v2 * best_q > best_v2 * q:
            best_v2 = v2
            best_q = q
            j = t
    return j


@njit(cache=True, nogil=True)
def pair_slope(loss, t, v, kappa, pair):
    """phi_ij'(t): the derivative of the subproblem (30) along a_i += si t, a_j -= sj t;
    ``pair = (ai, aj, si, sj, ci, cj)``.

    The entropy part si (phi'(a_i + si t) - phi'(a_i)) - sj (phi'(a_j - sj t) - phi'(a_j)) is
    the log of one product of ratios (one log instead of four).
    """
    g = -v + kappa * t
    if loss == LOGISTIC:
        ai, aj, si, sj, ci, cj = pair
        ui = ai + si * t
        uj = aj - sj * t
        ri = (ui * (ci - ai)) / (ai * (ci - ui))
        rj = (uj * (cj - aj)) / (aj * (cj - uj))
        g += math.log(ri / rj if si == sj else ri * rj) * si
    return g


@njit(cache=True, nogil=True)
def solve_pair(st, loss, i, j, v, kappa, tmax, eps):
    """Exact step t in [0, tmax] of subproblem (30) (v = violation, kappa = K_ii+K_jj-2K_ij).

    Hinge: t = min(v / kappa, tmax). Entropy: phi_ij' is increasing, -v < 0 at 0; if it is
    still <= 0 at tmax the bound is hit, otherwise Newton's method inside the bracket
    [tl, tr] (bisection when a Newton step leaves it) until |phi_ij'(t)| <= eps.
    """
    alpha, grad, y, p, lo, hi, c, diag, curv = st
    if loss != LOGISTIC:
        t = v / kappa
        return tmax if t >= tmax else t
    ai = alpha[i]
    aj = alpha[j]
    si = y[i]
    sj = y[j]
    ci = c[i]
    cj = c[j]
    pair = (ai, aj, si, sj, ci, cj)
    if pair_slope(loss, tmax, v, kappa, pair) <= 0.0:
        return tmax
    tl = 0.0
    tr = tmax
    q0 = kappa + phi_d2(loss, ai, ci) + phi_d2(loss, aj, cj)
    t = v / q0
    if t >= tr:
        t = 0.5 * tr
    for _ in range(100):
        g = pair_slope(loss, t, v, kappa, pair)
        if g > 0.0:
            tr = t
        else:
            tl = t
        if abs(g) <= eps:
            break
        h = kappa + phi_d2(loss, ai + si * t, ci) + phi_d2(loss, aj - sj * t, cj)
        tn = t - g / h
        if not (tl < tn < tr):
            tn = 0.5 * (tl + tr)
        if tn == t or tr - tl <= 1e-16 * tr:
            break
        t = tn
    return t


@njit(cache=True, nogil=True)
def take_step(st, loss, i, j, t, tmax, Ki, Kj):
    """a_i += y_i t, a_j -= y_j t (a bound hit at t = tmax is set exactly); update G.

    The gradient pass also finds the next maximal violating pair, so one pass over the m
    variables does both: returns :func:`violation` of the new point.
    """
    alpha, grad, y, p, lo, hi, c, diag, curv = st
    ai_old = alpha[i]
    aj_old = alpha[j]
    ai = ai_old + y[i] * t
    aj = aj_old - y[j] * t
    if t >= tmax:  # snap the variable(s) whose bound defined tmax
        ri = hi[i] - ai_old if y[i] > 0 else ai_old - lo[i]
        rj = aj_old - lo[j] if y[j] > 0 else hi[j] - aj_old
        if ri <= rj:
            ai = hi[i] if y[i] > 0 else lo[i]
        if rj <= ri:
            aj = lo[j] if y[j] > 0 else hi[j]
    ai = min(max(ai, lo[i]), hi[i])
    aj = min(max(aj, lo[j]), hi[j])
    di = (ai - ai_old) * y[i]
    dj = (aj - aj_old) * y[j]
    if loss == LOGISTIC:
        grad[i] += phi_d1(loss, ai, c[i]) - phi_d1(loss, ai_old, c[i])
        grad[j] += phi_d1(loss, aj, c[j]) - phi_d1(loss, aj_old, c[j])
        curv[i] = diag[i] + phi_d2(loss, ai, c[i])
        curv[j] = diag[j] + phi_d2(loss, aj, c[j])
    alpha[i] = ai
    alpha[j] = aj
    acc = (-np.inf, np.inf, -1, -1)
    for k in range(alpha.shape[0]):
        grad[k] += y[k] * (di * Ki[k] + dj * Kj[k])
        acc = track(st, k, acc)
    return acc


@njit(cache=True, nogil=True)
def smo_run(ks, st, opts, out):
    """Run at most ``opts[3]`` SMO iterations (paper C, SMO Algorithm); see the module doc."""
    alpha, grad, y, p, lo, hi, c, diag, curv = st
    loss = int(opts[0])
    wss = int(opts[1])
    tol = opts[2]
    max_iter = int(opts[3])
    tau = opts[4]
    eps = min(1e-3 * tol, 1e-9)
    it = 0
    converged = 0
    gmax, gmin, i, jmin = violation(st)
    while True:
        gap = gmax - gmin
        if i < 0 or jmin < 0 or gap <= tol:
            converged = 1
            break
        if it >= max_iter:
            break
        Ki = get_row(ks, i)
        j = jmin
        if wss == SECOND_ORDER:
            j2 = select_j(st, loss, i, gmax, Ki, tau)
            if j2 >= 0:
                j = j2
        Kj = get_row(ks, j)
        v = gmax + y[j] * grad[j]
        kappa = diag[i] + diag[j] - 2.0 * Ki[j]
        if kappa <= 0.0:
            kappa = tau
        ti = hi[i] - alpha[i] if y[i] > 0 else alpha[i] - lo[i]
        tj = alpha[j] - lo[j] if y[j] > 0 else hi[j] - alpha[j]
        tmax = min(ti, tj)
        t = solve_pair(st, loss, i, j, v, kappa, tmax, eps * max(1.0, abs(gmax)))
        gmax, gmin, i, jmin = take_step(st, loss, i, j, t, tmax, Ki, Kj)
        it += 1
    out[0] = it
    out[1] = converged
    out[2] = gmax - gmin if i >= 0 and jmin >= 0 else 0.0
