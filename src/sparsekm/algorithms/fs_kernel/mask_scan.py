"""Certified scan of the masks of a branch-and-bound node (paper A, problem (4)), compiled.

A node fixes the features ``I`` in and picks ``r`` more from the free set ``U``. Its masks are
visited in lexicographic order of the ``r``-subsets of ``U``; each one is *decided* against
the incumbent ``inc`` with certified values only, and the first one that cannot be decided
stops the scan (the caller solves it with libsvm, offers it as an incumbent, and scans on).

Per mask (Section 2.2: ``K_beta = phi(S_beta)``, ``S_beta = sum_{j in beta} g_j``):

* the aggregate ``S_beta`` from prefix sums (level ``k`` holds ``I`` plus the first ``k``
  picks; only the levels that changed are summed again, so each mask's ``S`` is summed in one
  fixed order whatever the path to it);
* margin sense (``max v``, ``v(beta) = min_alpha f(alpha, beta)``, eq. (4)): the fixed-alpha
  value ``f(alpha, beta) >= v(beta)`` at the alpha carried from the previous mask (feasible
  for every mask), on its support only; below ``inc``: discarded, with ``f`` as its bound;
* otherwise (and always in the paper sense, ``min v``) SMO on the whole kernel from that alpha
  (:func:`~sparsekm.engines.smo.smo_decide`) until its certified interval ``[f + h, f]``
  (weak duality, :func:`~sparsekm.engines.smo.lin_bound`) lies strictly on the worse side of
  ``inc`` (discarded, its end on the better side joins the node's bound) or not (a candidate).

``rnd`` keeps round-off of the sums on the safe side: a mask is discarded only when it is worse
than ``inc`` by more than ``rnd``, so near-ties are always settled by libsvm's values, as
:mod:`.enumerate` settles them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sparsekm.engines.smo import exp_neg, ipow, lin_bound

__all__ = ["DONE", "CANDIDATE", "BUDGET", "POLY", "RBF", "next_combination", "scan_masks"]

POLY, RBF = 0, 1                  # kernel kinds of kpar[0]
DONE, CANDIDATE, BUDGET = 0, 1, 2  # what a scan call ends on
SMO_TOL = 1e-9                     # KKT tolerance of the deciding SMO runs
SMO_MAX_ITER = 50_000.0            # then the mask is a candidate (libsvm decides it)
ROUND = 1e-12                      # relative round-off allowed for a sum of products


@njit(cache=True, nogil=True, inline="always")
def _k(kind, g, c, d, s):
    """One kernel entry from its aggregate ``s`` (Section 2.2)."""
    if kind == RBF:
        return exp_neg(-g * s)
    return ipow(g * s + c, d)


@njit(cache=True, nogil=True)
def next_combination(comb, u):
    """Advance ``comb`` (r increasing positions in 0..u-1) to the next one in lexicographic
    order; returns the first position that changed, or -1 after the last one."""
    r = comb.shape[0]
    k = r - 1
    while k >= 0 and comb[k] == u - r + k:
        k -= 1
    if k < 0:
        return -1
    comb[k] += 1
    for t in range(k + 1, r):
        comb[t] = comb[t - 1] + 1
    return k


@njit(cache=True, nogil=True, fastmath={"contract"})
def _fixed_value(P, row_t, kpar, alpha, y, sv, nsv):
    """``(f(alpha, beta), round-off bound)`` from the support block, ``S = P + row_t`` on the
    rows of ``sv`` (the bound: ``ROUND`` times the sum of the terms' magnitudes)."""
    kind, g, d, c = int(kpar[0]), kpar[1], int(kpar[2]), kpar[3]
    quad = 0.0
    mag = 0.0
    asum = 0.0
    for a in range(nsv):
        i = sv[a]
        wi = alpha[i] * y[i]
        asum += alpha[i]
        acc = 0.0
        aac = 0.0
        for b in range(a + 1, nsv):
            h = sv[b]
            t = alpha[h] * y[h] * _k(kind, g, c, d, P[i, h] + row_t[i, h])
            acc += t
            aac += abs(t)
        t = wi * _k(kind, g, c, d, P[i, i] + row_t[i, i])
        quad += wi * (2.0 * acc + t)
        mag += abs(wi) * (2.0 * aac + abs(t))
    return 0.5 * quad - asum, ROUND * (mag + asum)


@njit(cache=True, nogil=True, fastmath={"contract"})
def _fill(P, row_t, kpar, K):
    """The whole kernel ``K = phi(P + row_t)``: rows of the upper triangle (views indexed
    from 0 and one loop per kernel kind, so that they vectorise), then mirrored."""
    kind, g, d, c = int(kpar[0]), kpar[1], int(kpar[2]), kpar[3]
    m = K.shape[0]
    for i in range(m):
        Ki, Pi, Ti = K[i, i:], P[i, i:], row_t[i, i:]
        if kind == RBF:
            for h in range(m - i):
                Ki[h] = exp_neg(-g * (Pi[h] + Ti[h]))
        else:
            for h in range(m - i):
                Ki[h] = ipow(g * (Pi[h] + Ti[h]) + c, d)
    for i in range(m):
        for h in range(i):
            K[i, h] = K[h, i]


@njit(cache=True, nogil=True, fastmath={"contract"})
def _gradient(K, y, alpha, sv, nsv, grad, bufs):
    """``grad = Q alpha - 1`` from the support rows (``K`` is symmetric); returns ``(f,
    round-off bound)``: the objective and a bound on the round-off of it and of any
    :func:`_lower` built on this gradient."""
    m = y.shape[0]
    acc, aac, C = bufs[0], bufs[1], bufs[2][0]
    acc[:] = 0.0
    aac[:] = 0.0
    for a in range(nsv):
        i = sv[a]
        wi = alpha[i] * y[i]
        Ki = K[i]
        for k in range(m):
            t = Ki[k] * wi
            acc[k] += t
            aac[k] += abs(t)
    f = 0.0
    mag = 0.0
    for k in range(m):
        grad[k] = y[k] * acc[k] - 1.0
        f += alpha[k] * (0.5 * (grad[k] + 1.0) - 1.0)
        mag += (alpha[k] + C) * (aac[k] + 1.0)
    return f, ROUND * mag


@njit(cache=True, nogil=True)
def _lower(alpha, grad, y, box, exact):
    """``h <= 0`` with ``f + h`` a lower bound on ``min f`` (weak duality,
    :func:`lin_bound`): at the KKT intercept ``b = mean(-y_k G_k)`` over the free variables
    (O(m), any ``b`` is valid), or maximised over ``b`` (``exact``: one sort)."""
    lo, hi = box
    if exact:
        return lin_bound(alpha, grad, y, lo, hi)
    C = hi[0]
    b = 0.0
    n = 0
    for k in range(y.shape[0]):
        if 0.0 < alpha[k] < C:
            b -= y[k] * grad[k]
            n += 1
    b = b / n if n else 0.0
    h = 0.0
    for k in range(y.shape[0]):
        s = grad[k] + b * y[k]
        h += min(s * (lo[k] - alpha[k]), s * (hi[k] - alpha[k]))
    return min(h, 0.0)


@njit(cache=True, nogil=True)
def _smo(K, y, alpha, grad, box, f, window, paper):
    """SMO with the maximal violating pair (libsvm's first-order rule) on the dense ``K`` from
    ``alpha`` (gradient ``grad``, objective ``f``), until its own values say the mask is on
    one side of ``window = (lo, hi)`` (``f < lo``; ``f + h > hi``, ``h`` from
    :func:`_lower` at the KKT intercept at iterations 0, 2, 4, 8, ...), it converged (KKT
    violation <= :data:`SMO_TOL`) or :data:`SMO_MAX_ITER` iterations. The caller certifies
    the outcome afresh, so drift here costs iterations, never validity.

    A lean loop rather than :func:`~sparsekm.engines.smo.smo_decide`: on the scans' small
    warm-started problems (m = 10-100, 1-5 iterations per mask) its per-call workspace and
    objective pass cost more than the iterations (measured 5.4-6.5 us per mask at m = 10).
    """
    lo, hi = box
    C = hi[0]
    lo_thr, hi_thr = window
    m = y.shape[0]
    it = 0
    check = 0
    while True:
        if f < lo_thr:
            break
        if it == check or it >= SMO_MAX_ITER:
            if (paper or f > hi_thr) and f + _lower(alpha, grad, y, box, False) > hi_thr:
                break
            check = max(2, 2 * check)
        if it >= SMO_MAX_ITER:
            break
        gmax, gmin, i, j = -np.inf, np.inf, -1, -1
        for t in range(m):
            v = -y[t] * grad[t]
            up = alpha[t] < C if y[t] > 0 else alpha[t] > 0.0
            low = alpha[t] > 0.0 if y[t] > 0 else alpha[t] < C
            if up and v > gmax:
                gmax, i = v, t
            if low and v < gmin:
                gmin, j = v, t
        if i < 0 or j < 0 or gmax - gmin <= SMO_TOL:
            break
        a = K[i, i] + K[j, j] - 2.0 * K[i, j]
        a = a if a > 0.0 else 1e-12
        b = gmax - gmin
        room_i = C - alpha[i] if y[i] > 0 else alpha[i]
        room_j = alpha[j] if y[j] > 0 else C - alpha[j]
        t = min(b / a, room_i, room_j)
        alpha[i] = min(C, max(0.0, alpha[i] + y[i] * t))
        alpha[j] = min(C, max(0.0, alpha[j] - y[j] * t))
        if t == room_i:
            alpha[i] = C if y[i] > 0 else 0.0
        if t == room_j:
            alpha[j] = 0.0 if y[j] > 0 else C
        Ki, Kj = K[i], K[j]
        for k in range(m):
            grad[k] += y[k] * t * (Ki[k] - Kj[k])
        f += t * (0.5 * a * t - b)
        it += 1
    return it


@njit(cache=True, nogil=True)
def _verdict(alpha, grad, y, box, value, window, paper):
    """``(decided, certified end)`` of a mask at ``alpha`` from its fresh gradient: strictly
    worse than the incumbent (``window`` around it) by a certified margin? Paper sense:
    ``f + h - err > hi`` (the quick ``h`` first, the exact one if that is not enough);
    margin sense: ``f + err < lo``."""
    f, err = value
    lo_thr, hi_thr = window
    if not paper:
        return f + err < lo_thr, f + err
    low = f + _lower(alpha, grad, y, box, False) - err
    if low <= hi_thr:
        low = max(low, f + _lower(alpha, grad, y, box, True) - err)
    return low > hi_thr, low


@njit(cache=True, nogil=True)
def _support(alpha, sv):
    n = 0
    for i in range(alpha.shape[0]):
        if alpha[i] > 0.0:
            sv[n] = i
            n += 1
    return n


@njit(cache=True, nogil=True)
def scan_masks(node, comb, kpar, alpha, ctl, acc):
    """Decide the node's masks from ``comb`` on (it is the first one to decide).

    ``node = (terms, base, U, y)``: the per-feature terms ``g_j`` (n, m, m), ``base`` (m, m)
    ``= sum_{j in I} g_j``, the free features ``U`` and the labels; ``comb`` (r >= 1
    positions in U, in/out); ``kpar`` = [kind,
    gamma, degree, coef0]; ``alpha`` (in/out): the feasible warm start; ``ctl`` = [C, paper
    (1.0) or margin (0.0), inc, rnd, max masks]; ``acc`` (in/out) = [masks decided, node
    bound over them (max of upper values / min of lower ones), SMO iterations, full stages].

    Returns DONE (every mask from ``comb`` on decided), CANDIDATE (``comb`` is a mask that is
    not strictly worse than ``inc``; nothing of it is in ``acc``) or BUDGET (``comb`` is the
    next mask to decide).
    """
    terms, base, U, y = node
    m = y.shape[0]
    u = U.shape[0]
    r = comb.shape[0]
    C, paper, inc, rnd, budget = ctl[0], ctl[1] > 0.5, ctl[2], ctl[3], ctl[4]
    P = np.empty((r, m, m))
    P[0] = base
    K = np.empty((m, m))
    grad = np.empty(m)
    sv = np.empty(m, np.int64)
    lo = np.zeros(m)
    hi = np.full(m, C)
    box = (lo, hi)
    bufs = (np.empty(m), np.empty(m), hi)
    window = (inc - rnd, inc + rnd)
    nsv = _support(alpha, sv)
    changed = 0
    done = 0
    while True:
        for k in range(changed + 1, r):             # prefix levels after the change
            jj = U[comb[k - 1]]
            Pk, Pp, Tj = P[k], P[k - 1], terms[jj]
            for i in range(m):
                Ki, Pi, Ti = Pk[i, i:], Pp[i, i:], Tj[i, i:]
                for h in range(m - i):
                    Ki[h] = Pi[h] + Ti[h]
        row_t = terms[U[comb[r - 1]]]
        Pl = P[r - 1]
        decided = False
        if not paper and nsv > 0:
            f, err = _fixed_value(Pl, row_t, kpar, alpha, y, sv, nsv)
            if f + err < inc - rnd:
                acc[1] = max(acc[1], f + err)
                decided = True
        if not decided:
            _fill(Pl, row_t, kpar, K)
            f, err = _gradient(K, y, alpha, sv, nsv, grad, bufs)
            decided, low = _verdict(alpha, grad, y, box, (f, err), window, paper)
            if not decided:
                acc[2] += _smo(K, y, alpha, grad, box, f, window, paper)
                acc[3] += 1
                nsv = _support(alpha, sv)
                f, err = _gradient(K, y, alpha, sv, nsv, grad, bufs)   # afresh
                decided, low = _verdict(alpha, grad, y, box, (f, err), window, paper)
            if decided and paper:
                acc[1] = min(acc[1], low)
            elif decided:
                acc[1] = max(acc[1], f + err)
        if not decided:
            return CANDIDATE
        acc[0] += 1
        done += 1
        changed = next_combination(comb, u)
        if changed < 0:
            return DONE
        if done >= budget:
            return BUDGET
