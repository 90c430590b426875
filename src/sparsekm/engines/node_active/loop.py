"""The pivots of the node active-set engine (numba): the primal active-set method on the node
dual's pieces (see :mod:`.solve`), on a :class:`~.state.State`.

Each pivot (Nocedal & Wright, Numerical Optimization, Algorithm 16.3, on the pieces of g):

1. the step to the maximiser of the quadratic model on the partition's manifold
   (:func:`~.pivot.direction`: a correction onto the manifold, then the null-space step);
2. the ratio test (:func:`~.partition.step`): the first sample to reach a bound or feature
   to reach the threshold joins the partition (QR updated: :mod:`.qr`);
3. at the maximiser, the most violated multiplier leaves: a tie whose z_j left [0, 1], a
   sample at a bound whose margin is violated;
4. none: optimal on the working set, and a pricing pass over all free features either
   certifies (no feature above the threshold, and the model equal to g: :func:`_holds`) or
   brings features in.

A pricing pass also runs every PRICE_EVERY pivots and whenever the model reaches the
cutoff; each certifies g at its (repaired) alpha and the best is kept. When the partition's
model no longer equals g there (a tie set aside as dependent drifted across the threshold,
which no ratio test watches), the partition is read again at once: on arrhythmia the model
rose from 776 to 848 over 2,000 pivots while g fell from 656 to -2,031, and only the next
maximiser's check caught it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .partition import certificate, kth_abs, price, repair, step, threshold
from .pivot import (
    correlations,
    direction,
    fitted,
    gradient,
    margins,
    model_value,
    multipliers,
    variable_row,
)
from .qr import add_variable, drop_constraint, drop_variable
from .state import (
    BUILD,
    KAPPA,
    NC,
    NW,
    NZ,
    UPDATES,
    build,
    read_partition,
    remove_at,
    residual,
    tie,
)

__all__ = ["LIMIT", "NUMERIC", "OPTIMAL", "PRUNED", "WORKING", "correlations_W",
           "floor_guess", "priced", "run"]

OPTIMAL, PRUNED, LIMIT, NUMERIC, WORKING = 0, 1, 2, 3, 4
DROP_TOL = 1e-9       # a multiplier (z_j outside [0, 1], a bound margin) violated by more
REFACTOR = 64         # updates of the QR factors between two factorisations from scratch
PRICE_EVERY = 50      # pivots between two pricing passes (each certifies; the best is kept;
                      # 25: more CPU on the replayed nodes for the same bounds and statuses)
CUTOFF_EVERY = 4      # pivots between two looks at the model value against the cutoff
HOLD_TOL = 1e-7       # relative: the model and g agree at a maximiser the engine certifies
MAX_THAWS = 3         # partitions read again (frozen ties released) before giving up


@njit(cache=True, error_model="numpy")
def _above(F1, S):
    """F1 and the features of A: the columns of G."""
    nW = S.ints[NW]
    na = 0
    for w in range(nW):
        na += S.st[w] == 2
    FA = np.empty(F1.size + na, np.int64)
    FA[:F1.size] = F1
    p = F1.size
    for w in range(nW):
        if S.st[w] == 2:
            FA[p] = S.Wf[w]
            p += 1
    return FA


@njit(cache=True, error_model="numpy")
def _ties(S):
    """(feature, sign) of each constraint (-1, 0 for y'alpha = 0)."""
    nc = S.ints[NC]
    feats = np.empty(nc, np.int64)
    signs = np.zeros(nc)
    for c in range(nc):
        w = S.cid[c]
        feats[c] = -1 if w < 0 else S.Wf[w]
        signs[c] = 0.0 if w < 0 else S.sg[w]
    return feats, signs


@njit(cache=True, error_model="numpy")
def _drop(lam, r, ties, margin, ast):
    """The most violated multiplier at a maximiser, ``ties = (signs, zT)``: (kind, index)
    with kind 0 none, 1 tie to N (z_j < 0), 2 tie to A (z_j > 1), 3 sample released from its
    bound; z of each tie into ``zT``."""
    signs, zT = ties
    worst, kind, idx = DROP_TOL, 0, -1
    for c in range(1, signs.size):
        zq = signs[c] * lam[c] / r
        zT[c] = zq
        if -zq > worst:
            worst, kind, idx = -zq, 1, c
        if zq - 1.0 > worst:
            worst, kind, idx = zq - 1.0, 2, c
    for i in range(ast.size):
        if ast[i] == 1 and 1.0 - margin[i] > worst:
            worst, kind, idx = 1.0 - margin[i], 3, i
        elif ast[i] == 2 and margin[i] - 1.0 > worst:
            worst, kind, idx = margin[i] - 1.0, 3, i
    return kind, idx


@njit(cache=True, error_model="numpy")
def _healthy(S):
    """R's diagonal clear of zero (relative 1e-12): the updated factors are usable."""
    nc = S.ints[NC]
    big, small = 0.0, np.inf
    for i in range(nc):
        v = abs(S.R[i, i])
        big, small = max(big, v), min(small, v)
    return nc == 0 or small > 1e-12 * big


@njit(cache=True, error_model="numpy")
def _rebuild(Qt, y, S):
    """Factorise from scratch; a dependent tie leaves T (to A when T could not hold kappa
    without it) and is frozen. False when even y'alpha = 0 is degenerate (no free sample)."""
    rank = build(Qt, y, S)
    nc = S.ints[NC]
    if rank >= nc:
        return True
    if rank == 0:
        return False
    w = S.cid[rank]
    ties = 0                        # all of T (build factorises at most nz of them)
    for v in range(S.ints[NW]):
        ties += S.st[v] == 1
    to_a = ties - 1 < S.ints[KAPPA]
    S.st[w], S.frozen[w] = 2 if to_a else 0, True
    S.ints[KAPPA] -= to_a
    S.ints[BUILD] = 1
    return True


@njit(cache=True, error_model="numpy")
def correlations_W(Qt, S, v, out):
    """out_w = q_{Wf[w]}'v over the working set (:func:`~.pivot.correlations`, whose sums
    vectorise; a plain loop summed in order does not)."""
    correlations(Qt, S.Wf[:S.ints[NW]], v, out)


@njit(cache=True, error_model="numpy")
def _move(Qt, y, S, step_to, C):
    """The ratio test along ``step_to = (d, dr)`` and the step; the blocking constraint joins
    the partition. Returns True when blocked."""
    d, dr = step_to
    nW = S.ints[NW]
    ds = np.empty(nW)
    correlations_W(Qt, S, d, ds)
    t, kind, idx, sgn, idx2 = step(S.a, d, S.sv[:nW], ds, (
        S.ast, S.st, S.sg, nW, S.r[0], dr, S.ints[NC] > 1, C, S.frozen))
    S.a[:] += t * d
    S.r[0] += t * dr
    for w in range(nW):
        S.sv[w] += t * ds[w]
    if kind == 1 or kind == 2:
        S.a[idx] = 0.0 if kind == 1 else C
        S.ast[idx] = kind
        nz = S.ints[NZ]
        p = 0
        while S.vid[p] != idx:
            p += 1
        drop_variable(S.Q, S.R, nz, S.ints[NC], p)
        remove_at(S.vid, nz, p)
        S.ints[NZ] = nz - 1
        S.ints[UPDATES] += 1
    if kind == 4:
        S.st[idx2] = 1
        S.ints[KAPPA] += 1
        S.r[0] = abs(S.sv[idx2])
        tie(Qt, y, S, idx2, S.sg[idx2])
    if kind == 3 or kind == 4:
        S.ints[KAPPA] += S.st[idx] == 2
        S.st[idx], S.sg[idx] = 1, sgn
        tie(Qt, y, S, idx, sgn)
    return kind != 0


@njit(cache=True, error_model="numpy")
def _release(Qt, y, S, kind, idx, zT):
    """Apply a drop at a maximiser (kind of :func:`_drop`); z of the ties into zW."""
    nc = S.ints[NC]
    for c in range(1, nc):
        S.zW[S.cid[c]] = min(max(zT[c], 0.0), 1.0)
    if kind == 1 or kind == 2:
        w = S.cid[idx]
        S.st[w] = 0 if kind == 1 else 2
        S.zW[w] = 0.0 if kind == 1 else 1.0
        S.ints[KAPPA] -= kind == 2
        drop_constraint(S.Q, S.R, S.ints[NZ], nc, idx)
        remove_at(S.cid, nc, idx)
        S.ints[NC] = nc - 1
        S.ints[UPDATES] += 1
    elif kind == 3:
        feats, signs = _ties(S)
        nz = S.ints[NZ]
        S.ast[idx] = 0
        add_variable(S.Q, S.R, nz, nc, variable_row(Qt, y, idx, feats, signs))
        S.vid[nz] = idx
        S.ints[NZ] = nz + 1
        S.ints[UPDATES] += 1


@njit(cache=True, error_model="numpy")
def priced(Qt, y, C, node, S, ws):
    """A pricing pass at the repaired alpha, ``ws = (s_free, omega)``: s over all free
    features, those above the threshold brought in (the partition read again when they are
    more than kappa). Returns (entered, g at alpha)."""
    F1, free, k = node
    s_free, omega = ws
    S.a[:] = repair(S.a, y, C)
    nW = S.ints[NW]
    thr = threshold(S.sv, S.st, nW, S.r[0], S.ints[NC] > 1)
    nW, entered, kappa, reread = price(Qt, free, S.a, (s_free, S.inW, S.Wf, S.st, S.sv,
                                                        S.sg, nW, S.ints[KAPPA], omega), thr)
    S.ints[NW], S.ints[KAPPA] = nW, kappa
    correlations_W(Qt, S, S.a, S.sv)
    if reread:
        read_partition(Qt, S, k, C)
    return entered, certificate(Qt, F1, S.a, s_free, k, floor_guess(S, k))


@njit(cache=True, error_model="numpy")
def floor_guess(S, k):
    """A guess at the k-th largest |s| over the free features for
    :func:`~.partition.top_abs`: just below the working set's k-th (its s may be a pivot
    old; the count there proves or refutes the guess)."""
    nW = S.ints[NW]
    return 0.99 * kth_abs(S.sv[:nW], k) if nW >= k else 0.0


@njit(cache=True, error_model="numpy")
def run(Qt, y, C, node, S, work):
    """Pivot from the state ``S`` at the node ``node = (F1, free, k)``, ``work = (s_free,
    cutoff, max_pivots, omega, pricing)``. Without ``pricing`` (strong branching's probes)
    no pricing pass runs and reaching the maximiser on the working set stops (WORKING).

    Returns (status, pivots, pricing passes, fresh: s_free is at S.a, best certified g, its
    alpha, its s over the free features)."""
    F1, free, k = node
    s_free, cutoff, max_pivots, omega, pricing = work
    m = y.size
    status, pivots, prices, fresh, thaws = LIMIT, 0, 0, False, 0
    best_g, best_a, best_s = -np.inf, S.a.copy(), s_free.copy()
    while pivots < max_pivots:
        pivots += 1
        if S.ints[BUILD] or S.ints[UPDATES] >= REFACTOR or not _healthy(S):
            if not _rebuild(Qt, y, S):
                status = NUMERIC
                break
            if S.ints[BUILD]:
                continue
        FA = _above(F1, S)
        tied = S.ints[NC] > 1
        if pricing and (pivots % PRICE_EVERY == 0 or (
                pivots % CUTOFF_EVERY == 0 and cutoff < np.inf and model_value(
                    Qt, FA, S.a, S.r[0] if tied else 0.0, S.ints[KAPPA]) >= cutoff)):
            entered, g = priced(Qt, y, C, node, S, (s_free, omega))
            prices += 1
            if g > best_g:
                best_g, best_a, best_s = g, S.a.copy(), s_free.copy()
            if g >= cutoff:
                status, fresh = PRUNED, True
                break
            if entered:
                continue
            if S.ints[NC] > 1 and not _holds(Qt, F1, S, g):   # a frozen tie drifted: read
                S.frozen[:] = False                           # the partition now, not at
                read_partition(Qt, S, k, C)                   # the next maximiser
                continue
        nz, nc = S.ints[NZ], S.ints[NC]
        dz, full = direction(Qt, FA, (S.Q, S.R, S.vid, nz, nc, residual(y, S)), S.a,
                             (S.r[0], float(S.ints[KAPPA])), C)
        d = np.zeros(m)
        dr = 0.0
        for t in range(nz):
            if S.vid[t] == m:
                dr = dz[t]
            else:
                d[S.vid[t]] = dz[t]
        blocked = _move(Qt, y, S, (d, dr), C)
        if S.r[0] < 0.0 and S.ints[NC] > 1:     # the ties crossed zero: their signs flip
            read_partition(Qt, S, k, C)
            continue
        if blocked or not full:
            continue
        feats, signs = _ties(S)
        Ka = fitted(Qt, FA, S.a)
        lam = multipliers(S.Q, S.R, nz, nc, gradient(Ka, S.vid, nz,
                                                     (S.r[0], float(S.ints[KAPPA]))))
        zT = np.zeros(nc)
        kind, idx = _drop(lam, S.r[0], (signs, zT), margins(Qt, y, Ka, feats[1:], lam),
                          S.ast)
        _release(Qt, y, S, kind, idx, zT)
        if kind != 0:
            continue
        if not pricing:
            status = WORKING
            break
        entered, g = priced(Qt, y, C, node, S, (s_free, omega))
        prices += 1
        if g > best_g:
            best_g, best_a, best_s = g, S.a.copy(), s_free.copy()
        if g >= cutoff:
            status, fresh = PRUNED, True
            break
        if entered == 0 and _holds(Qt, F1, S, g):
            status, fresh = OPTIMAL, True
            break
        if entered == 0:                  # the model left g: read the partition again
            if thaws == MAX_THAWS:
                status = NUMERIC
                break
            thaws += 1
            S.frozen[:] = False
            read_partition(Qt, S, k, C)
    return status, pivots, prices, fresh, best_g, best_a, best_s


@njit(cache=True, error_model="numpy")
def _holds(Qt, F1, S, g):
    """The partition's model q equals g at alpha (relative HOLD_TOL): its maximiser is g's.
    It can fail when a frozen tie (:func:`_rebuild`) drifted across the threshold, which
    no ratio test watches."""
    tied = S.ints[NC] > 1
    q = model_value(Qt, _above(F1, S), S.a, S.r[0] if tied else 0.0, S.ints[KAPPA])
    return abs(q - g) <= HOLD_TOL * max(1.0, abs(g), abs(q))
