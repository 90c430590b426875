"""The partition of the node active-set engine: read off a point, kept by ratio tests, grown by
pricing, and the certificate g (numba).

Samples: 0 (M: 0 < alpha_i < C), 1 (L: alpha_i = 0), 2 (U: alpha_i = C). Working features
(positions w of the working set W): 0 (N: below the threshold), 1 (T: tied at |s| = r, sign
``sg``), 2 (A: above). See :mod:`.pivot` for the model the partition defines.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .pivot import correlations

__all__ = ["certificate", "identify", "kth_abs", "price", "repair", "samples", "step",
           "top_abs"]

TIE_TOL = 1e-7        # relative: |s_j| this close to the threshold reads as a tie
PRICE_TOL = 1e-10     # relative: a feature this far above the threshold enters at pricing
GRAZE = 1e-7          # relative: a feature's approach to the threshold below this is round-off
FLOOR = 1e-6          # ... relative to the step's size plus FLOOR x the threshold
FAST = {"contract", "reassoc"}


@njit(cache=True, error_model="numpy")
def repair(a0, y, C):
    """``a0`` clipped to [0, C] and scaled down on the heavier class: y'alpha = 0."""
    a = np.minimum(np.maximum(a0, 0.0), C)
    sp, sn = 0.0, 0.0
    for i in range(a.size):
        if y[i] > 0:
            sp += a[i]
        else:
            sn += a[i]
    for i in range(a.size):
        if y[i] > 0 and sp > sn:
            a[i] *= sn / sp
        elif y[i] < 0 and sn > sp:
            a[i] *= sp / sn
    return a


@njit(cache=True, error_model="numpy")
def kth_abs(v, k):
    """The k-th largest |v| (k >= 1; 0 when v has fewer entries), by selection (O(size))."""
    if k > v.size or k <= 0:
        return 0.0
    return np.partition(np.abs(v), v.size - k)[v.size - k]


@njit(cache=True, error_model="numpy")
def top_abs(v, k, floor):
    """The k largest |v| (1 <= k <= v.size), in no order. ``floor`` is a guess at most the
    k-th largest: one pass keeps the |v_j| >= floor and, when they are k or more (which
    proves the guess), one selection among those few; else one selection over all of v.
    Exact either way."""
    many = 0
    for j in range(v.size):
        many += abs(v[j]) >= floor
    if many < k or floor <= 0.0:
        return np.partition(np.abs(v), v.size - k)[v.size - k:]
    few = np.empty(many)
    c = 0
    for j in range(v.size):
        if abs(v[j]) >= floor:
            few[c] = abs(v[j])
            c += 1
    return np.partition(few, many - k)[many - k:]


@njit(cache=True, error_model="numpy")
def identify(sv, sg, st, nW, k):
    """The feature partition over W read off s: A above the k-th |s| (the threshold r), T at
    it (relative TIE_TOL), N below. Returns (r, kappa = k - |A|)."""
    r = kth_abs(sv[:nW], k)
    na = 0
    for w in range(nW):
        v = abs(sv[w])
        sg[w] = 1.0 if sv[w] >= 0 else -1.0
        if v > r * (1 + TIE_TOL):
            st[w] = 2
            na += 1
        elif v >= r * (1 - TIE_TOL):
            st[w] = 1
        else:
            st[w] = 0
    return r, k - na


@njit(cache=True, error_model="numpy")
def samples(a, C):
    """The sample partition read off alpha (relative 1e-12 of C)."""
    ast = np.zeros(a.size, np.int8)
    for i in range(a.size):
        if a[i] <= 1e-12 * C:
            ast[i] = 1
        elif a[i] >= C * (1 - 1e-12):
            ast[i] = 2
    return ast


@njit(cache=True, inline="always", error_model="numpy")
def _reach(h0, h1, tol):
    """The step at which h0 + t h1 reaches 0 (h0 <= 0 up to round-off), inf when h1 <= ``tol``
    (a constraint that the direction only grazes by round-off, e.g. a feature whose column
    depends on the ties': adding it would make E singular); no branch to mispredict."""
    return max(-h0, 0.0) / h1 if h1 > tol else np.inf


@njit(cache=True, inline="always", error_model="numpy")
def _graze(dsw, dr, r):
    """A feature's tolerance for round-off in its approach to the threshold."""
    return GRAZE * (abs(dsw) + abs(dr) + FLOOR * r)


@njit(cache=True, error_model="numpy")
def _first_feature(sv, ds, state):
    """With ties, the working feature that reaches the threshold first and its step (inf:
    none), ``state = (st, sg, nW, r, dr, frozen)``: an N feature from either side, an A one
    from above; T and frozen ones never block. One pass without branches, then the first of
    the least (the order of a sequential scan)."""
    st, sg, nW, r, dr, frozen = state
    reach = np.empty(nW)
    for w in range(nW):
        tol = _graze(ds[w], dr, r)
        below = min(_reach(sv[w] - r, ds[w] - dr, tol), _reach(-sv[w] - r, -ds[w] - dr, tol))
        above = _reach(r - sg[w] * sv[w], dr - sg[w] * ds[w], tol)
        tw = below if st[w] == 0 else (above if st[w] == 2 else np.inf)
        reach[w] = np.inf if frozen[w] else tw
    if nW == 0:
        return -1, np.inf
    w = np.argmin(reach)
    return w, reach[w]


