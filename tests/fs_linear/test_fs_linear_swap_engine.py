"""The compiled decisions of paper D's swap search (FS-SVM (2)): the snapped warm start of the
pair updates and the scan over exchanges, against exact SVM (1) solves of every support."""

from __future__ import annotations

import numpy as np
import pytest

from sparsekm.algorithms.fs_linear.swap import swap_search
from sparsekm.algorithms.fs_linear.swap_engine import (
    new_memo,
    scan_exchanges,
    scan_state,
    support_hash,
    zobrist,
)
from sparsekm.engines.linear_svm import BELOW, feasible_dual, snapped_dual, solve_linear_svm
from sparsekm.engines.linear_svm.exchange import column_weights, exchange_below, gram_state
from sparsekm.models.fs_linear import FSLinearProblem

TIE = 1e-7     # supports whose optimum lies this close (relative) to the cutoff are not judged


def _data(seed: int, m: int = 70, n: int = 30) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    y = np.where(X[:, :3] @ np.array([1.0, -1.0, 0.5]) + rng.normal(size=m) >= 0, 1.0, -1.0)
    return X, y


def snapped_dual_of(y: np.ndarray, alpha: np.ndarray, C: float) -> np.ndarray:
    out = np.empty(y.size)
    snapped_dual(y, alpha, C, 1e-6, out)
    return out


def _dual(X: np.ndarray, y: np.ndarray, a: np.ndarray) -> float:
    w = X.T @ (a * y)
    return float(a.sum() - 0.5 * w @ w)


def _one_swaps(X, y, S, C):
    """Every 1-swap of S with its certified bound D_S(alpha) + (d_p^2 - d_j^2) / 2 at the
    incumbent's alpha, in increasing order of the bound, and the exact optimum of each."""
    fit = solve_linear_svm(X[:, S], y, C, tol=1e-10)
    d = X.T @ (fit.alpha * y)
    outside = np.setdiff1d(np.arange(X.shape[1]), S)
    pos, j = np.meshgrid(np.arange(S.size), outside, indexing="ij")
    pos, j = pos.ravel(), j.ravel()
    lb = fit.dual + 0.5 * (d[S[pos]] ** 2 - d[j] ** 2)
    order = np.argsort(lb, kind="stable")
    pos, j, lb = pos[order], j[order], lb[order]
    exact = []
    for p, f in zip(pos, j):
        S2 = S.copy()
        S2[p] = f
        exact.append(solve_linear_svm(X[:, S2], y, C, tol=1e-11).primal)
    return fit, (pos, j, lb), np.array(exact)


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_snapped_dual_is_feasible_on_its_bounds_and_no_weaker(C: float) -> None:
    X, y = _data(1)
    fit = solve_linear_svm(X[:, :8], y, C, tol=1e-9)      # the interior point's alpha
    a = np.empty_like(fit.alpha)
    snapped_dual(y, fit.alpha, C, 1e-6, a)
    assert np.all(a >= 0.0) and np.all(a <= C)
    assert abs(float(y @ a)) <= 1e-12 * C * y.size
    inside = (a > 0.0) & (a < C)
    raw_inside = (fit.alpha > 0.0) & (fit.alpha < C)
    assert inside.sum() < raw_inside.sum()                 # the tiny entries went to a bound
    assert np.all(a[fit.alpha < 1e-6 * C * 0.5] == 0.0)
    # still a certified lower bound, as tight as the raw point's (to the IPM's accuracy)
    assert _dual(X[:, :8], y, a) >= _dual(X[:, :8], y, fit.alpha) - 1e-8 * max(1.0, fit.primal)
    assert _dual(X[:, :8], y, a) <= fit.primal + 1e-12


def test_pair_updates_from_the_snapped_start_decide_exactly_and_take_fewer_steps() -> None:
    X, y = _data(2)
    C, S = 1.0, np.arange(6, dtype=np.int64)
    fit, (pos, j, lb), exact = _one_swaps(X, y, S, C)
    cutoff = fit.primal * (1 - 1e-9)
    Xt = np.ascontiguousarray(X.T)
    steps = {}
    other = np.empty(y.size)   # any feasible point, started from as its own (own = True)
    feasible_dual(y, np.random.default_rng(0).uniform(0, C, y.size), C, other)
    for name, start in (("raw", fit.alpha), ("snapped", None), ("other", other)):
        a0 = start.copy() if start is not None else np.empty(y.size)
        if start is None:
            snapped_dual(y, fit.alpha, C, 1e-6, a0)
        K, G0 = np.empty((y.size, y.size)), np.empty(y.size)
        ref = a0 if name != "other" else snapped_dual_of(y, fit.alpha, C)
        w0 = gram_state(np.ascontiguousarray(X[:, S]), y, ref, K, G0)   # the Gram state
        base = (K, G0, np.diag(K).copy(), Xt)                           # at the reference
        total = 0
        for p, f, v in zip(pos, j, exact):
            S2 = S.copy()
            S2[p] = f
            XS = np.ascontiguousarray(X[:, S2])
            a, w = a0.copy(), w0.copy()
            own = name == "other"
            if own:    # the Gram state of the snapped point, the gradient of this one's
                w = np.zeros(S.size)
            else:
                column_weights(XS, y, a, w, np.array([p]))
            st, P, D, b, it = exchange_below(XS, base, (S[p:p + 1], np.array([f])), y, C,
                                             (a, w, own), cutoff, (1e-3, 1e-9, 100_000))
            total += it
            slack = 1e-9 * max(1.0, v)
            assert D - slack <= v <= P + slack   # certified both ways
            if abs(v - cutoff) > TIE * max(1.0, abs(v)):
                assert (st == BELOW) == (v < cutoff)
        steps[name] = total
    assert steps["snapped"] < steps["raw"]


