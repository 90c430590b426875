"""Certified bounds on ``v(beta') = min_alpha f(alpha, beta')`` for masks near a solved one.

Paper A, eq. (4): ``alpha_cur``, optimal for the centre mask ``beta``, is feasible for every
mask, so ``f(alpha_cur, beta') >= v(beta')`` (the fixed-alpha upper bound, the inequality
behind the beta-step of Section 4); so is every alpha the SMO engine reaches from it, and weak
duality at any feasible alpha gives a lower bound
(:func:`sparsekm.engines.smo.decide.lin_bound`). Kernel entries are masked-kernel rows
computed from the centre's aggregate plus the changed feature columns
(:mod:`sparsekm.engines.smo.masked_rows`), never the whole matrix.

Per mask, cheapest first:

1. the fixed-alpha value ``f(alpha_cur, beta')`` from the support-vector block (``|SV|^2 / 2``
   entries; :func:`fixed_alpha_quad`);
2. *working-set stage* (upper bounds only): SMO on the dense block ``K'[W, W]`` of a working
   set ``W`` = the support vectors plus the non-support vectors closest to the margin at the
   centre. Any alpha supported in ``W`` is feasible for the whole problem, and ``f`` at it
   needs only that block, so this gives exact upper bounds at ``|W|^2 / 2`` entries, against
   ``m |SV|`` for the gradient of the full problem (measured on german 300 x 24 and cleveland,
   rbf: the working-set optimum with a quarter of the non-support vectors settles ~80 % of
   the LS* samples that any bound could settle);
3. *full stage*: the gradient over all m rows at the current alpha, then SMO on the whole
   problem (rows on demand) with both bounds, until the interval settles the caller's
   comparison (:func:`~sparsekm.engines.smo.decide.smo_decide`).

:func:`refine_many` runs them for a whole list of masks in one nogil call. Each mask keeps its
SMO point (and, in the full stage, its gradient) between calls, so a mask asked again against
a tighter threshold continues where it stopped.
"""

from __future__ import annotations

import threading

import numpy as np
from numba import njit

from sparsekm.engines.smo import (
    BELOW,
    FIRST_ORDER,
    HINGE,
    get_row,
    masked_diag,
    masked_upper,
    smo_decide,
    upper_decide,
    upper_gradient,
    upper_segment,
)

__all__ = ["FRESH", "FULL", "WORKING", "Refiner", "fixed_alpha_quad", "refine_many"]

FRESH, WORKING, FULL = 0, 1, 2  # stage of a mask's SMO state
W_TOL = 1e-3  # KKT tolerance of the working-set stage (its optimum is only an upper bound)
W_PATIENCE = 16  # the working-set stage gives up when f would need > 16 more chunks at its pace
# Working-set selection of these short warm-started runs: the maximal violating pair. The
# second-order rule needs ~25 % fewer iterations here; with the engine before its issue-19
# rewrite its extra pass cost 4x the gradient update (4.7 vs 1.1 ns per variable) and first
# order was 20-30 % faster per mask; with the rewritten engine both take the same time
# (german 300 x 24, rbf, LS*: 0.71 vs 0.75 s; cleveland 0.31 vs 0.30 s).
WSS = FIRST_ORDER


@njit(cache=True, nogil=True, fastmath={"contract", "reassoc"})
def fixed_alpha_quad(Ssv, cols, kpar, w, row):
    """``w' K'[SV, SV] w`` for ``w = (alpha y)[SV]``: the quadratic term of ``f(alpha, beta')``.

    ``Ssv`` is the centre's aggregate on the support vectors and ``cols`` the changed columns
    restricted to them; the upper triangle only, row segment by row segment
    (:func:`~sparsekm.engines.smo.masked_rows.upper_segment`), each dot product summed in
    any order (``reassoc``: vectorised).
    """
    ns = Ssv.shape[0]
    quad = 0.0
    for t in range(ns):
        seg = row[:ns - t]
        upper_segment(Ssv, cols, kpar, t, seg, np.uint64(0))
        ws = w[t:]
        acc = 0.0
        for u in range(1, ns - t):
            acc += ws[u] * seg[u]
        quad += w[t] * (2.0 * acc + w[t] * seg[0])
    return quad


@njit(cache=True, nogil=True)
def _box(C, n, lo, hi, p, c):
    """Box [0, C], linear term -1 and entropy scale C for the first n variables."""
    for k in range(n):
        lo[k] = 0.0
        hi[k] = C
        p[k] = -1.0
        c[k] = C


