"""Shrinking in the SMO engine (Fan, Chen & Lin 2005): the whole-set check before the stop,
the rebuilt gradient, and agreement with the unshrunk loop and with libsvm."""

from __future__ import annotations

import numpy as np
import pytest

from sparsekm.engines.smo import (
    Hinge,
    KernelSource,
    Logistic,
    SMOOptions,
    SVMDualOptions,
    dual_gradient,
    solve_kernel_dual,
    solve_svm_dual,
)
from sparsekm.kernels import kernel_matrix


def kkt_violation(K: np.ndarray, y: np.ndarray, alpha: np.ndarray, C: float) -> float:
    """m(a) - M(a) of the hinge dual (eq. (27)) computed from scratch: G = y (K (a y)) - 1."""
    v = -y * (y * (K @ (alpha * y)) - 1.0)
    up = ((y > 0) & (alpha < C)) | ((y < 0) & (alpha > 0))
    low = ((y < 0) & (alpha < C)) | ((y > 0) & (alpha > 0))
    return float(v[up].max() - v[low].min())


def noisy_instance(seed: int, m: int, n: int = 4) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(m, n))
    y = np.where(X[:, 0] + X[:, 1] + 0.5 * rng.normal(size=m) > 1.0, 1.0, -1.0)
    return X, y


def test_the_whole_set_check_before_the_stop_catches_shrunk_violators():
    """Shrinking every 10 iterations at C = 50 drops variables that violate again later: the
    active problem meets tol while the whole problem does not. Only the check before the
    stop (rebuild the gradient of the shrunk variables, test all m) finds them.

    Measured with that check removed (the loop stopping when the active set meets tol): the
    returned point violates the KKT conditions by 3.6e-3 > tol = 1e-3 here (17 of 960
    instances of a random sweep ended above tol that way).
    """
    X, y = noisy_instance(19, m=300)
    K = kernel_matrix(X, kernel="rbf", gamma=1.0)
    C, tol = 50.0, 1e-3
    res = solve_kernel_dual(K, y, Hinge(C), options=SMOOptions(tol=tol, max_iter=-1,
                                                               shrink_every=10))
    assert kkt_violation(K, y, res.alpha, C) <= tol * (1 + 1e-9)
    assert res.extra["shrinks"] > 100
    assert res.extra["reactivations"] >= 1  # the check found a shrunk violator here
    assert res.extra["kkt_violation"] == pytest.approx(kkt_violation(K, y, res.alpha, C),
                                                       abs=1e-9)
    np.testing.assert_allclose(res.grad, y * (K @ (res.alpha * y)) - 1.0, atol=1e-9)
    ref = solve_svm_dual(K, y, C, options=SVMDualOptions(tol=1e-10, backend="libsvm"))
    assert res.objective == pytest.approx(ref.objective, rel=1e-6)


@pytest.mark.parametrize("every", [1, 7, 100])
@pytest.mark.parametrize("loss", [Hinge(0.5), Hinge(20.0), Logistic(5.0, 0.5),
                                  Logistic(50.0, 2.0)], ids=str)
def test_shrinking_reaches_the_optimum_of_the_unshrunk_loop(loss, every):
    X, y = noisy_instance(7, m=300)
    K = kernel_matrix(X, kernel="rbf", gamma=3.0)
    plain = solve_kernel_dual(K, y, loss, options=SMOOptions(tol=1e-9, max_iter=-1,
                                                             shrinking=False))
    shrunk = solve_kernel_dual(K, y, loss, options=SMOOptions(tol=1e-9, max_iter=-1,
                                                              shrink_every=every))
    assert shrunk.extra["shrinks"] > 0 and plain.extra["shrinks"] == 0
    assert shrunk.objective == pytest.approx(plain.objective, rel=1e-10)
    assert shrunk.extra["kkt_violation"] <= 1e-9
    exact = dual_gradient(KernelSource.from_matrix(K), y, shrunk.alpha, loss)
    np.testing.assert_allclose(shrunk.grad, exact, atol=1e-8)  # rebuilt on all m


def test_time_limited_chunks_keep_the_active_set_and_an_exact_gradient():
    X, y = noisy_instance(8, m=400)
    K = kernel_matrix(X, kernel="rbf", gamma=2.0)
    one = solve_kernel_dual(K, y, Hinge(30.0), options=SMOOptions(tol=1e-8, max_iter=-1))
    chunked = solve_kernel_dual(K, y, Hinge(30.0), options=SMOOptions(
        tol=1e-8, max_iter=-1, time_limit=1e6, check_every=37))
    assert chunked.objective == pytest.approx(one.objective, rel=1e-10)
    assert chunked.extra["iterations"] == one.extra["iterations"]  # same path, in chunks
    capped = solve_kernel_dual(K, y, Hinge(30.0), options=SMOOptions(tol=1e-8, max_iter=800))
    np.testing.assert_allclose(capped.grad, y * (K @ (capped.alpha * y)) - 1.0, atol=1e-9)
    assert capped.extra["kkt_violation"] == pytest.approx(
        kkt_violation(K, y, capped.alpha, 30.0), abs=1e-9)


def test_row_mode_shrinks_like_the_precomputed_matrix():
    X, y = noisy_instance(9, m=250)
    from sparsekm.kernels import KernelSpec

    spec = KernelSpec("rbf", gamma=2.0)
    full = solve_kernel_dual(KernelSource.from_matrix(spec(X)), y, Hinge(10.0),
                             options=SMOOptions(tol=1e-8, max_iter=-1, shrink_every=5))
    ks = KernelSource.from_data(X, spec, cache_mb=250 * 8 * 10 / 2**20, precompute=False)
    rows = solve_kernel_dual(ks, y, Hinge(10.0), options=SMOOptions(tol=1e-8, max_iter=-1,
                                                                    shrink_every=5))
    assert rows.extra["shrinks"] > 0 and rows.extra["rows_computed"] > 10
    assert rows.objective == pytest.approx(full.objective, rel=1e-10)
