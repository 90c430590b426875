""":func:`smo_decide`: a compiled SMO run that stops as soon as its certified interval decides.

:func:`smo_decide` runs :func:`~.engine.smo_solve` in chunks (all variables active, one
workspace for the whole run: a fresh one per 8-iteration chunk costs ~17 small allocations)
and after each chunk (and once before the first) compares the certified interval
``[f + h, f]`` on the optimal value with ``(lo, hi)``: ``f`` is the objective at the current
feasible point (an upper bound) and ``f + h`` the linearised-duality lower bound
(:func:`lin_bound`, the compiled twin of :func:`~.certificate.linearized_bound`). Unlike the
``decide`` option of :func:`~.kernel_dual.solve_kernel_dual` (checked from Python every
``check_every`` iterations), the whole loop is one nogil call: a caller deciding hundreds of
small problems (paper A's neighbourhoods) pays no Python work per check and can run them on
threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .engine import objective, smo_solve, workspace

__all__ = ["BELOW", "ABOVE", "lin_bound", "smo_decide"]

UNDECIDED, BELOW, ABOVE = 0, 1, 2


@njit(cache=True, nogil=True)
def lin_bound(alpha, grad, y, lo, hi):
    """``max_b sum_k min_{beta_k in [lo_k, hi_k]} (G_k + b y_k)(beta_k - alpha_k)`` (<= 0).

    Same quantity as :func:`~.certificate.linearized_bound`: ``f(alpha) + h`` is a certified
    lower bound on ``min f`` for every convex dual of the family.
    """
    m = alpha.shape[0]
    kinks = np.empty(m)
    for k in range(m):
        kinks[k] = -y[k] * grad[k]
    order = np.argsort(kinks)
    total_wl = 0.0
    for k in range(m):
        total_wl += (hi[k] - alpha[k]) if y[k] > 0 else (alpha[k] - lo[k])
    # slope right of the r-th kink: sum_{k > r} wl_k + sum_{k <= r} wr_k (non-increasing)
    acc_l = 0.0
    acc_r = 0.0
    r = m - 1
    for q in range(m):
        k = order[q]
        acc_l += (hi[k] - alpha[k]) if y[k] > 0 else (alpha[k] - lo[k])
        acc_r += (lo[k] - alpha[k]) if y[k] > 0 else (alpha[k] - hi[k])
        if (total_wl - acc_l) + acc_r <= 0.0:
            r = q
            break
    b = kinks[order[r]]
    h = 0.0
    for k in range(m):
        s = grad[k] + b * y[k]
        h += min(s * (lo[k] - alpha[k]), s * (hi[k] - alpha[k]))
    return min(h, 0.0)


@njit(cache=True, nogil=True)
def smo_decide(ks, st, opts, out, window, sched):
    """SMO until converged, ``opts[3]`` iterations, or the interval leaves ``window = (lo,
    hi)``; ``sched = (f_every, max_gap, final_bound, patience)``.

    The objective ``f`` (O(m)) is compared with ``lo`` every ``f_every`` iterations; the lower
    bound (a sort, O(m log m)) only when ``f > hi`` (otherwise ``f + h <= hi`` anyway), at
    iterations ``f_every, 2 f_every, 4 f_every, ...`` (at most ``max_gap`` apart). With
    ``patience > 0`` the run also gives up (undecided) as soon as the last ``f_every``
    iterations lowered ``f`` by less than ``(f - lo) / patience``: at that pace ``f`` would
    need more than ``patience`` further chunks to reach ``lo``. Returns
    ``(decided, f, h)``: ``decided`` is 1 (``f < lo``: the optimum is below ``lo``), 2
    (``f + h > hi``: above ``hi``) or 0; ``out`` as for :func:`~.engine.smo_run` with the
    total iteration count in ``out[0]``. ``h`` belongs to the final point; it is -inf (no
    bound) when it was not needed and ``final_bound`` is False.
    """
    alpha, grad, y, p, blo, bhi, c, diag, curv = st
    lo, hi = window
    f_every, max_gap, final_bound, patience = sched
    loss = int(opts[0])
    cap = opts[3]
    run = opts.copy()
    ws = workspace(alpha.shape[0], 0)  # one active-set state for all chunks (no shrinking)
    total = 0.0
    next_bound = 0.0
    gap = float(f_every)
    f = objective(st, loss)
    h = -np.inf
    h_at = -1.0
    decided = UNDECIDED
    converged = 0.0
    while True:
        if f < lo:
            decided = BELOW
            break
        if f > hi and (total >= next_bound or converged > 0.0 or total >= cap):
            h = lin_bound(alpha, grad, y, blo, bhi)
            h_at = total
            next_bound = total + gap
            gap = min(2.0 * gap, float(max_gap))
            if f + h > hi:
                decided = ABOVE
                break
        if converged > 0.0 or total >= cap:
            break
        run[3] = min(float(f_every), cap - total)
        smo_solve(ks, st, run, out, ws)
        total += out[0]
        converged = out[1]
        f_prev = f
        f = objective(st, loss)
        if patience > 0 and f >= lo and (f_prev - f) * patience < f - lo:
            break
    if h_at != total:
        h = lin_bound(alpha, grad, y, blo, bhi) if final_bound else -np.inf
    out[0] = total
    out[1] = converged
    return decided, f, h
