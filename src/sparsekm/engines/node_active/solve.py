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
Optimization, Algorithm 16.3). Every iterate is feasible, so *every iterate's g is a
certificate*, and the best is kept. OPTIMAL needs the model to equal g at the maximiser (else
a frozen tie drifted across the threshold, which no ratio test watches: the partition is read
again, at most three times, then NUMERIC); a threshold r crossing zero (the ties' signs
flip) reads the partition again too: both were seen on small degenerate nodes, as false
optima up to 200 % below the node's value and as cycling.
The ratio tests run over a working set W of features; when W is optimal, one pricing pass
over all free features either certifies or brings the features above the threshold in.
Warm start: the parent's alpha and working set (the partition is read off alpha).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .loop import LIMIT, NUMERIC, OPTIMAL, PRUNED, WORKING, floor_guess, run
from .partition import certificate, full_pass, repair, top_abs
from .pivot import correlations
from .state import NW, new_state, pack, read_partition, unpack

__all__ = ["LIMIT", "NUMERIC", "OPTIMAL", "PRUNED", "WORKING", "node_active_set",
           "resume_active_set"]

MIN_CAPACITY = 512    # the working set holds at most max(this, 4 (k + m + extra)) features


@njit(cache=True, error_model="numpy")
def _keep_cut(s_free, k, omega, ws):
    """The |s| from which a working set keeps a free feature, ``ws = (extra, floor)``: the
    k + extra largest |s| and those within omega of the k-th are kept (by selection,
    O(|free|); ``floor`` a guess at the (k + extra)-th largest, :func:`~.partition.top_abs`);
    0 when that is every feature."""
    extra, floor = ws
    if k + extra >= s_free.size:
        return 0.0
    top = top_abs(s_free, k + extra, floor)             # the k + extra largest, and the
    thr = np.partition(top, top.size - k)[top.size - k]  # k-th largest among them
    return min(omega * thr, top.min())


@njit(cache=True, error_model="numpy")
def next_working_set(free, s_free, k, omega, ws):
    """The free features a working set keeps (:func:`_keep_cut`), in ``free``'s order."""
    cut = _keep_cut(s_free, k, omega, ws)
    out = np.empty(free.size, np.int64)
    c = 0
    for f in range(free.size):
        if abs(s_free[f]) >= cut:
            out[c] = free[f]
            c += 1
    return out[:c].copy()


@njit(cache=True, error_model="numpy")
def _setup(Qt, y, C, node, start, ws):
    """The state at the repaired ``alpha0``: the working set W0 (its free features) or, when
    it holds at most k, the one a pricing pass finds (:func:`_keep_cut`); the partition read off
    alpha. ``ws = (s_free, omega, extra)``. Returns (state, pricing passes)."""
    F1, free, k = node
    a0, W0 = start
    s_free, omega, extra = ws
    n, m = Qt.shape
    S = new_state(n, min(free.size, max(MIN_CAPACITY, 4 * (k + m + extra))),
                  repair(a0, y, C))
    isfree = np.zeros(n, np.bool_)
    for j in free:
        isfree[j] = True
    nW = 0
    for j in W0:
        if isfree[j] and not S.inW[j] and nW < S.Wf.size:
            S.Wf[nW], S.inW[j] = j, True
            nW += 1
    prices = 0
    if nW <= k:
        full_pass(Qt, free, S.a, s_free)
        prices = 1
        absv = np.abs(s_free)
        keep = absv >= _keep_cut(s_free, k, omega, (extra, 0.0))
        if keep.sum() > S.Wf.size - nW:     # the largest |s| that fit
            cut = np.partition(absv, absv.size - (S.Wf.size - nW))[
                absv.size - (S.Wf.size - nW)]
            keep &= absv >= cut
        for f in range(free.size):
            if keep[f] and not S.inW[free[f]] and nW < S.Wf.size:
                S.Wf[nW], S.inW[free[f]] = free[f], True
                nW += 1
    S.ints[NW] = nW
    read_partition(Qt, S, k, C)
    return S, prices