@pytest.mark.parametrize("seed,C", [(3, 1.0), (4, 10.0), (5, 0.3)])
def test_scan_stops_at_the_first_improving_exchange_in_order(seed: int, C: float) -> None:
    """The compiled scan (columns swapped in and back, a memo, first improvement) returns the
    first move whose exact optimum is below the cutoff, on every prefix of the move list."""
    X, y = _data(seed, m=60, n=25)
    local = swap_search(FSLinearProblem(X, y, B=5, C=C)).selected   # a local optimum ...
    S = np.array([*local[1:], max(set(range(25)) - set(local))], dtype=np.int64)  # ... spoilt
    fit, (pos, j, lb), exact = _one_swaps(X, y, S, C)
    cutoff = fit.primal * (1 - 1e-9)
    ties = np.abs(exact - cutoff) <= TIE * np.maximum(1.0, np.abs(exact))
    improving = np.flatnonzero((exact < cutoff) & ~ties)
    Xt = np.ascontiguousarray(X.T)
    zob = zobrist(X.shape[1])
    start = np.empty(y.size)
    snapped_dual(y, fit.alpha, C, 1e-6, start)
    for first in range(0, pos.size, 7):   # scans from several points of the list
        moves = (pos[:, None].astype(np.int64), j[:, None].astype(np.int64), lb.copy())
        alpha = np.empty(y.size)
        state = scan_state((Xt, y, C, zob), S, start, moves[1], 4 * y.size)
        got, nxt, evals = scan_exchanges((Xt, y, C, zob), S, state, moves, cutoff,
                                         (1e-9, 4 * y.size, 10**9, support_hash(zob, S),
                                          first, pos.size), new_memo(), alpha)
        later = improving[improving >= first]
        if ties[first:].any():
            continue
        if later.size:
            assert got == later[0]
            S2 = S.copy()
            S2[pos[later[0]]] = j[later[0]]
            assert _dual(X[:, S2], y, alpha) <= exact[later[0]] + 1e-9   # its dual point
        else:
            assert got == -1 and nxt == pos.size


@pytest.mark.parametrize("seed,C", [(3, 1.0), (6, 10.0)])
def test_decisions_at_a_local_optimum_refute_later_moves(seed: int, C: float) -> None:
    """At a local optimum every move is refuted; each decision's dual point also bounds the
    moves after it (weak duality), so fewer moves are solved than the incumbent's own dual
    point leaves open, also when the moves are scanned in short calls (the raised bounds
    persist in the caller's array), and the scan still finds no improving move."""
    X, y = _data(seed, m=60, n=40)
    S = np.array(swap_search(FSLinearProblem(X, y, B=6, C=C)).selected, dtype=np.int64)
    fit, (pos, j, lb), exact = _one_swaps(X, y, S, C)
    cutoff = fit.primal * (1 - 1e-9)
    assert np.all(exact >= cutoff * (1 - TIE))          # a local optimum for 1-swaps
    zob = zobrist(X.shape[1])
    start = np.empty(y.size)
    snapped_dual(y, fit.alpha, C, 1e-6, start)
    d0 = X.T @ (start * y)
    open_at_start = int(np.sum(_dual(X[:, S], y, start)
                               + 0.5 * (d0[S[pos]] ** 2 - d0[j] ** 2) < cutoff))
    for chunk in (pos.size, 16):   # one call, and calls of 16 moves on the same bounds
        moves = (pos[:, None].astype(np.int64), j[:, None].astype(np.int64), lb.copy())
        data = (np.ascontiguousarray(X.T), y, C, zob)
        state = scan_state(data, S, start, moves[1], 4 * y.size)   # shared by the calls
        q, evals = 0, 0
        while q < pos.size:
            got, q, ev = scan_exchanges(
                data, S, state, moves, cutoff,
                (1e-9, 4 * y.size, 10**9, support_hash(zob, S), q, min(q + chunk, pos.size)),
                new_memo(), np.empty(y.size))
            evals += ev
            assert got == -1
        assert 0 < evals < 0.8 * open_at_start
