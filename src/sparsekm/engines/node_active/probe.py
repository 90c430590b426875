"""Strong branching's child bounds from the parent's final state (numba).

A child of a node fixes one free feature j out (j leaves the free set) or in (j joins F1, the
budget drops by one). Its engine state differs from the parent's final one by at most one
tie (j's) and kappa, so a probe forks the parent's state (:func:`~.state.copy_state`: no
new factorisation, no pricing pass), makes that change and runs a few pivots
(:func:`~.loop.run` without pricing). Its bound is g of the child at the probe's repaired
alpha, certified over all the child's free features by a bound on the features outside the
working set: |s_j(alpha)| <= |s_j(alpha_parent)| + ||q_j|| ||alpha - alpha_parent|| (Cauchy-
Schwarz); when that bound stays below the k-th largest |s| in the working set, the k largest
are all in it and g is exact; otherwise one pass over all free features computes it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .loop import WORKING, priced, run
from .partition import repair
from .pivot import correlations
from .qr import drop_constraint
from .state import (
    BUILD,
    KAPPA,
    NC,
    NW,
    NZ,
    UPDATES,
    copy_state,
    pack,
    read_partition,
    remove_at,
    unpack,
)

__all__ = ["probe", "restrict"]

BAND = 0.5            # outside features with |s_j| above this x the k-th: computed exactly


@njit(cache=True, error_model="numpy")
def _leave(Qt, C, S, j, side, k):
    """In place: j fixed out (side 0) or in (side 1) of the node whose budget is ``k``; j
    leaves the working set (its tie, if any, leaves the constraints) and kappa follows; the
    partition is read again when the ties can no longer hold kappa."""
    nW = S.ints[NW]
    w = -1
    for t in range(nW):
        if S.Wf[t] == j:
            w = t
            break
    if w < 0:
        S.ints[KAPPA] -= side
    else:
        was = S.st[w]
        nc = S.ints[NC]
        if was == 1 and S.ints[BUILD] == 0:   # (after a re-read the rebuild makes the ties)
            c = 1
            while S.cid[c] != w:
                c += 1
            drop_constraint(S.Q, S.R, S.ints[NZ], nc, c)
            remove_at(S.cid, nc, c)
            nc -= 1
            S.ints[NC] = nc
            S.ints[UPDATES] += 1
        S.ints[KAPPA] += (1 if was == 2 else 0) - side
        last = nW - 1                        # j leaves W: the last feature takes its place
        S.Wf[w], S.st[w], S.sg[w] = S.Wf[last], S.st[last], S.sg[last]
        S.sv[w], S.zW[w], S.frozen[w] = S.sv[last], S.zW[last], S.frozen[last]
        for c in range(1, nc):
            if S.cid[c] == last:
                S.cid[c] = w
        S.inW[j] = False
        S.ints[NW] = last
    if S.ints[KAPPA] < 0 or S.ints[NC] - 1 < S.ints[KAPPA]:
        read_partition(Qt, S, k - side, C)


@njit(cache=True, error_model="numpy")
def _fork(Qt, C, S0, j, side, k):
    """The parent's state ``S0`` made the child's (j out: side 0, in: side 1), a copy."""
    S = copy_state(S0)
    _leave(Qt, C, S, j, side, k)
    return S


@njit(cache=True, error_model="numpy")
def restrict(Qt, C, held, fixed, sides, k):
    """The node's final state (``held``, packed: :func:`~.state.pack`) made the state of the
    same node after its fixings (packed): each feature of ``fixed`` out (``sides`` 0) or in (1)
    in turn, as a child's fork does for one feature; ``k`` is the budget before the fixings.
    A feature fixed out outside the working set changes nothing (the common case: the fixing
    rule removes features far below the threshold)."""
    S = unpack(held)
    kk = k
    for t in range(fixed.size):
        if sides[t] == 1 or S.inW[fixed[t]]:
            _leave(Qt, C, S, fixed[t], sides[t], kk)
        kk -= sides[t]
    return pack(S)


@njit(cache=True, error_model="numpy")
def _bound(Qt, y, C, child, S, ref):
    """g of the child ``child = (F1, free, k)`` at the state's repaired alpha when the
    features outside the working set cannot reach its k largest, ``ref = (alpha_ref, band,
    rest, norm_max)``: the ``band`` features (outside W, near the threshold) computed
    exactly, the others bounded by ``rest`` + norm_max ||alpha - alpha_ref|| (module
    docstring); nan when they might reach the k largest."""
    F1, free, k = child
    a_ref, band, rest, norm_max = ref
    a = repair(S.a, y, C)
    nW = S.ints[NW]
    if nW + band.size < k:
        return np.nan
    s = np.empty(nW + band.size)
    correlations(Qt, S.Wf[:nW], a, s[:nW])
    correlations(Qt, band, a, s[nW:])
    s2 = np.partition(s * s, s.size - k)
    reach = rest + norm_max * np.sqrt(np.sum((a - a_ref) ** 2))
    if reach * reach > s2[s.size - k]:
        return np.nan
    cF = np.empty(F1.size)
    correlations(Qt, F1, a, cF)
    return a.sum() - 0.5 * (cF @ cF) - 0.5 * s2[s.size - k:].sum()


@njit(cache=True, error_model="numpy")
def _outside(free, inW, s_free, cut):
    """The free features outside the working set with |s_j| >= ``cut`` (the band), and the
    largest |s_j| of the others."""
    rest = 0.0
    band = np.empty(free.size, np.int64)
    nb = 0
    for f in range(free.size):
        if inW[free[f]]:
            continue
        v = abs(s_free[f])
        if v >= cut:
            band[nb] = free[f]
            nb += 1
        else:
            rest = max(rest, v)
    return band[:nb].copy(), rest


@njit(cache=True, error_model="numpy")
def _child(Qt, y, C, child, S, ref):
    """The best certified bound of the child within ``cap`` pivots, ``ref = (alpha_ref,
    (band, rest) outside the working set, norm_max, cap, omega)``: pivots in groups of at
    most four (two halves of a small cap), the point after each certified by
    :func:`_bound`, or by a pricing pass (which also brings the features above the
    threshold in) when the outside features might reach the k largest. Returns (bound,
    pivots)."""
    a_ref, outside, norm_max, cap, omega = ref
    band, rest = outside
    free = child[1]
    best, done, status = -np.inf, 0, -1
    every = max(2, min(4, (cap + 1) // 2))
    while True:
        if done > 0:
            b = _bound(Qt, y, C, child, S, (a_ref, band, rest, norm_max))
            entered = 0
            if np.isnan(b):
                s_child = np.empty(free.size)
                entered, b = priced(Qt, y, C, child, S, (s_child, omega))
                a_ref = S.a.copy()
                band, rest = _outside(free, S.inW, s_child, np.inf)
            best = max(best, b)
            if done >= cap or (status == WORKING and entered == 0):
                return best, done   # the cap, or the child's optimum (nothing enters)
        status, pivots, _, _, _, _, _ = run(Qt, y, C, child, S, (
            np.empty(0), np.inf, min(every, cap - done), omega, False))
        done += max(pivots, 1)


@njit(cache=True, error_model="numpy")
def probe(Qt, y, C, node, parent, cands, opts):
    """Bounds of the children "j out" and "j in" of each feature j of ``cands`` (free at the
    node ``node = (F1, free, k)``), each after at most ``cap`` pivots from the parent's final
    state; ``parent = (state packed (:func:`~.state.pack`), alpha, s over the free
    features)``, ``opts = (cap, omega, norms)`` with ``norms`` the column norms ||q_j||.
    Returns (out bounds, in bounds, pivots, starts): each bound the best certified one met on
    its child; ``starts[side, c]`` the child's last (repaired) multipliers, a warm start for
    its own solve."""
    F1, free, k = node
    held, a0, s_free = parent
    S0 = unpack(held)
    cap, omega, norms = opts
    norm_max = 0.0
    for f in range(free.size):
        norm_max = max(norm_max, norms[free[f]])
    thr = np.partition(np.abs(s_free), s_free.size - k)[s_free.size - k]
    band, rest = _outside(free, S0.inW, s_free, BAND * thr)
    outs, ins = np.empty(cands.size), np.empty(cands.size)
    starts = np.empty((2, cands.size, a0.size))
    total = 0
    for c in range(cands.size):
        j = cands[c]
        freec = free[free != j]
        bandc = band[band != j]
        for side in (0, 1):
            S = _fork(Qt, C, S0, j, side, k)
            F1c = F1 if side == 0 else np.append(F1, j)
            best, pivots = _child(Qt, y, C, (F1c, freec, k - side), S,
                                  (a0, (bandc, rest), norm_max, cap, omega))
            total += pivots
            starts[side, c] = repair(S.a, y, C)
            if side == 0:
                outs[c] = best
            else:
                ins[c] = best
    return outs, ins, total, starts
