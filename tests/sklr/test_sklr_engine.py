"""The SMO engine (paper C Section 4) against independent solvers: Clarabel on the conic model
(22), libsvm on the hinge dual; row-cache vs precomputed kernels; warm starts; bounds."""

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
from sparsekm.kernels import KernelSpec, kernel_matrix
from sparsekm.models.sklr.dual import dual_model, dual_objective
from sparsekm.models.sklr.problem import SKLRProblem
from sparsekm.solvers import Termination, solve

TIGHT = SMOOptions(tol=1e-9, max_iter=-1)
WSS = ["second-order", "first-order"]


def instance(seed: int, m: int = 40, n: int = 4) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(m, n))
    y = np.where(X[:, 0] + X[:, 1] + 0.4 * rng.normal(size=m) > 1.0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(("C", "lam"), [(1.0, 0.0), (10.0, 0.0), (1.0, 0.4), (10.0, 5.0)])
def test_smo_equals_conic_optimum_of_22(seed, C, lam):
    X, y = instance(seed)
    pr = SKLRProblem(X, y, C=C, lam=lam)
    conic = solve(dual_model(pr), solver="clarabel")
    assert conic.ok
    ref = dual_objective(pr, np.clip(conic.values["alpha"], pr.lower, pr.upper))
    for wss in WSS:
        res = solve_kernel_dual(pr.K, pr.y, pr.loss(), options=SMOOptions(wss=wss, tol=1e-9,
                                                                          max_iter=-1))
        assert res.termination is Termination.CONVERGED
        assert res.objective == pytest.approx(ref, rel=1e-6)
        assert res.objective == pytest.approx(dual_objective(pr, res.alpha), rel=1e-12)
        assert res.bound <= ref + 1e-9 * abs(ref) and res.gap < 1e-7  # certified
        assert abs(res.alpha @ y) < 1e-9 and res.alpha.min() >= pr.lower
        assert res.alpha.max() <= pr.upper


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("C", [0.1, 1.0, 100.0])
def test_hinge_equals_libsvm_dual_value(seed, C):
    X, y = instance(seed, m=120, n=5)
    K = kernel_matrix(X, kernel="rbf", gamma=2.0)
    ref = solve_svm_dual(K, y, C, options=SVMDualOptions(tol=1e-10, backend="libsvm"))
    for wss in WSS:
        res = solve_kernel_dual(K, y, Hinge(C), options=SMOOptions(wss=wss, tol=1e-10,
                                                                   max_iter=-1))
        assert res.objective == pytest.approx(ref.objective, rel=1e-6)
        assert res.b == pytest.approx(ref.b, abs=1e-5)
        if C >= 1.0:  # (C = 0.1: no free variable in a class, rho is then undetermined)
            assert res.rho == pytest.approx(1.0, abs=1e-6)  # the hinge's margin: -p
    via = solve_svm_dual(K, y, C, options=SVMDualOptions(tol=1e-10, backend="smo"))
    assert via.solver == "sparsekm-smo" and via.objective == pytest.approx(ref.objective,
                                                                            rel=1e-6)


@pytest.mark.parametrize("spec", [KernelSpec("rbf", gamma=0.5), KernelSpec("laplacian", gamma=0.3),
                                  KernelSpec("poly", gamma=0.5, degree=3, coef0=1.0),
                                  KernelSpec("anisotropic_rbf", weights=(0.1, 2.0, 0.0, 1.0))])
def test_row_cache_path_equals_precomputed_path(spec):
    X, y = instance(3, m=150)
    loss = Logistic(1.0, 0.2)
    full = solve_kernel_dual(KernelSource.from_matrix(spec(X)), y, loss, options=TIGHT)
    ks = KernelSource.from_data(X, spec, cache_mb=150 * 8 * 20 / 2**20, precompute=False)
    rows = solve_kernel_dual(ks, y, loss, options=TIGHT)
    assert not ks.precomputed and ks.cache_rows == 20 and ks.nbytes == 20 * 150 * 8
    assert rows.extra["rows_computed"] > 20  # rows were evicted and recomputed
    assert rows.objective == pytest.approx(full.objective, rel=1e-10)
    np.testing.assert_allclose(rows.alpha, full.alpha, atol=1e-6)
    np.testing.assert_allclose(ks.matvec(y), spec(X) @ y, rtol=1e-10)


def one_feature_change(X: np.ndarray, y: np.ndarray, loss, j: int = 0) -> tuple[int, int]:
    """(cold, warm) iterations after removing feature j from the kernel (a local-search move
    of paper A, a kernel-weight change of paper B / E)."""
    K = kernel_matrix(X, kernel="rbf", gamma=0.5)
    K2 = kernel_matrix(np.delete(X, j, axis=1), kernel="rbf", gamma=0.5)
    opts = SMOOptions(tol=1e-5, max_iter=-1)
    before = solve_kernel_dual(K, y, loss, options=opts)
    cold = solve_kernel_dual(K2, y, loss, options=opts)
    warm = solve_kernel_dual(K2, y, loss, alpha0=before.alpha, options=opts)
    assert warm.objective == pytest.approx(cold.objective, rel=1e-6)
    return cold.extra["iterations"], warm.extra["iterations"]


def test_warm_start_after_one_feature_kernel_change_needs_fewer_iterations():
    from sparsekm.data import Scaler, load_dataset

    ds = load_dataset("diabetes")
    X = Scaler("minmax01").fit_transform(ds.X)
    # measured: hinge C=1 cold 367 / warm 124 iterations; logistic C=1, lam=0.1 2657 / 1728
    cold, warm = one_feature_change(X, ds.y, Hinge(1.0))
    assert warm <= 0.5 * cold
    cold, warm = one_feature_change(X, ds.y, Logistic(1.0, 0.1))
    assert warm <= 0.75 * cold


def test_grad0_and_repair_of_an_infeasible_warm_start():
    X, y = instance(4, m=80)
    K = kernel_matrix(X, kernel="rbf", gamma=1.0)
    loss = Logistic(2.0, 0.3)
    ref = solve_kernel_dual(K, y, loss, options=TIGHT)
    g = dual_gradient(KernelSource.from_matrix(K), y, ref.alpha, loss)
    np.testing.assert_allclose(g, ref.grad, atol=1e-8)  # the engine's gradient is exact
    again = solve_kernel_dual(K, y, loss, alpha0=ref.alpha, grad0=ref.grad, options=TIGHT)
    assert again.extra["iterations"] == 0 and again.objective == ref.objective
    # from another C: outside the new box and off y'a = 0 -> clipped and rebalanced
    res = solve_kernel_dual(K, y, Logistic(0.5, 0.3), alpha0=ref.alpha * 1.7, options=TIGHT)
    direct = solve_kernel_dual(K, y, Logistic(0.5, 0.3), options=TIGHT)
    assert res.objective == pytest.approx(direct.objective, rel=1e-9)
    with pytest.raises(ValueError, match="alpha0"):
        solve_kernel_dual(K, y, loss, alpha0=np.where(y > 0, 1.0, 1e-5) * 0 + 5e-6)
    with pytest.raises(ValueError, match="cannot warm start"):
        solve_svm_dual(K, y, 1.0, alpha0=np.zeros(80), options=SVMDualOptions(backend="libsvm"))


def test_bound_is_certified_at_any_iterate_and_decide_stops_early():
    X, y = instance(5, m=200)
    K = kernel_matrix(X, kernel="rbf", gamma=1.0)
    loss = Logistic(10.0, 1.0)
    opt = solve_kernel_dual(K, y, loss, options=TIGHT).objective
    for it in (1, 10, 100):
        r = solve_kernel_dual(K, y, loss, options=SMOOptions(max_iter=it))
        assert r.termination is Termination.ITERATION_LIMIT
        assert r.bound <= opt <= r.objective
    full = solve_kernel_dual(K, y, loss, options=SMOOptions(tol=1e-6))
    for lo_hi, side in (((opt + 5.0, opt + 6.0), "below"), ((opt - 6.0, opt - 5.0), "above")):
        r = solve_kernel_dual(K, y, loss, options=SMOOptions(tol=1e-6, decide=lo_hi,
                                                             check_every=20))
        assert r.extra["decided"] == side and r.bound <= opt <= r.objective
        assert r.extra["iterations"] < full.extra["iterations"]
    undecided = solve_kernel_dual(K, y, loss, options=SMOOptions(tol=1e-6, check_every=20,
                                                                 decide=(opt - 1, opt + 1)))
    assert undecided.extra["decided"] is None and undecided.ok


def test_auto_backend_warm_starts_with_the_engine_and_bad_input_is_named():
    X, y = instance(6, m=60)
    K = kernel_matrix(X, kernel="rbf", gamma=1.0)
    cold = solve_svm_dual(K, y, 1.0)
    assert cold.solver == "libsvm"
    warm = solve_svm_dual(K, y, 1.0, alpha0=cold.alpha, grad0=cold.grad)
    assert warm.solver == "sparsekm-smo" and warm.extra["iterations"] <= 2
    assert warm.objective == pytest.approx(cold.objective, rel=1e-6)
    with pytest.raises(ValueError, match="wss"):
        SMOOptions(wss="third-order")
    with pytest.raises(ValueError, match="gamma"):
        Logistic(1e-5, 0.0, gamma=1e-5)
    with pytest.raises(ValueError, match="square"):
        solve_kernel_dual(np.ones((3, 2)), y[:3])
    with pytest.raises(ValueError, match="one class"):
        solve_kernel_dual(K, np.ones(60))


@pytest.mark.parametrize("name,kw", [("rbf", {"gamma": 0.3}), ("poly", {"degree": 2}),
                                     ("linear", {}), ("sigmoid", {"gamma": 0.1})])
def test_precomputed_matrix_by_row_blocks_equals_the_kernel(monkeypatch, name, kw):
    """The engine's matrix is filled by blocks of rows (``gram_by_blocks``): the one-call
    kernel to round-off, the rbf diagonal exactly 1; with a spent deadline, no matrix."""
    from sparsekm.kernels import blocks, gram_by_blocks
    from sparsekm.solvers.plan import Deadline

    monkeypatch.setattr(blocks, "BLOCK_ROWS", 7)
    X = np.random.default_rng(1).normal(size=(30, 4))
    spec = KernelSpec(name, **kw)
    K = KernelSource.from_data(X, spec, precompute=True).K
    np.testing.assert_allclose(K, spec(X), rtol=1e-13, atol=1e-13)
    assert np.array_equal(K, K.T)          # each block pair computed once, mirrored
    if name == "rbf":
        assert np.array_equal(np.diag(K), np.ones(30))
    assert gram_by_blocks(spec, X, Deadline(1e-9)) is None
