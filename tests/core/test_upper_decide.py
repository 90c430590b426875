"""The working-set pieces of paper A's fast path: the masked block's upper triangle
(``masked_upper``) and the lean SMO on it (``upper_gradient``, ``upper_decide``)."""

from __future__ import annotations

import numpy as np
import pytest

from sparsekm.engines.smo import (
    BELOW,
    MASKED_POLY,
    MASKED_RBF,
    SVMDualOptions,
    masked_matrix,
    masked_segment,
    masked_upper,
    solve_svm_dual,
    stack_columns,
    upper_decide,
    upper_gradient,
)


def _masked(kind, add, rem, m=40, n=7, seed=0):
    """(S, cols, kpar, K): a masked kernel from base features {0, 1, 2} plus ``add`` minus
    ``rem``, and the same kernel from masked_matrix (the reference)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, n))
    Xb = X[:, [0, 1, 2]]
    if kind == MASKED_POLY:
        S = Xb @ Xb.T
        kpar0 = [kind, 0.1, 2, 1.0]
    else:
        S = ((Xb[:, None, :] - Xb[None, :, :]) ** 2).sum(-1)
        kpar0 = [kind, -0.1, 1, 0.0]
    cols, na, nr = stack_columns(np.ascontiguousarray(X.T), np.array(add), np.array(rem))
    kpar = np.array(kpar0 + [na, nr], dtype=float)
    K = np.empty((m, m))
    masked_matrix(S, cols, kpar, K)
    if kind == MASKED_RBF:
        K = np.exp(K)
    return S, cols, kpar, K


@pytest.mark.parametrize("kind", [MASKED_RBF, MASKED_POLY])
@pytest.mark.parametrize("add,rem", [([3], [0]), ([3, 4], [0, 1]), ([3, 4, 5], [0, 1, 2]),
                                     ([3, 4, 5, 6], [0, 1, 2]), ([3], [0, 1]), ([], [2]),
                                     ([5, 6], [])])
def test_masked_upper_is_the_masked_matrix(kind, add, rem):
    S, cols, kpar, K = _masked(kind, add, rem)
    U = np.full_like(K, np.nan)
    masked_upper(S, cols, kpar, U)
    iu = np.triu_indices(K.shape[0])
    np.testing.assert_allclose(U[iu], K[iu], rtol=1e-13, atol=0)
    assert np.isnan(U[np.tril_indices(K.shape[0], -1)]).all()  # the lower part untouched
    for i, h0 in ((0, 0), (5, 0), (7, 3), (39, 39), (12, 30)):
        row = np.full(K.shape[0], np.nan)
        masked_segment(S, cols, kpar, i, h0, row)
        np.testing.assert_allclose(row[h0:], K[i, h0:], rtol=1e-13, atol=0)
        assert np.isnan(row[:h0]).all()


def _problem(seed=1, m=40):
    S, cols, kpar, K = _masked(MASKED_RBF, [3, 4], [0, 1], m=m, seed=seed)
    y = np.where(np.random.default_rng(seed + 7).random(m) < 0.5, -1.0, 1.0)
    U = np.empty_like(K)
    masked_upper(S, cols, kpar, U)
    return K, U, y


def test_upper_gradient_and_the_run_to_the_optimum():
    K, U, y = _problem()
    m, C = y.size, 10.0
    ref = solve_svm_dual(K, y, C, options=SVMDualOptions(tol=1e-8))
    alpha = np.zeros(m)  # a feasible start supported on its first ns = 10 entries
    pos, neg = np.flatnonzero(y[:10] > 0), np.flatnonzero(y[:10] < 0)
    k = min(pos.size, neg.size)
    alpha[pos[:k]] = alpha[neg[:k]] = 0.5 * C
    assert abs(alpha @ y) < 1e-12
    v = np.empty(m)
    upper_gradient(U, y, alpha, 10, v)
    Q = np.outer(y, y) * K
    np.testing.assert_allclose(v, -y * (Q @ alpha - 1.0), rtol=0, atol=1e-12)
    decided, f, its = upper_decide(U, y, alpha, v, (C, -np.inf, 1e-8, 10000.0, 0.0))
    assert decided == 0 and its > 0
    assert np.all((alpha >= 0) & (alpha <= C)) and abs(alpha @ y) < 1e-9
    direct = 0.5 * alpha @ Q @ alpha - alpha.sum()
    assert f == pytest.approx(direct, rel=1e-10)
    assert f == pytest.approx(ref.objective, rel=1e-6)  # libsvm's optimum (tol 1e-8)
    np.testing.assert_allclose(v, -y * (Q @ alpha - 1.0), rtol=0, atol=1e-9)


def test_upper_decide_stops_below_the_threshold():
    K, U, y = _problem(seed=3)
    m, C = y.size, 10.0
    alpha = np.zeros(m)
    i, j = np.flatnonzero(y > 0)[0], np.flatnonzero(y < 0)[0]
    alpha[[i, j]] = C
    order = np.r_[[i, j], np.setdiff1d(np.arange(m), [i, j])]  # the support first
    K, U, y, alpha = K[np.ix_(order, order)], U[np.ix_(order, order)], y[order], alpha[order]
    U = np.triu(U)
    v = np.empty(m)
    upper_gradient(U, y, alpha, 2, v)
    Q = np.outer(y, y) * K
    f0 = 0.5 * alpha @ Q @ alpha - alpha.sum()
    opt = solve_svm_dual(K, y, C, options=SVMDualOptions(tol=1e-8)).objective
    lo = opt + 0.5 * (f0 - opt)  # halfway from the start down to the optimum
    decided, f, its = upper_decide(U, y, alpha, v, (C, lo, 1e-8, 10000.0, 0.0))
    assert decided == BELOW and f < lo and its > 0
    assert f == pytest.approx(0.5 * alpha @ Q @ alpha - alpha.sum(), rel=1e-10)
    assert abs(alpha @ y) < 1e-9 and f >= opt - 1e-6
