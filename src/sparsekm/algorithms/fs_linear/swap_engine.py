"""The inner loop of paper D's swap search (:mod:`.swap`), compiled: decide a list of exchanges
of a support S of FS-SVM (2) against the incumbent's value, without Python between them.

An exchange replaces the features at some positions of S by outside features. Each is decided
by the certified "below the cutoff?" test of the native SVM (1) on the new support
(:func:`sparsekm.solvers.linear_svm.dcd.dcd_below`: warm pair updates from the incumbent's
dual point, which is dual feasible for every support; the interior point
:func:`sparsekm.solvers.linear_svm.ipm.ipm_below` when they leave it undecided), the same test
:func:`sparsekm.solvers.linear_svm.decide_below` makes, so the decisions are those of the
Python loop it replaces; only the interpreter's overhead goes (measured on colorectal,
B = 10, C = 1: 15,173 decisions, 97 % of them proofs that a move does *not* improve, median 28
pair updates each; the Python around each decision cost more than the decision itself).

Supports are remembered by a Zobrist hash (XOR of one random 64-bit word per feature): the
memo maps hash -> (certified lower bound, feasible value, solved) and a move whose support is
known not to beat the cutoff is not solved again (:class:`.swap.SearchMemo`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict

from sparsekm.solvers.linear_svm.dcd import dcd_below
from sparsekm.solvers.linear_svm.exchange import exchange_below, gram_state
from sparsekm.solvers.linear_svm.ipm import ipm_below
from sparsekm.solvers.linear_svm.status import BELOW, UNDECIDED

__all__ = ["ZOBRIST_SEED", "new_memo", "scan_exchanges", "support_hash", "zobrist"]

ZOBRIST_SEED = 20241220
IPM_MAX_ITER = 200
GRAM_MAX_ROWS = 1000   # kernel rows from the incumbent's Gram matrix up to this many rows
MEMO_VALUE = types.UniTuple(types.float64, 3)


def zobrist(n: int) -> np.ndarray:
    """One random 64-bit word per feature (seeded: the same n gives the same words)."""
    return np.random.default_rng(ZOBRIST_SEED).integers(
        np.iinfo(np.int64).min, np.iinfo(np.int64).max, size=n, dtype=np.int64)


def support_hash(zob: np.ndarray, S: np.ndarray) -> int:
    """The Zobrist hash of support S (order-free)."""
    return int(np.bitwise_xor.reduce(zob[np.asarray(S, dtype=np.int64)])) if len(S) else 0


def new_memo() -> Dict:
    """An empty memo: hash -> (lower bound, feasible value, solved as 0/1)."""
    return Dict.empty(key_type=types.int64, value_type=MEMO_VALUE)


@njit(cache=True, nogil=True)
def _decide(XS, y, C, state, cutoff, settings, gram):
    """The pair updates from ``alpha`` (in place) -- on Gram rows when ``gram`` = (use, base,
    change) says so (:func:`sparsekm.solvers.linear_svm.exchange.exchange_below`) -- then
    the interior point when undecided (at once when ``pairs`` is 0: the ``ipm`` setting)."""
    alpha, w = state
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
def _removal_dual(XS, base, y, C, p, alpha, pairs):
    """A dual point of the SVM (1) on the columns of XS but column p, from ``alpha`` (the
    incumbent's, updated in place) by at most ``pairs`` pair updates on the incumbent's Gram
    rows (``base``, :func:`~sparsekm.solvers.linear_svm.exchange.exchange_below`): returns
    its dual value D_{S-p}(alpha), a certified lower bound on that support's optimum."""
    m, k = XS.shape
    XR = np.empty((m, k - 1))
    for t in range(m):
        c2 = 0
        for c in range(k):
            if c != p:
                XR[t, c2] = XS[t, c]
                c2 += 1
    gone = np.empty(1, np.int64)
    gone[0] = base[4][p]
    change = (gone, np.empty(0, np.int64), False)
    st, P, D, b, it = exchange_below(XR, base[:4], change, y, C, (alpha, np.empty(k - 1)),
                                     np.inf, (1e-3, 1e-3, pairs))
    return D


@njit(cache=True, nogil=True)
def _removal_bound(Xt, y, j, alpha, D):
    """D_{S-p+j}(alpha) = D_{S-p}(alpha) - 1/2 (X_j'(alpha y))^2 (alpha a dual point of
    S - p with value D): a certified lower bound on the optimum of S - p + j."""
    dj = 0.0
    for t in range(y.shape[0]):
        dj += Xt[j, t] * alpha[t] * y[t]
    return D - 0.5 * dj * dj


@njit(cache=True, nogil=True)
def scan_exchanges(data, S, alpha0, moves, cutoff, settings, memo, alpha_out):
    """Decide the exchanges in order; stop at the first whose support beats ``cutoff``.

    ``data`` = (Xt, y, C, zob): X' (n, m) contiguous, the labels, the penalty and the
    Zobrist words (:func:`zobrist`); ``S`` (k,): the support; ``alpha0``: the incumbent's
    feasible dual point (each decision starts from a copy); ``moves`` = (outs, ins, lbs):
    outs (M, r) positions of S leaving (-1: unused), ins (M, r) the entering features, lbs (M)
    a certified lower bound of each new support's optimum (a move with lb >= cutoff is
    skipped); ``settings`` = (tol, pair updates, evaluations allowed, the hash of S);
    ``memo``: see :func:`new_memo`; ``alpha_out`` receives the improving move's dual point.

    Returns (index of the improving move or -1, index of the next undecided move,
    evaluations made).
    """
    Xt, y, C, zob = data
    outs, ins, lbs = moves
    tol, pairs, max_evals, hS = settings
    m = y.shape[0]
    k = S.shape[0]
    XS = np.empty((m, k))
    S2 = np.empty(k, np.int64)
    w = np.empty(k)
    alpha = np.empty(m)
    gone = np.empty(outs.shape[1], np.int64)
    new = np.empty(outs.shape[1], np.int64)
    for c in range(k):
        for t in range(m):
            XS[t, c] = Xt[S[c], t]
    K = np.empty((m, m) if m <= GRAM_MAX_ROWS and pairs > 0 else (0, 0))
    G0 = np.empty(m)
    if K.shape[0]:
        gram_state(XS, y, alpha0, K, G0)
    diag0 = np.empty(m)
    for t in range(K.shape[0]):
        diag0[t] = K[t, t]
    # removal duals: alpha_p (a dual point of S - p) and its value, made for a position at
    # its second 1-swap; a 1-swap (p, j) whose bound D_{S-p}(alpha_p) - d_j^2 / 2 is not
    # below the cutoff is not solved (measured at local optima of colorectal B = 10 and
    # dlbcl B = 20: 60-70 % of the 1-swaps screened in, none of them improving)
    seen = np.zeros(k, np.int64)
    Dp = np.full(k, np.nan)
    alpha_p = np.empty((k, m))
    XS0 = XS.copy()
    evals = 0
    for q in range(lbs.shape[0]):
        if lbs[q] >= cutoff:
            continue
        if evals >= max_evals:
            return -1, q, evals
        h = hS
        S2[:] = S
        r = 0
        while r < outs.shape[1] and outs[q, r] >= 0:
            p = outs[q, r]
            h ^= zob[S[p]] ^ zob[ins[q, r]]
            gone[r], new[r] = S[p], ins[q, r]
            S2[p] = ins[q, r]
            r += 1
        if h in memo:
            lo, val, solved = memo[h]
            if lo >= cutoff or (solved > 0.0 and val >= cutoff):
                continue
        alpha[:] = alpha0
        fresh = False
        if r == 1 and k > 1 and pairs > 0 and K.shape[0] > 0:
            p = outs[q, 0]
            seen[p] += 1
            if seen[p] == 2:
                alpha_p[p] = alpha0
                Dp[p] = _removal_dual(XS0, (K, G0, diag0, Xt, S), y, C, p, alpha_p[p],
                                      pairs)
            if seen[p] >= 2:
                lb2 = _removal_bound(Xt, y, new[0], alpha_p[p], Dp[p])
                if lb2 >= cutoff:
                    if h not in memo:
                        memo[h] = (lb2, np.inf, 0.0)
                    continue
                if lb2 > lbs[q]:      # the better start of the two dual points
                    alpha[:] = alpha_p[p]
                    fresh = True
        for c in range(k):
            f = S2[c]
            for t in range(m):
                XS[t, c] = Xt[f, t]
        gram = (K.shape[0] > 0 and 1 + 2 * r < k, (K, G0, diag0, Xt),
                (gone[:r], new[:r], fresh))
        st, P, D = _decide(XS, y, C, (alpha, w), cutoff, (tol, pairs), gram)
        evals += 1
        if st != BELOW:
            gap = P - D
            memo[h] = (D, P, 1.0 if gap <= tol * max(1.0, abs(P)) else 0.0)
            continue
        alpha_out[:] = alpha
        return q, q + 1, evals
    return -1, lbs.shape[0], evals