@njit(cache=True, nogil=True)
def _working_stage(prob, alpha, lo_thr, ctl):
    """SMO on ``K'[W, W]`` (its upper triangle) from ``alpha0`` restricted to W, where its
    support lies, until ``f < lo_thr``, the working-set optimum (tolerance :data:`W_TOL`)
    or too slow a pace (:data:`W_PATIENCE`); writes the point into ``alpha`` (zero outside
    W). Returns ``(decided, f, iterations)``."""
    SW, cols, kpar, yW, a0W, W, ns, KW = prob
    nw = SW.shape[0]
    masked_upper(SW, cols, kpar, KW)
    aW = a0W.copy()
    vW = np.empty(nw)
    upper_gradient(KW, yW, aW, ns, vW)
    decided, f, its = upper_decide(KW, yW, aW, vW,
                                   (ctl[0], lo_thr, W_TOL, ctl[1], float(W_PATIENCE)))
    alpha[:] = 0.0
    for k in range(nw):
        alpha[W[k]] = aW[k]
    return decided, f, float(its)


@njit(cache=True, nogil=True, fastmath={"contract"})
def _gradient(ks, y, alpha, grad):
    """``grad = Q' alpha - 1`` from the rows of the support of ``alpha`` (they stay in the
    row cache for the SMO run that follows)."""
    m = y.shape[0]
    for k in range(m):
        grad[k] = -1.0
    for i in range(m):
        if alpha[i] > 0.0:
            row = get_row(ks, i)
            w = alpha[i] * y[i]
            for k in range(m):
                grad[k] += y[k] * w * row[k]


@njit(cache=True, nogil=True)
def _full_stage(prob, state, thr, ctl, bufs):
    """SMO on the whole problem from the mask's state: ``(decided, f, lower bound,
    iterations)``. ``state = (alpha, grad, stage)``; a mask not yet in the
    :data:`FULL` stage gets its gradient from the rows of its support first."""
    S, cols, kpar, y = prob
    alpha, grad, stage = state
    C, max_iter, tol, want_lb = ctl[0], ctl[1], ctl[2], ctl[3] > 0.0
    cache, slot_of, owner, stamp, cnt, diag, lo, hi, p, c = bufs
    m = y.shape[0]
    slot_of[:] = -1
    owner[:] = -1
    stamp[:] = 0
    cnt[:] = 0
    ks = (np.empty((0, 0)), S, cols, kpar, cache, slot_of, owner, stamp, cnt)
    masked_diag(S, cols, kpar, diag)
    _box(C, m, lo, hi, p, c)
    if stage[0] != FULL:
        _gradient(ks, y, alpha, grad)
        stage[0] = FULL
    st = (alpha, grad, y, p, lo, hi, c, diag, diag)
    opts = np.array([HINGE, WSS, tol, max_iter, 1e-12])
    out = np.zeros(3)
    decided, f, h = smo_decide(ks, st, opts, out, thr, (8, 256, want_lb, 0))
    return decided, f, f + h, out[0]


@njit(cache=True, nogil=True)
def _stack(XT, add_t, rem_t, cols):
    """The rows of ``XT`` that a mask adds, then those it removes, into ``cols``; (na, nr)."""
    m = XT.shape[1]
    na = 0
    for a in range(add_t.shape[0]):
        j = add_t[a]
        if j >= 0:
            cols[na * m:(na + 1) * m] = XT[j]
            na += 1
    nr = 0
    for r in range(rem_t.shape[0]):
        j = rem_t[r]
        if j >= 0:
            cols[(na + nr) * m:(na + nr + 1) * m] = XT[j]
            nr += 1
    return na, nr


@njit(cache=True, nogil=True)
def _fixed_value(centre, add_t, rem_t, kp, row):
    """``f(alpha0, beta')`` from the support-vector block (the leading block of W)."""
    S, XT, y, alpha0, W, ns, SW, XTW = centre
    Ssv = SW[:ns, :ns]
    cols = np.empty((add_t.shape[0] + rem_t.shape[0]) * ns)
    na, nr = _stack(XTW[:, :ns], add_t, rem_t, cols)
    kp[4] = na
    kp[5] = nr
    w = np.empty(ns)
    asum = 0.0
    for u in range(ns):
        w[u] = alpha0[W[u]] * y[W[u]]
        asum += alpha0[W[u]]
    return 0.5 * fixed_alpha_quad(Ssv, cols[:(na + nr) * ns], kp, w, row) - asum


