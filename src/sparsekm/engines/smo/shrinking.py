"""The working state of the compiled SMO loop: the active set, its compact arrays and rows.

The loop works on ``v = -y * G`` (a gradient update then needs no label, ``y_k^2 = 1``) and
on one status byte per variable (bit ``UP``: in I_up, bit ``LOW``: in I_low; eq. (26)),
rather than on ``G`` and the bounds: measured 3-4x fewer nanoseconds per variable and pass.

Shrinking (Joachims 1999; Fan, Chen & Lin 2005, JMLR 6, Section 5; as libsvm does): every
``every`` iterations a variable at a bound whose ``v`` puts it beyond the current maximal
violation (it cannot join a violating pair now) leaves the active set. The active variables
then live in compact arrays (``cv``, ``cf``, ``cc``: their v, status and curvature, in
active order) and their kernel rows in a compact row cache (the entries at active positions
only, LRU), so an iteration reads ``n`` contiguous entries instead of ``m`` scattered ones.

A shrunk variable keeps its value but its ``v`` goes stale, so the stop is never declared on
the active set alone: when the active problem meets ``tol``, ``v`` is rebuilt on all m
variables (:func:`expand`) and checked there; if a shrunk variable violates, all are active
again and the loop goes on. When the violation first falls below ``10 tol``, ``v`` is rebuilt
once as well and shrinking starts afresh from the whole set (early decisions were taken far
from the optimum). The rebuild needs ``vbar_t = -sum_{j at a bound} y_j a_j K_tj`` (for the
hinge only ``a = C`` counts), formed at the first shrink and kept up to date when a variable
reaches or leaves a bound; a rebuild then costs (free) x (shrunk) kernel entries:
``v_t = vbar_t - sum_{free j} y_j a_j K_tj - y_t (p_t + phi'(a_t))``.

``ws`` = (act, buf, vbar, state, v, flags, comp, pending): ``act`` is a permutation of
0..m-1 whose first ``state[N_ACTIVE]`` entries are active (position q holds variable act[q];
the identity while nothing is shrunk); ``buf`` scratch; ``v``, ``flags`` by variable;
``state`` as named below (``every = 0``: no shrinking); ``comp`` = (cv, cf, cc, rows,
slot_of, owner, stamp, cst) with ``cst`` = [stride, slots, clock, used] of the compact row
cache; ``pending`` = (change, listed variables, listed flag) of vbar changes not yet applied.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .losses import phi_d1
from .rows import get_row

__all__ = ["FREE", "LOW", "UP", "compact_fill", "expand", "load", "record_move", "shrink",
           "status", "store", "sync", "violation", "work", "workspace"]

N_ACTIVE, COUNTER, UNSHRUNK, VBAR_READY, EVERY, SHRINKS, REACTIVATIONS, COMPACT, PENDING = range(9)
STRIDE, SLOTS, CLOCK, USED = range(4)
# A variable leaves only when it is beyond the violation by MARGIN times the current gap m - M
# (the rule tends to libsvm's as the gap closes). Measured on twonorm, spambase, ringnorm
# (m = 3000, rbf, C = 100, tol 1e-6): with no margin, shrinking every 100-300 iterations
# needed 1.4-2x the iterations (variables shrunk far from the optimum had to come back);
# 0.3 keeps the iteration count of the unshrunk loop and shrinks early.
MARGIN = 0.3
# The full arrays are left (for compact rows) only when at most 1/COMPACT_RATIO of the
# variables stay active: a compact row costs a gather, repaid only when rows are reused, and
# early in a low-C solve every iteration takes new rows (spambase, C = 1: 1.8x slower when
# compacting to 94 % of m).
COMPACT_RATIO = 2
UP, LOW = 1, 2  # status bits: y_t a_t may increase (I_up) / decrease (I_low)
FREE = UP | LOW


@njit(cache=True, nogil=True)
def workspace(m, every, cache_mb=32.0):
    """A fresh ``ws`` for m variables: all active; shrink every ``every`` iterations (0:
    never; the first shrink comes after min(m, every) iterations, as in libsvm). The compact
    row cache may grow to ``cache_mb`` megabytes (touched only as rows are filled)."""
    state = np.zeros(9, np.int64)
    state[N_ACTIVE] = m
    state[COUNTER] = min(m, every)
    state[EVERY] = every
    cells = max(min(int(cache_mb * 2**17), m * m), 2 * m) if every > 0 else 0
    k = m if every > 0 else 0
    comp = (np.empty(k), np.empty(k, np.int8), np.empty(k), np.empty(cells),
            np.full(k, -1, np.int64), np.full(k, -1, np.int64), np.zeros(k, np.int64),
            np.zeros(4, np.int64))
    pending = (np.zeros(k), np.empty(k, np.int64), np.zeros(k, np.int8))
    return (np.arange(m), np.empty(m, np.int64), np.zeros(m), state, np.empty(m),
            np.empty(m, np.int8), comp, pending)


@njit(cache=True, nogil=True, inline="always")
def status(a, lo, hi, y):
    """The status byte of a variable (UP | LOW when free, 0 when lo = hi)."""
    below = a < hi
    above = a > lo
    if y > 0.0:
        return np.int8((UP if below else 0) | (LOW if above else 0))
    return np.int8((UP if above else 0) | (LOW if below else 0))


@njit(cache=True, nogil=True)
def work(st, ws):
    """(V, F, CC, n): v, status and curvature of the active positions 0..n-1."""
    if ws[3][COMPACT]:
        cv, cf, cc = ws[6][0], ws[6][1], ws[6][2]
        return cv, cf, cc, ws[3][N_ACTIVE]
    return ws[4], ws[5], st[8], st[0].shape[0]


@njit(cache=True, nogil=True)
def load(st, ws):
    """v = -y G and the status bytes from the point ``st`` (and their compact copies)."""
    alpha, grad, y, p, lo, hi, c, diag, curv = st
    act, v, flags = ws[0], ws[4], ws[5]
    for t in range(alpha.shape[0]):
        v[t] = -y[t] * grad[t]
        flags[t] = status(alpha[t], lo[t], hi[t], y[t])
    if ws[3][COMPACT]:
        cv, cf, cc = ws[6][0], ws[6][1], ws[6][2]
        for q in range(ws[3][N_ACTIVE]):
            t = act[q]
            cv[q] = v[t]
            cf[q] = flags[t]
            cc[q] = curv[t]


@njit(cache=True, nogil=True)
def store(st, ws):
    """G = -y v back into ``st`` (exact: y = +-1); v must be exact on all m (:func:`sync`)."""
    y, grad, v = st[2], st[1], ws[4]
    for t in range(y.shape[0]):
        grad[t] = -y[t] * v[t]


@njit(cache=True, nogil=True)
def violation(V, F, n):
    """(m(a), M(a), qi, qj): max of v over I_up, min over I_low (eq. (27)) among positions
    0..n-1, and those positions."""
    gmax = -np.inf
    gmin = np.inf
    imax = -1
    jmin = -1
    for q in range(n):
        f = F[q]
        vq = V[q]
        vu = vq if f & UP else -np.inf
        vl = vq if f & LOW else np.inf
        if vu > gmax:
            gmax = vu
            imax = q
        if vl < gmin:
            gmin = vl
            jmin = q
    return gmax, gmin, imax, jmin


@njit(cache=True, nogil=True)
def compact_fill(ks, ws, t):
    """Put the kernel row of variable t at the active positions into the compact row cache
    (gathered from its full row; least recently used evicted) and return its offset in
    ``rows``. The loop looks a cached row up itself (``slot_of``) and calls this on a miss;
    the row just looked up is the newest, so it is never the one evicted here."""
    act, n = ws[0], ws[3][N_ACTIVE]
    cv, cf, cc, rows, slot_of, owner, stamp, cst = ws[6]
    cst[CLOCK] += 1
    if cst[USED] < cst[SLOTS]:
        s = cst[USED]
        cst[USED] += 1
    else:
        s = 0
        for r in range(1, cst[SLOTS]):
            if stamp[r] < stamp[s]:
                s = r
        if owner[s] >= 0:
            slot_of[owner[s]] = -1
    owner[s] = t
    slot_of[t] = s
    stamp[s] = cst[CLOCK]
    full = get_row(ks, t)
    start = s * cst[STRIDE]
    for q in range(n):
        rows[start + q] = full[act[q]]
    return start


@njit(cache=True, nogil=True, inline="always")
def record_move(pending, state, t, w):
    """Record that y_t a_t at a bound changed by w: vbar changes by ``-w K_t``. Changes are
    summed per variable and applied by :func:`flush_vbar` when vbar is read, so a variable
    that flips between a bound and free many times costs one row pass, not one per flip."""
    pend, touched, listed = pending
    if not listed[t]:
        listed[t] = 1
        touched[state[PENDING]] = t
        state[PENDING] += 1
    pend[t] += w


@njit(cache=True, nogil=True)
def flush_vbar(ks, ws):
    """Apply the recorded changes to vbar (one kernel row per variable that moved)."""
    pend, touched, listed = ws[7]
    vbar = ws[2]
    for r in range(ws[3][PENDING]):
        t = touched[r]
        w = pend[t]
        pend[t] = 0.0
        listed[t] = 0
        if w != 0.0:
            full = get_row(ks, t)
            for k in range(vbar.shape[0]):
                vbar[k] -= w * full[k]
    ws[3][PENDING] = 0


@njit(cache=True, nogil=True)
def form_vbar(ks, st, ws, loss):
    """vbar from the rows of the bounded variables, or from v and the rows of the free ones
    when those are fewer (v must be exact on all m: nothing shrunk yet)."""
    alpha, grad, y, p, lo, hi, c, diag, curv = st
    vbar, v, flags = ws[2], ws[4], ws[5]
    m = alpha.shape[0]
    n_fixed = 0
    n_free = 0
    for t in range(m):
        if flags[t] == FREE:
            n_free += 1
        elif alpha[t] != 0.0:
            n_fixed += 1
    from_fixed = n_fixed <= n_free
    for k in range(m):
        vbar[k] = 0.0 if from_fixed else v[k] + y[k] * (p[k] + phi_d1(loss, alpha[k], c[k]))
    for t in range(m):
        w = alpha[t] * y[t] if (flags[t] == FREE) != from_fixed else 0.0
        if w != 0.0:
            full = get_row(ks, t)
            if from_fixed:
                w = -w
            for k in range(m):
                vbar[k] += w * full[k]
    ws[3][VBAR_READY] = 1


@njit(cache=True, nogil=True)
def sync(ks, st, ws, loss):
    """Make v exact on all m variables: the compact v back to v, shrunk ones rebuilt."""
    alpha, grad, y, p, lo, hi, c, diag, curv = st
    act, buf, vbar, state, v, flags, comp, pending = ws
    n = state[N_ACTIVE]
    m = alpha.shape[0]
    if n == m:
        return
    flush_vbar(ks, ws)
    cv = comp[0]
    for q in range(n):
        v[act[q]] = cv[q]
    for q in range(n, m):
        t = act[q]
        v[t] = vbar[t] - y[t] * (p[t] + phi_d1(loss, alpha[t], c[t]))
    n_free = 0
    for q in range(n):
        j = act[q]
        if flags[j] == FREE:
            buf[n_free] = j
            n_free += 1
    if n_free <= m - n:  # fewer rows to fetch: one per free variable
        for f in range(n_free):
            j = buf[f]
            full = get_row(ks, j)
            w = alpha[j] * y[j]
            for q in range(n, m):
                t = act[q]
                v[t] -= w * full[t]
    else:  # one row per shrunk variable
        for q in range(n, m):
            t = act[q]
            full = get_row(ks, t)
            s = 0.0
            for f in range(n_free):
                j = buf[f]
                s += alpha[j] * y[j] * full[j]
            v[t] -= s


@njit(cache=True, nogil=True)
def expand(ks, st, ws, loss):
    """Every variable active again, v exact (the whole-set check before a stop)."""
    sync(ks, st, ws, loss)
    act, state = ws[0], ws[3]
    for t in range(act.shape[0]):
        act[t] = t
    state[N_ACTIVE] = act.shape[0]
    state[COMPACT] = 0


@njit(cache=True, nogil=True)
def shrink(ks, st, ws, loss, tol):
    """One shrinking step; returns :func:`violation` over the new active positions.

    A variable leaves when it is at a bound and cannot join a violating pair at the current
    (m, M): in I_up only with v < M, in I_low only with v > m, or in neither.
    """
    V, F, CC, n = work(st, ws)
    gmax, gmin, qi, qj = violation(V, F, n)
    state = ws[3]
    if state[UNSHRUNK] == 0 and gmax - gmin <= 10.0 * tol:
        state[UNSHRUNK] = 1
        expand(ks, st, ws, loss)
        V, F, CC, n = work(st, ws)
        gmax, gmin, qi, qj = violation(V, F, n)
    state[SHRINKS] += 1
    act, buf = ws[0], ws[1]
    kept = 0
    gone = n
    margin = MARGIN * (gmax - gmin)
    for q in range(n):  # kept positions to buf[:kept], shrunk variables to buf[kept:n]
        f = F[q]
        if f == 0 or (f == UP and V[q] < gmin - margin) or (f == LOW and V[q] > gmax + margin):
            gone -= 1
            buf[gone] = act[q]
        else:
            buf[kept] = q
            kept += 1
    if kept == n or (not state[COMPACT] and COMPACT_RATIO * kept > n):
        return gmax, gmin, qi, qj  # nothing to drop, or too little to pay for compact rows
    if state[VBAR_READY] == 0:  # first drop: v is still exact on all m
        form_vbar(ks, st, ws, loss)
    cv, cf, cc, rows, slot_of, owner, stamp, cst = ws[6]
    if state[COMPACT]:
        for q in range(kept, n):  # drop the rows of shrunk variables, compact the others
            t = buf[q]
            s = slot_of[t]
            if s >= 0:
                slot_of[t] = -1
                owner[s] = -1
                stamp[s] = 0
        stride = cst[STRIDE]
        for s in range(cst[USED]):
            if owner[s] >= 0:
                r = rows[s * stride:s * stride + n]
                for a in range(kept):
                    r[a] = r[buf[a]]
    else:  # leave the full arrays: the cache is laid out for the new active size
        for s in range(cst[USED]):
            if owner[s] >= 0:
                slot_of[owner[s]] = -1
                owner[s] = -1
            stamp[s] = 0
        cst[STRIDE] = max(kept, 1)
        cst[SLOTS] = min(act.shape[0], rows.shape[0] // cst[STRIDE])
        cst[USED] = 0
    for a in range(kept):  # positions only move down: in place, in order
        p = buf[a]
        cv[a] = V[p]
        cf[a] = F[p]
        cc[a] = CC[p]
        act[a] = act[p]
    for q in range(kept, n):
        act[q] = buf[q]
    state[N_ACTIVE] = kept
    state[COMPACT] = 1
    return violation(cv, cf, kept)
