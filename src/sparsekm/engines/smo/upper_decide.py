""":func:`upper_decide`: a lean SMO for the hinge dual on a small dense kernel block, stopped
as soon as its objective falls below a threshold.

Paper A's fast local search bounds ``v(beta') = min_alpha f(alpha, beta')`` from above by
SMO on the dense block ``K'[W, W]`` of a working set (:mod:`sparsekm.algorithms.fs_kernel.
refine`). Those runs are short (tens of iterations over a few hundred variables) and only the
objective matters, so this loop does what :func:`~.decide.smo_decide` does for them with less
around each step:

* the block is given by its **upper triangle** (:func:`~.masked_rows.masked_upper`); the
  starting gradient is a symmetric product over the rows of the support, and a row's lower
  part is copied from its column only when SMO first picks that variable (a few dozen rows,
  against mirroring the whole block: measured 16 us of a 229 x 229 block);
* the objective is carried along each step (``f += -t v + t^2 kappa / 2``, exact for the
  two-variable step), so the run stops at the first step that takes it below ``lo`` (no
  chunks of 8); the value returned is recomputed from the gradient, as
  :func:`~.engine.objective` does;
* first-order pairs (maximal violating pair), the choice of the engine's short warm-started
  runs; the gradient update and the next pair are found in one pass.

``v = -y G`` (``G = Q a - 1``, ``Q = (yy') o K``) as in :mod:`.engine`; box ``[0, C]``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .decide import BELOW, UNDECIDED

__all__ = ["upper_decide", "upper_gradient"]

_UP, _LOW = 1, 2


@njit(cache=True, nogil=True, fastmath={"contract", "reassoc"})
def upper_gradient(K, y, alpha, ns, v):
    """``v = -y o (Q alpha - 1)`` for ``alpha`` supported on its first ``ns`` entries, from
    the upper triangle of ``K`` (rows ``t < ns``: their segment ``h >= t`` and the part
    ``t < h < ns`` of their column). The dot products may be summed in any order
    (``reassoc``: vectorised, 2-3x faster)."""
    m = y.shape[0]
    u = np.zeros(m)
    s = np.zeros(m)
    for t in range(ns):
        s[t] = alpha[t] * y[t]
    for t in range(ns):
        st = s[t]
        row = K[t, t:]
        seg = u[t:]
        sv = s[t:ns]
        acc = 0.0
        for h in range(1, ns - t):
            acc += sv[h] * row[h]
        for h in range(m - t):
            seg[h] += st * row[h]
        u[t] += acc
    for k in range(m):
        v[k] = y[k] - u[k]


@njit(cache=True, nogil=True, inline="always")
def _status(a, C, y):
    below = a < C
    above = a > 0.0
    if y > 0.0:
        return (_UP if below else 0) | (_LOW if above else 0)
    return (_UP if above else 0) | (_LOW if below else 0)


@njit(cache=True, nogil=True)
def _complete(K, ready, i):
    """Fill row ``i`` left of the diagonal from column ``i`` (once per run)."""
    if not ready[i]:
        for u in range(i):
            K[i, u] = K[u, i]
        ready[i] = True


@njit(cache=True, nogil=True, fastmath={"contract"})
def _objective(alpha, v, y):
    """``f = 1/2 a'Qa - sum a = 1/2 sum a_k (G_k - 1)`` with ``G = -y v``."""
    f = 0.0
    for k in range(alpha.shape[0]):
        f += alpha[k] * (-y[k] * v[k] - 1.0)
    return 0.5 * f


@njit(cache=True, nogil=True, fastmath={"contract"})
def upper_decide(K, y, alpha, v, ctl):
    """SMO from ``alpha`` (its gradient in ``v``, both updated in place) on the dense block
    whose upper triangle is ``K`` (its lower part is overwritten row by row on use).

    ``ctl = (C, lo, tol, max_iter, patience)``: stops with ``BELOW`` as soon as ``f < lo``;
    undecided when the maximal KKT violation is ``<= tol``, after ``max_iter`` steps, or
    (``patience > 0``) when the last 8 steps lowered ``f`` by less than ``(f - lo) /
    patience``. Returns ``(decided, f, iterations)``.
    """
    C, lo, tol, max_iter, patience = ctl
    m = y.shape[0]
    flags = np.empty(m, dtype=np.int8)
    ready = np.zeros(m, dtype=np.bool_)
    gmax, gmin, i, j = -np.inf, np.inf, -1, -1
    for k in range(m):
        flags[k] = _status(alpha[k], C, y[k])
        if flags[k] & _UP and v[k] > gmax:
            gmax, i = v[k], k
        if flags[k] & _LOW and v[k] < gmin:
            gmin, j = v[k], k
    f = _objective(alpha, v, y)
    f_mark = f
    it = 0
    while f >= lo:
        if i < 0 or j < 0 or gmax - gmin <= tol or it >= max_iter:
            return UNDECIDED, f, it
        if patience > 0 and it > 0 and it % 8 == 0:
            if (f_mark - f) * patience < f - lo:
                return UNDECIDED, f, it
            f_mark = f
        _complete(K, ready, i)
        _complete(K, ready, j)
        vij = gmax - gmin
        kappa = K[i, i] + K[j, j] - 2.0 * K[i, j]
        if kappa <= 0.0:
            kappa = 1e-12
        ti = C - alpha[i] if y[i] > 0 else alpha[i]
        tj = alpha[j] if y[j] > 0 else C - alpha[j]
        tmax = min(ti, tj)
        t = vij / kappa
        if t >= tmax:
            t = tmax
        ai_old, aj_old = alpha[i], alpha[j]
        ai = ai_old + y[i] * t
        aj = aj_old - y[j] * t
        if t >= tmax:  # snap the variable(s) whose bound defined tmax
            if ti <= tj:
                ai = C if y[i] > 0 else 0.0
            if tj <= ti:
                aj = 0.0 if y[j] > 0 else C
        alpha[i] = min(max(ai, 0.0), C)
        alpha[j] = min(max(aj, 0.0), C)
        flags[i] = _status(alpha[i], C, y[i])
        flags[j] = _status(alpha[j], C, y[j])
        f += t * (0.5 * kappa * t - vij)
        di = (alpha[i] - ai_old) * y[i]
        dj = (alpha[j] - aj_old) * y[j]
        ri = K[i]
        rj = K[j]
        gmax, gmin, i, j = -np.inf, np.inf, -1, -1
        for k in range(m):
            vk = v[k] - (di * ri[k] + dj * rj[k])
            v[k] = vk
            fk = flags[k]
            vu = vk if fk & _UP else -np.inf
            vl = vk if fk & _LOW else np.inf
            if vu > gmax:
                gmax, i = vu, k
            if vl < gmin:
                gmin, j = vl, k
        it += 1
        if f < lo:  # carried value below: confirm from the gradient
            f = _objective(alpha, v, y)
    return BELOW, f, it