@njit(cache=True, nogil=True)
def refine_many(centre, kpar, batch, ctl, bufs, outs):
    """Bounds for the masks ``todo`` in order; one nogil call.

    ``centre = (S, XT, y, alpha0, W, ns, SW, XTW)``: the centre's aggregate, the features as
    rows, labels, the feasible alpha; the working set ``W`` (its first ``ns`` entries are the
    support of ``alpha0``) with the aggregate and the features restricted to it.
    ``batch = (add, rem, alphas, grads, stages, todo, lo_thr, hi_thr)``: mask t adds the
    features ``add[t] >= 0`` and removes ``rem[t] >= 0`` from the centre; ``alphas[t]``,
    ``grads[t]``, ``stages[t]`` its SMO state (stage :data:`FRESH`: ``alpha0``); thresholds
    per entry of ``todo``. ``ctl = [C, max_iter, tol, want_lb, stop_code, use_W]``.

    With ``max_iter = 0`` and not ``want_lb``, only the fixed-alpha value ``f(alpha0,
    beta')`` of fresh masks is computed (the state is left alone). Otherwise fresh masks go
    through the working-set stage first when ``use_W`` (only upper bounds are asked, so only
    ``f < lo_thr`` can settle them), then the full stage. Writes ``f``, the lower bound, the
    iterations and a flag ``spent`` (the full stage ended undecided: converged or at its
    cap) per mask into ``outs = (f_out, lb_out, it_out, spent_out)``; returns how many masks
    were processed, negated when it stopped after a mask whose :func:`smo_decide` outcome
    is ``stop_code`` (if non-zero)."""
    S, XT, y, alpha0, W, ns, SW, XTW = centre
    add, rem, alphas, grads, stages, todo, lo_thr, hi_thr = batch
    f_out, lb_out, it_out, spent_out = outs
    stop_code = int(ctl[4])
    use_W = ctl[5] > 0.0
    fixed_only = ctl[1] == 0.0 and ctl[3] == 0.0
    m = y.shape[0]
    nw = SW.shape[0]
    kmax = add.shape[1] + rem.shape[1]
    cols = np.empty(kmax * m)
    colsW = np.empty(kmax * nw)
    KW = np.empty((nw, nw)) if use_W and not fixed_only else np.empty((0, 0))
    yW = np.empty(nw)
    a0W = np.empty(nw)
    for k in range(nw):
        yW[k] = y[W[k]]
        a0W[k] = alpha0[W[k]]
    kp = kpar.copy()
    row = bufs[0][0]
    for q in range(todo.shape[0]):
        t = todo[q]
        if fixed_only and stages[t] == FRESH:
            f_out[t] = _fixed_value(centre, add[t], rem[t], kp, row)
            lb_out[t] = -np.inf
            it_out[t] = 0.0
            spent_out[t] = 0.0
            continue
        its = 0.0
        if stages[t] == FRESH:
            alphas[t] = alpha0
            if use_W and not fixed_only:
                na, nr = _stack(XTW, add[t], rem[t], colsW)
                kp[4] = na
                kp[5] = nr
                d, f, its = _working_stage((SW, colsW[:(na + nr) * nw], kp, yW, a0W, W, ns, KW),
                                           alphas[t], lo_thr[q], ctl)
                stages[t] = WORKING
                if d == BELOW:
                    f_out[t] = f
                    lb_out[t] = -np.inf
                    it_out[t] = its
                    spent_out[t] = 0.0
                    continue
        na, nr = _stack(XT, add[t], rem[t], cols)
        kp[4] = na
        kp[5] = nr
        d, f, lb, its2 = _full_stage((S, cols[:(na + nr) * m], kp, y),
                                     (alphas[t], grads[t], stages[t:t + 1]),
                                     (lo_thr[q], hi_thr[q]), ctl, bufs)
        f_out[t] = f
        lb_out[t] = lb
        it_out[t] = its + its2
        spent_out[t] = 1.0 if d == 0 else 0.0
        if stop_code != 0 and d == stop_code:
            return -(q + 1)
    return todo.shape[0]


class Refiner:
    """Per-thread buffers for :func:`refine_many` (m rows, row cache of ``slots``)."""

    def __init__(self, m: int, slots: int) -> None:
        self.m, self.slots = m, max(2, min(m, slots))
        self._local = threading.local()

    def buffers(self) -> tuple:
        b = getattr(self._local, "bufs", None)
        if b is None:
            m, s = self.m, self.slots
            b = (np.zeros((s, m)), np.full(m, -1, np.int64), np.full(s, -1, np.int64),
                 np.zeros(s, np.int64), np.zeros(3, np.int64), np.empty(m), np.empty(m),
                 np.empty(m), np.empty(m), np.empty(m))
            self._local.bufs = b
        return b
