"""The inner loop of paper D's swap search (:mod:`.swap`), compiled: decide a list of exchanges
of a support S of FS-SVM (2) against the incumbent's value, without Python between them.

An exchange replaces the features at some positions of S by outside features. Each is decided
by the certified "below the cutoff?" test of the native SVM (1) on the new support
(:func:`sparsekm.engines.linear_svm.dcd.dcd_below`: warm pair updates from the incumbent's
dual point, which is dual feasible for every support; the interior point
:func:`sparsekm.engines.linear_svm.ipm.ipm_below` when they leave it undecided), the same test
:func:`sparsekm.engines.linear_svm.decide_below` makes, so the decisions are those of the
Python loop it replaces; only the interpreter's overhead goes (measured on colorectal,
B = 10, C = 1: 15,173 decisions, 97 % of them proofs that a move does *not* improve, median 28
pair updates each; the Python around each decision cost more than the decision itself).

The incumbent's dual point comes from the interior point, whose non-support rows keep tiny
positive alpha; the caller snaps it to its bounds first
(:func:`sparsekm.engines.linear_svm.snapped_dual`). From the raw point most pair updates
only carried those rows to 0: measured at local optima, 23 pair updates per decision became
2.7 (colorectal, B = 20) and 82 became 23 (120 x 1500 synthetic, B = 20), the same
decisions. That made the removal duals of earlier versions (a dual point of S - p per
position, to skip 1-swaps without solving them) cost more than the decisions they saved;
they are gone (``benchmarks/results/fs_linear_fast_snap.md``).

Each decision also bounds the moves after it: its final dual point is feasible for every
support, so D_{S'}(alpha) raises each later move's certified bound (:func:`_raise_bounds`),
a move whose bound reaches the cutoff is not solved, and a move whose best bound came from
an earlier decision starts there (``benchmarks/results/fs_linear_fast_stop38.md``: the
decisions of a fit fall to 28-46 % on colorectal, with the same supports).

Supports are remembered by a Zobrist hash (XOR of one random 64-bit word per feature): the
memo maps hash -> (certified lower bound, feasible value, solved) and a move whose support is
known not to beat the cutoff is not solved again (:class:`.swap.SearchMemo`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict

from sparsekm.engines.linear_svm.dcd import dcd_below
from sparsekm.engines.linear_svm.exchange import column_weights, exchange_below, gram_state
from sparsekm.engines.linear_svm.ipm import ipm_below
from sparsekm.engines.linear_svm.status import BELOW, UNDECIDED

__all__ = ["ZOBRIST_SEED", "memo_store", "new_memo", "scan_exchanges", "scan_state",
           "support_hash", "zobrist"]

ZOBRIST_SEED = 20241220
IPM_MAX_ITER = 200
GRAM_MAX_ROWS = 1000   # kernel rows from the incumbent's Gram matrix up to this many rows
MEMO_VALUE = types.UniTuple(types.float64, 3)
RAISE_TRIAL = 64   # decisions' dual points raise the later moves' bounds for this many, ...
RAISE_YIELD = 8    # ... then only while they refute one move per this many decisions


def zobrist(n: int) -> np.ndarray:
    """One random 64-bit word per feature (seeded: the same n gives the same words)."""
    return np.random.default_rng(ZOBRIST_SEED).integers(
        np.iinfo(np.int64).min, np.iinfo(np.int64).max, size=n, dtype=np.int64)


def support_hash(zob: np.ndarray, S: np.ndarray) -> int:
    """The Zobrist hash of support S (order-free)."""
    return int(np.bitwise_xor.reduce(zob[np.asarray(S, dtype=np.int64)])) if len(S) else 0


@njit(cache=True)
def new_memo() -> Dict:
    """An empty memo: hash -> (lower bound, feasible value, solved as 0/1). Made, and written
    (:func:`memo_store`), by compiled code only: numba compiles a typed dict's own methods in
    every process when Python calls them (0.6 s of the 0.9 s `fast` took to load), while
    these functions are cached."""
    return Dict.empty(key_type=types.int64, value_type=MEMO_VALUE)


@njit(cache=True)
def memo_store(memo, key, value):
    """memo[key] = value (lower bound, feasible value, solved as 0/1)."""
    memo[key] = value


@njit(cache=True, nogil=True)
def _decide(XS, y, C, state, cutoff, settings, gram):
    """The pair updates from ``alpha`` (in place) -- on Gram rows when ``gram`` = (use, base,
    change) says so (:func:`sparsekm.engines.linear_svm.exchange.exchange_below`) -- then
    the interior point when undecided (at once when ``pairs`` is 0: the ``ipm`` setting)."""
    alpha, w, own = state
    tol, pairs = settings
    st = UNDECIDED
    P, D = np.inf, -np.inf
    limits = (max(tol, 1e-3), tol, pairs)
    if pairs > 0 and gram[0]:
        st, P, D, b, it = exchange_below(XS, gram[1], gram[2], y, C, state, cutoff, limits)
    elif pairs > 0:
        st, P, D, b, it = dcd_below(XS, y, C, alpha, w, cutoff, limits)
    if st == UNDECIDED:
        st, P, D, b, it = ipm_below(XS, y, C, cutoff, tol, IPM_MAX_ITER, alpha, w)
    return st, P, D


@njit(cache=True, nogil=True)
def _entering(ins, Xt):
    """The features entering some move: feature -> slot (-1 for the others), and their
    columns XU (m, slots)."""
    slot = np.full(Xt.shape[0], -1, np.int64)
    c = 0
    for q in range(ins.shape[0]):
        for r in range(ins.shape[1]):
            f = ins[q, r]
            if f >= 0 and slot[f] < 0:
                slot[f] = c
                c += 1
    XU = np.empty((Xt.shape[1], c))
    for f in range(slot.shape[0]):
        if slot[f] >= 0:
            for t in range(Xt.shape[1]):
                XU[t, slot[f]] = Xt[f, t]
    return slot, XU


@njit(cache=True, nogil=True)
def _raise_bounds(cols, y, moves, alpha, ref, at, work):
    """Raise the lower bounds of the moves after ``at[0]`` by a decision's dual point
    ``alpha``: alpha is dual feasible for every support, so
    D_{S'}(alpha) = 1'alpha - 1/2 sum_{j in S'} d_j^2, d = X'(alpha y), bounds the optimum
    of each new support S' (weak duality), and a move whose bound reaches the cutoff is
    skipped. d on S and on the entering features follows from its value at the reference
    point ``ref`` = (alpha0, d0 on S, d0 on them) through the rows where alpha moved (a few
    after pair updates): O(changed rows (k + entering) + moves left) per decision. Returns
    the number of moves it refuted."""
    XS, XU = cols
    outs, ins, slot = moves
    alpha0, dS0, dU0 = ref
    q0, cutoff, tag = at
    dS, dU, lb, src = work
    m, k = XS.shape
    dS[:] = dS0
    dU[:] = dU0
    sa = 0.0
    for t in range(m):
        sa += alpha[t]
        c = (alpha[t] - alpha0[t]) * y[t]
        if c != 0.0:
            for f in range(k):
                dS[f] += c * XS[t, f]
            for u in range(XU.shape[1]):
                dU[u] += c * XU[t, u]
    base = sa
    for f in range(k):
        base -= 0.5 * dS[f] * dS[f]
    refuted = 0
    for q in range(q0 + 1, lb.shape[0]):
        if lb[q] >= cutoff:
            continue
        v = base
        r = 0
        while r < outs.shape[1] and outs[q, r] >= 0:
            u = slot[ins[q, r]]
            v += 0.5 * (dS[outs[q, r]] ** 2 - dU[u] ** 2)
            r += 1
        if v > lb[q]:
            lb[q] = v
            src[q] = tag
            if v >= cutoff:
                refuted += 1
    return refuted


@njit(cache=True, nogil=True)
def scan_state(data, S, alpha0, ins, pairs):
    """What the decisions of one scan share, made once per scan (not per compiled call):
    ``(alpha0, XS, (K, G0, diag0), w0, (slots, XU, dU0))`` -- the incumbent's snapped dual
    point and columns, its Gram matrix, gradient and diagonal (:func:`gram_state`; empty
    when the pair updates do not use Gram rows), its weights X_S'(alpha0 y), and the
    entering features' slots, columns and correlations (:func:`_entering`)."""
    Xt, y = data[0], data[1]
    m, k = y.shape[0], S.shape[0]
    XS = np.empty((m, k))
    for c in range(k):
        for t in range(m):
            XS[t, c] = Xt[S[c], t]
    K = np.empty((m, m) if m <= GRAM_MAX_ROWS and pairs > 0 else (0, 0))
    G0 = np.empty(m)
    diag0 = np.empty(m)
    w0 = np.empty(k)        # X_S'(alpha0 y), column by column as the pair updates need it
    if K.shape[0]:
        w0[:] = gram_state(XS, y, alpha0, K, G0)
        for t in range(m):
            diag0[t] = K[t, t]
    else:
        column_weights(XS, y, alpha0, w0, np.arange(k))
    slots, XU = _entering(ins, Xt)
    dU0 = np.empty(XU.shape[1])          # d = X'(alpha0 y) on the entering features
    column_weights(XU, y, alpha0, dU0, np.arange(XU.shape[1]))
    return alpha0, XS, (K, G0, diag0), w0, (slots, XU, dU0)


@njit(cache=True, nogil=True)
def scan_exchanges(data, S, state, moves, cutoff, settings, memo, alpha_out):
    """Decide the exchanges in order; stop at the first whose support beats ``cutoff``.

    ``data`` = (Xt, y, C, zob): X' (n, m) contiguous, the labels, the penalty and the
    Zobrist words (:func:`zobrist`); ``S`` (k,): the support; ``state``: :func:`scan_state`
    of S at the incumbent's feasible dual point, snapped to its bounds (each decision starts
    from a copy of it, or of an earlier decision's point); ``moves`` = (outs, ins, lbs):
    outs (M, r) positions of S leaving (-1: unused), ins (M, r) the entering features, lbs (M)
    a certified lower bound of each new support's optimum (a move with lb >= cutoff is
    skipped), raised in place by each decision's dual point (:func:`_raise_bounds`), so a
    later call on the same arrays starts from them; ``settings`` = (tol, pair updates,
    evaluations allowed, the hash of S, first move, end of the moves decided in this call);
    ``memo``: see :func:`new_memo`; ``alpha_out`` receives the improving move's dual point.

    Returns (index of the improving move or -1, index of the next undecided move,
    evaluations made).
    """
    Xt, y, C, zob = data
    outs, ins, lbs = moves
    tol, pairs, max_evals, hS, first, stop = settings
    alpha0, XS, (K, G0, diag0), w0, (slots, XU, dU0) = state
    m, k = XS.shape
    w = np.empty(k)
    alpha = np.empty(m)
    gone = np.empty(outs.shape[1], np.int64)
    new = np.empty(outs.shape[1], np.int64)
    src = np.full(lbs.shape[0], -1, np.int64)   # the dual point of each move's bound ...
    pool = np.empty((max(stop - first, 0), m))   # ... among this call's decisions (-1: none)
    cols, lists, ref = (XS, XU), (outs, ins, slots), (alpha0, w0, dU0)
    work = (np.empty(k), np.empty(XU.shape[1]), lbs, src)
    if first == 0:
        _raise_bounds(cols, y, lists, alpha0, ref, (-1, cutoff, -1), work)
    evals, refuted = 0, 0
    for q in range(first, stop):
        if lbs[q] >= cutoff:
            continue
        if evals >= max_evals:
            return -1, q, evals
        h = hS
        r = 0
        while r < outs.shape[1] and outs[q, r] >= 0:
            p = outs[q, r]
            h ^= zob[S[p]] ^ zob[ins[q, r]]
            gone[r], new[r] = S[p], ins[q, r]
            r += 1
        if h in memo:
            lo, val, solved = memo[h]
            if lo >= cutoff or (solved > 0.0 and val >= cutoff):
                continue
        own = src[q] >= 0       # start from the decision whose dual point bounds it best
        alpha[:] = pool[src[q]] if own else alpha0
        for c in range(r):      # XS holds S's columns: the r exchanged ones, and back after
            p = outs[q, c]
            for t in range(m):
                XS[t, p] = Xt[new[c], t]
        gram = (K.shape[0] > 0 and 1 + 2 * r < k, (K, G0, diag0, Xt),
                (gone[:r], new[:r]))
        if gram[0] and not own:
            w[:] = w0
            column_weights(XS, y, alpha, w, outs[q, :r])
        st, P, D = _decide(XS, y, C, (alpha, w, own), cutoff, (tol, pairs), gram)
        for c in range(r):
            p = outs[q, c]
            for t in range(m):
                XS[t, p] = Xt[S[p], t]
        evals += 1
        if st != BELOW:
            solved = np.isfinite(P) and tol * max(1.0, abs(P)) >= P - D
            memo[h] = (D, P, 1.0 if solved else 0.0)
            if evals <= RAISE_TRIAL or refuted * RAISE_YIELD >= evals:
                pool[evals - 1] = alpha
                refuted += _raise_bounds(cols, y, lists, alpha, ref, (q, cutoff, evals - 1),
                                         work)
            continue
        alpha_out[:] = alpha
        return q, q + 1, evals
    return -1, stop, evals
