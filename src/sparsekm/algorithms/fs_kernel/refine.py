"""Certified bounds on ``v(beta') = min_alpha f(alpha, beta')`` for masks near a solved one.

Paper A, eq. (4): ``alpha_cur``, optimal for the centre mask ``beta``, is feasible for every
mask, so ``f(alpha_cur, beta') >= v(beta')`` (the fixed-alpha upper bound, the inequality
behind the beta-step of Section 4) and weak duality at ``alpha_cur`` gives a lower bound
(:func:`sparsekm.solvers.smo.decide.lin_bound`). Both come from ``K_beta'[:, SV]`` alone:
``m x |SV|`` masked-kernel entries, computed from the centre's aggregate plus the changed
feature columns (:mod:`sparsekm.solvers.smo.masked_rows`), never the whole matrix.
:func:`refine_many` then continues each mask from ``alpha_cur`` with the SMO engine (warm
start, rows on demand) until its interval settles the caller's comparison
(:func:`~sparsekm.solvers.smo.decide.smo_decide`): one nogil call for a whole list of masks.
"""

from __future__ import annotations

import math
import threading

import numpy as np
from numba import njit

from sparsekm.solvers.smo import (
    HINGE,
    MASKED_POLY,
    SECOND_ORDER,
    get_row,
    ipow,
    masked_diag,
    smo_decide,
)

__all__ = ["Refiner", "refine_many"]


@njit(cache=True, nogil=True)
def _one(prob, grad0, thr, ctl, bufs):
    """Bounds for one mask warm-started at ``alpha0``: ``(decided, f, lower bound, iters)``.

    ``prob = (S, cols, kpar, y, alpha0, sv)``, ``thr = (lo_thr, hi_thr)`` (the window of
    :func:`smo_decide`), ``ctl`` as for :func:`refine_many`. ``grad0`` is the gradient at
    ``alpha0`` for this mask, or NaN-filled (then computed from the support-vector rows and
    written back). With ``max_iter = 0`` and ``want_lb`` False only ``f(alpha0)`` is computed,
    from the support-vector block (|SV|^2 entries; the lower bound is then -inf).
    """
    S, cols, kpar, y, alpha0, sv = prob
    C, max_iter, tol, want_lb = ctl[0], int(ctl[1]), ctl[2], ctl[3] > 0.0
    cache, slot_of, owner, stamp, cnt, alpha, grad, diag, lo, hi, p, c = bufs
    m = y.shape[0]
    if max_iter == 0 and not want_lb and np.isnan(grad0[0]):
        return 0, _fixed_alpha_value(S, cols, kpar, y, alpha0, sv, diag), -np.inf, 0.0
    slot_of[:] = -1
    owner[:] = -1
    stamp[:] = 0
    cnt[:] = 0
    ks = (np.empty((0, 0)), S, cols, kpar, cache, slot_of, owner, stamp, cnt)
    masked_diag(S, cols, kpar, diag)
    for k in range(m):
        alpha[k] = alpha0[k]
        lo[k] = 0.0
        hi[k] = C
        p[k] = -1.0
        c[k] = C
    if np.isnan(grad0[0]):
        for k in range(m):
            grad[k] = -1.0
        for t in range(sv.shape[0]):
            i = sv[t]
            row = get_row(ks, i)
            w = alpha0[i] * y[i]
            for k in range(m):
                grad[k] += y[k] * w * row[k]
        for k in range(m):
            grad0[k] = grad[k]
    else:
        for k in range(m):
            grad[k] = grad0[k]
    st = (alpha, grad, y, p, lo, hi, c, diag, diag)
    opts = np.array([HINGE, SECOND_ORDER, tol, float(max_iter), 1e-12])
    out = np.zeros(3)
    decided, f, h = smo_decide(ks, st, opts, out, thr, (8, 256, want_lb))
    return decided, f, f + h, out[0]


@njit(cache=True, nogil=True)
def _fixed_alpha_value(S, cols, kpar, y, alpha0, sv, w):
    """``f(alpha0, beta') = 1/2 a' K a - 1'alpha0`` from the support-vector block only."""
    poly = int(kpar[0]) == MASKED_POLY
    scale = kpar[1]
    deg = int(kpar[2])
    shift = kpar[3]
    nc = int(kpar[4]) + int(kpar[5])
    na = int(kpar[4])
    ns = sv.shape[0]
    m = y.shape[0]
    for u in range(ns):
        w[u] = alpha0[sv[u]] * y[sv[u]]
    quad = 0.0
    for t in range(ns):
        i = sv[t]
        acc = 0.0
        for u in range(ns):
            h = sv[u]
            v = S[i, h]
            for q in range(nc):
                a = cols[q * m + i]
                b = cols[q * m + h]
                g = a * b if poly else (a - b) * (a - b)
                v = v + g if q < na else v - g
            v = scale * v + shift
            acc += w[u] * (ipow(v, deg) if poly else math.exp(v))
        quad += w[t] * acc
    total = 0.0
    for k in range(m):
        total += alpha0[k]
    return 0.5 * quad - total


@njit(cache=True, nogil=True)
def refine_many(centre, kpar, batch, ctl, bufs, outs):
    """:func:`_one` for the masks ``todo`` in order; one nogil call.

    ``centre = (S, XT, y, alpha0, sv)``: the centre's aggregate, the features as rows, labels,
    the feasible alpha and its support. ``batch = (add, rem, grads, todo, lo_thr, hi_thr)``:
    mask t adds the features ``add[t] >= 0`` and removes ``rem[t] >= 0`` from the centre;
    thresholds per entry of ``todo``. ``ctl = [C, max_iter, tol, want_lb, stop_code]``.
    Writes ``f``, the lower bound and the iterations per mask into ``outs = (f_out, lb_out,
    it_out)``; returns how many masks were processed (it stops after the first mask whose
    ``smo_decide`` outcome is ``stop_code``, if non-zero)."""
    S, XT, y, alpha0, sv = centre
    add, rem, grads, todo, lo_thr, hi_thr = batch
    f_out, lb_out, it_out = outs
    stop_code = int(ctl[4])
    m = y.shape[0]
    kmax = add.shape[1] + rem.shape[1]
    cols = np.empty(kmax * m)
    kp = kpar.copy()
    for q in range(todo.shape[0]):
        t = todo[q]
        na = 0
        for a in range(add.shape[1]):
            j = add[t, a]
            if j >= 0:
                cols[na * m:(na + 1) * m] = XT[j]
                na += 1
        nr = 0
        for r in range(rem.shape[1]):
            j = rem[t, r]
            if j >= 0:
                cols[(na + nr) * m:(na + nr + 1) * m] = XT[j]
                nr += 1
        kp[4] = na
        kp[5] = nr
        d, f, lb, its = _one((S, cols[:(na + nr) * m], kp, y, alpha0, sv), grads[t],
                             (lo_thr[q], hi_thr[q]), ctl, bufs)
        f_out[t] = f
        lb_out[t] = lb
        it_out[t] = its
        if stop_code != 0 and d == stop_code:
            return q + 1
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
                 np.empty(m), np.empty(m), np.empty(m), np.empty(m), np.empty(m))
            self._local.bufs = b
        return b