@njit(cache=True, error_model="numpy")
def step(a, d, sv, ds, state):
    """The ratio test along (d, dr) from (alpha, r), ``state = (ast, st, sg, nW, r, dr, tied,
    C, frozen)`` (frozen features never block: ties found dependent on the others, e.g. a
    duplicate column of a tied feature): the largest t <= 1 keeping the partition and what
    blocks it, (t, kind, index, sign, index2): kind 0 none, 1 sample to L, 2 sample to U, 3
    feature to T, 4 two features to T (no ties before: an N feature meets an A one)."""
    ast, st, sg, nW, r, dr, tied, C, frozen = state
    t, kind, idx, sgn, idx2 = 1.0, 0, -1, 0.0, -1
    tiny = 1e-15 * C
    reach = np.empty(a.size)                    # each sample's step to its bound (or inf)
    for i in range(a.size):
        low, up = _reach(-a[i], -d[i], tiny), _reach(a[i] - C, d[i], tiny)
        reach[i] = min(low, up) if ast[i] == 0 else np.inf
    i = np.argmin(reach)                        # the first of the least, as a scan in order
    if reach[i] < t:
        t, idx = reach[i], i
        kind = 1 if _reach(-a[i], -d[i], tiny) == t else 2
    if tied:
        w, tw = _first_feature(sv, ds, (st, sg, nW, r, dr, frozen))
        if tw < t:
            t, kind, idx = tw, 3, w
            sgn = sg[w] if st[w] == 2 else (1.0 if _reach(sv[w] - r, ds[w] - dr, _graze(
                ds[w], dr, r)) == tw else -1.0)
        return t, kind, idx, sgn, idx2
    for w in range(nW):
        if frozen[w] or st[w] != 0:
            continue
        for l in range(nW):
            if st[l] != 2:
                continue
            for sgw in (1.0, -1.0):
                tw = _reach(sgw * sv[w] - sg[l] * sv[l], sgw * ds[w] - sg[l] * ds[l],
                            GRAZE * (abs(ds[w]) + abs(ds[l]) + FLOOR * abs(sv[l])))
                if tw < t:
                    t, kind, idx, sgn, idx2 = tw, 4, w, sgw, l
    return t, kind, idx, sgn, idx2


@njit(cache=True, error_model="numpy")
def threshold(sv, st, nW, r, tied):
    """The k-th value of the partition: r with ties, else the least |s| over A."""
    if tied:
        return r
    low = np.inf
    for w in range(nW):
        if st[w] == 2:
            low = min(low, abs(sv[w]))
    return low


@njit(cache=True, fastmath=FAST, error_model="numpy")
def full_pass(Qt, free, a, s_free):
    """s over all free features: one product with Qt (BLAS) when most features are free."""
    if 2 * free.size >= Qt.shape[0]:
        s = Qt @ a
        for f in range(free.size):
            s_free[f] = s[free[f]]
    else:
        correlations(Qt, free, a, s_free)


@njit(cache=True, error_model="numpy")
def price(Qt, free, a, ws, thr):
    """A pricing pass, ``ws = (s_free, inW, Wf, st, sv, sg, nW, kappa, omega)``: s over all
    free features, and the working set grown by those above ``thr`` (to A when fewer than
    kappa of them: the partition still holds) and those above omega ``thr`` (to N). Returns
    (nW, entered, kappa, reread): reread when the partition must be read again."""
    s_free, inW, Wf, st, sv, sg, nW, kappa, omega = ws
    full_pass(Qt, free, a, s_free)
    entered = 0
    for f in range(free.size):
        if not inW[free[f]] and abs(s_free[f]) > thr * (1 + PRICE_TOL):
            entered += 1
    if entered == 0:
        return nW, 0, kappa, False
    to_a = entered <= kappa - 1
    for near in (False, True):            # the features above thr first (capacity)
        for f in range(free.size):
            j = free[f]
            v = abs(s_free[f])
            above = v > thr * (1 + PRICE_TOL)
            if inW[j] or v < omega * thr or above == near or nW >= Wf.size:
                continue
            Wf[nW], sv[nW], sg[nW] = j, s_free[f], 1.0 if s_free[f] >= 0 else -1.0
            st[nW] = 2 if above and to_a else 0
            inW[j] = True
            nW += 1
    return nW, entered, kappa - entered if to_a else kappa, not to_a


@njit(cache=True, error_model="numpy")
def certificate(Qt, F1, a, s_free, k, floor):
    """g(alpha) of :mod:`.solve` from s over the free features; ``floor``: a guess at the
    k-th largest |s| (:func:`top_abs`; 0 when none)."""
    cF = np.empty(F1.size)
    correlations(Qt, F1, a, cF)
    top = 0.0
    if k >= s_free.size:
        top = s_free @ s_free
    elif k > 0:
        big = top_abs(s_free, k, floor)
        top = big @ big
    return a.sum() - 0.5 * (cF @ cF) - 0.5 * top