@njit(cache=True, error_model="numpy")
def node_active_set(Qt, y, C, node, start, opts):
    """Maximise g at the node ``node = (F1, free, k)`` (0 < k < |free|) from ``start = (alpha0,
    W0)`` (W0 empty: the working set from a pricing pass), ``opts = (cutoff, max_pivots,
    omega, extra)``: stop once g >= cutoff (pruned) or after max_pivots; features with |s_j|
    >= omega x the threshold join the working set, which keeps at least k + extra.

    Returns (alpha, bound = g(alpha), status, pivots, pricing passes, W, z on W, s over the
    free features, W_next, final state (packed: :func:`~.state.pack`), whether the state is at
    alpha, s_j^2 at alpha over all n features (0 on those neither free nor in F1)): alpha is
    feasible and the bound exact at it whatever the status (OPTIMAL, PRUNED, LIMIT, NUMERIC);
    it is the best certified iterate."""
    s_free = np.empty(node[1].size)
    S, prices = _setup(Qt, y, C, node, start, (s_free, opts[2], opts[3]))
    return _solve(Qt, y, C, node, (S, s_free, prices), opts)


@njit(cache=True, error_model="numpy")
def resume_active_set(Qt, y, C, node, P, opts):
    """:func:`node_active_set` continued from ``P``, the packed final state a call at the
    same node returned: the pivots go on where they stopped (its partition and factors
    kept), so solving in chunks (the form reads the clock between them) follows the path of
    one call. Reading the partition again at each chunk instead lowered g at tall nodes
    (arrhythmia: 826 to 632 within one chunk) and so stopped them as stalled."""
    S = unpack(P)
    s_free = np.empty(node[1].size)
    full_pass(Qt, node[1], S.a, s_free)
    return _solve(Qt, y, C, node, (S, s_free, 1), opts)


@njit(cache=True, error_model="numpy")
def _solve(Qt, y, C, node, start, opts):
    """The pivots from the state ``start = (S, s_free, pricing passes so far)`` and the
    returned tuple of :func:`node_active_set`."""
    F1, free, k = node
    cutoff, max_pivots, omega, extra = opts
    S, s_free, prices = start
    status, pivots, more, fresh, g, a, s = run(Qt, y, C, node, S, (
        s_free, cutoff, max_pivots, omega, True))
    prices += more
    if not fresh:
        S.a[:] = repair(S.a, y, C)
        full_pass(Qt, free, S.a, s_free)
        prices += 1
        last = certificate(Qt, F1, S.a, s_free, k, floor_guess(S, k))
        if last >= g:
            g, a, s = last, S.a.copy(), s_free.copy()
    at = True
    for i in range(a.size):
        at = at and a[i] == S.a[i]
    nW = S.ints[NW]
    for w in range(nW):
        S.zW[w] = 1.0 if S.st[w] == 2 else (0.0 if S.st[w] == 0 else S.zW[w])
    W_next = next_working_set(free, s, k, omega, (extra, floor_guess(S, k + extra)))
    return (a, g, status, pivots, prices, S.Wf[:nW].copy(), S.zW[:nW].copy(), s, W_next,
            pack(S), at, _scores(Qt, F1, free, (a, s)))


@njit(cache=True, error_model="numpy")
def _scores(Qt, F1, free, at):
    """s_j^2 over all features at ``at = (alpha, s over the free features)``: the free ones
    from s, F1's from their rows, 0 elsewhere (the node form's ``score``)."""
    a, s = at
    score = np.zeros(Qt.shape[0])
    for f in range(free.size):
        score[free[f]] = s[f] * s[f]
    s1 = np.empty(F1.size)
    correlations(Qt, F1, a, s1)
    for f in range(F1.size):
        score[F1[f]] = s1[f] * s1[f]
    return score
