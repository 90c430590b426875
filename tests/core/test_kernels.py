"""Tests for sparsekm.kernels: kernel functions vs scikit-learn, MaskedKernel vs full rebuild."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import pairwise as skp

from sparsekm.kernels import (
    KERNELS,
    KernelSpec,
    MaskedKernel,
    add_jitter,
    anisotropic_rbf_kernel,
    kernel_matrix,
    laplacian_kernel,
    linear_kernel,
    polynomial_kernel,
    rbf_kernel,
    sigmoid_kernel,
    symmetrize,
)

RTOL = 1e-10


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.standard_normal((40, 7)), rng.standard_normal((13, 7))


# ------------------------------------------------------------------ kernel functions
@pytest.mark.parametrize("with_z", [False, True])
def test_kernels_match_sklearn(data, with_z):
    X, Z = data
    Zs = Z if with_z else None
    np.testing.assert_allclose(linear_kernel(X, Zs), skp.linear_kernel(X, Zs), rtol=RTOL)
    np.testing.assert_allclose(
        polynomial_kernel(X, Zs, gamma=0.3, degree=3, coef0=1.5),
        skp.polynomial_kernel(X, Zs, gamma=0.3, degree=3, coef0=1.5),
        rtol=RTOL,
    )
    np.testing.assert_allclose(
        rbf_kernel(X, Zs, gamma=0.2), skp.rbf_kernel(X, Zs, gamma=0.2), rtol=RTOL, atol=1e-14
    )
    np.testing.assert_allclose(
        laplacian_kernel(X, Zs, gamma=0.1), skp.laplacian_kernel(X, Zs, gamma=0.1), rtol=RTOL
    )
    np.testing.assert_allclose(
        sigmoid_kernel(X, Zs, gamma=0.05, coef0=-0.3),
        skp.sigmoid_kernel(X, Zs, gamma=0.05, coef0=-0.3),
        rtol=RTOL,
    )


def test_gamma_none_is_one_over_n_features(data):
    X, Z = data
    np.testing.assert_allclose(rbf_kernel(X, Z), skp.rbf_kernel(X, Z), rtol=RTOL)
    np.testing.assert_allclose(laplacian_kernel(X), skp.laplacian_kernel(X), rtol=RTOL)
    np.testing.assert_allclose(
        polynomial_kernel(X, degree=2, coef0=1.0),
        skp.polynomial_kernel(X, degree=2, coef0=1.0),
        rtol=RTOL,
    )
    assert KernelSpec("rbf").gamma_for(7) == pytest.approx(1 / 7)


def test_rbf_gram_exactly_symmetric_unit_diagonal(data):
    X, _ = data
    K = rbf_kernel(X * 100.0, gamma=1e-4)
    assert np.array_equal(K, K.T)
    assert np.array_equal(np.diagonal(K), np.ones(len(X)))


def test_anisotropic_rbf_direct_formula(data):
    X, Z = data
    w = np.linspace(0.0, 0.7, X.shape[1])
    direct = np.exp(-((X[:, None, :] - Z[None, :, :]) ** 2 * w).sum(axis=2))
    np.testing.assert_allclose(anisotropic_rbf_kernel(X, Z, weights=w), direct, rtol=1e-12)
    # uniform weights = isotropic rbf; zero weights drop features (paper A masked kernel)
    np.testing.assert_allclose(
        anisotropic_rbf_kernel(X, weights=np.full(7, 0.2)), rbf_kernel(X, gamma=0.2), rtol=1e-12
    )
    beta = np.array([1, 0, 1, 0, 0, 1, 1], dtype=float)
    np.testing.assert_allclose(
        anisotropic_rbf_kernel(X, Z, weights=0.3 * beta),
        rbf_kernel(X[:, beta > 0], Z[:, beta > 0], gamma=0.3),
        rtol=1e-12,
    )
    with pytest.raises(ValueError, match=">= 0"):
        anisotropic_rbf_kernel(X, weights=-w)
    with pytest.raises(ValueError, match="length n_features=7"):
        anisotropic_rbf_kernel(X, weights=w[:3])
    with pytest.raises(ValueError, match="needs weights"):
        kernel_matrix(X, kernel="anisotropic_rbf")
    with pytest.raises(ValueError, match="only used by kernel='anisotropic_rbf'"):
        kernel_matrix(X, kernel="rbf", weights=w)


def test_kernel_matrix_dispatch_and_aliases(data):
    X, Z = data
    np.testing.assert_allclose(
        kernel_matrix(X, Z, "polynomial", gamma=0.1, degree=2, coef0=1.0),
        polynomial_kernel(X, Z, gamma=0.1, degree=2, coef0=1.0),
    )
    np.testing.assert_allclose(
        kernel_matrix(X, kernel="gaussian", gamma=0.5), rbf_kernel(X, gamma=0.5)
    )
    assert set(KERNELS) == {"linear", "poly", "rbf", "laplacian", "sigmoid", "anisotropic_rbf"}
    for name, fn in KERNELS.items():
        kw = {"weights": np.ones(7)} if name == "anisotropic_rbf" else {}
        K = kernel_matrix(X, Z, kernel=name, **kw)
        assert K.shape == (40, 13)
        if name != "anisotropic_rbf":
            np.testing.assert_allclose(K, fn(X, Z))


def test_kernel_spec(data):
    X, Z = data
    spec = KernelSpec("Polynomial", gamma=0.2, degree=2, coef0=1.0)
    assert spec.name == "poly"
    np.testing.assert_allclose(spec(X, Z), skp.polynomial_kernel(X, Z, gamma=0.2, degree=2))
    np.testing.assert_allclose(KernelSpec()(X), skp.rbf_kernel(X))
    assert hash(spec) == hash(KernelSpec("poly", gamma=0.2, degree=2, coef0=1.0))
    with pytest.raises(AttributeError):
        spec.gamma = 1.0  # frozen
    ani = KernelSpec("anisotropic_rbf", weights=np.full(7, 0.1))
    np.testing.assert_allclose(ani(X), rbf_kernel(X, gamma=0.1), rtol=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"name": "rbff"}, "valid names are: anisotropic_rbf, laplacian, linear, poly, rbf"),
        ({"name": "rbf", "gamma": 0.0}, "gamma must be a positive"),
        ({"name": "rbf", "gamma": -1.0}, "gamma must be a positive"),
        ({"name": "poly", "degree": 0}, "degree must be an integer >= 1"),
        ({"name": "poly", "degree": 2.5}, "degree must be an integer >= 1"),
        ({"name": "poly", "degree": True}, "degree must be an integer >= 1"),
        ({"name": "sigmoid", "coef0": np.inf}, "coef0 must be a finite"),
        ({"name": "anisotropic_rbf"}, "needs weights"),
        ({"name": "rbf", "weights": (1.0, 2.0)}, "only used by 'anisotropic_rbf'"),
    ],
)
def test_kernel_spec_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        KernelSpec(**kwargs)


def test_input_validation(data):
    X, Z = data
    with pytest.raises(ValueError, match="same number of features"):
        rbf_kernel(X, Z[:, :3])
    with pytest.raises(ValueError, match="2-D array"):
        rbf_kernel(X[0])
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        linear_kernel(Xn)


def test_symmetrize_and_jitter():
    A = np.array([[1.0, 2.0], [4.0, 3.0]])
    np.testing.assert_array_equal(symmetrize(A), [[1.0, 3.0], [3.0, 3.0]])
    J = add_jitter(A, 0.5)
    np.testing.assert_array_equal(J, [[1.5, 2.0], [4.0, 3.5]])
    np.testing.assert_array_equal(A, [[1.0, 2.0], [4.0, 3.0]])  # input untouched
    with pytest.raises(ValueError, match="square"):
        add_jitter(np.ones((2, 3)))


# ------------------------------------------------------------------ MaskedKernel
MASKED_PARAMS = [
    ("linear", {}),
    ("poly", {"gamma": 0.1, "degree": 2, "coef0": 1.0}),
    ("poly", {"gamma": 0.1, "degree": 5, "coef0": 1.0}),
    ("rbf", {"gamma": 0.1}),
    ("laplacian", {"gamma": 0.05}),
    ("sigmoid", {"gamma": 0.02, "coef0": 0.5}),
]
BACKENDS = ["numba", "numpy"]


def _full(mk: MaskedKernel, X: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    mask = mk.mask if mask is None else mask
    return kernel_matrix(
        X[:, mask], kernel=mk.kernel, gamma=mk.gamma, degree=mk.degree, coef0=mk.coef0
    )


@pytest.fixture(scope="module")
def Xm() -> np.ndarray:
    return np.random.default_rng(1).standard_normal((50, 12))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("kernel", "kw"), MASKED_PARAMS)
def test_masked_updates_equal_rebuild(Xm, kernel, kw, backend):
    mask = np.zeros(12, dtype=bool)
    mask[[0, 3, 4, 8, 11]] = True
    mk = MaskedKernel(Xm, kernel, mask=mask, backend=backend, **kw)
    np.testing.assert_allclose(mk.K, _full(mk, Xm), rtol=1e-11, atol=1e-12)
    mk.add(5)
    assert list(mk.selected) == [0, 3, 4, 5, 8, 11]
    np.testing.assert_allclose(mk.K, _full(mk, Xm), rtol=1e-11, atol=1e-12)
    mk.remove(0)
    assert not mk.mask[0]
    np.testing.assert_allclose(mk.K, _full(mk, Xm), rtol=1e-11, atol=1e-12)
    mk.swap(8, 1)
    assert list(mk.selected) == [1, 3, 4, 5, 11]
    np.testing.assert_allclose(mk.K, _full(mk, Xm), rtol=1e-11, atol=1e-12)
    new = np.zeros(12, dtype=bool)
    new[[1, 2, 3, 6, 11]] = True
    mk.set_mask(new)  # incremental path (3 changes < 5 selected)
    np.testing.assert_array_equal(mk.mask, new)
    np.testing.assert_allclose(mk.K, _full(mk, Xm), rtol=1e-11, atol=1e-12)
    mk.set_mask(~new)  # rebuild path
    np.testing.assert_allclose(mk.K, _full(mk, Xm), rtol=1e-11, atol=1e-12)
    assert np.array_equal(mk.K, mk.K.T)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("kernel", "kw"), MASKED_PARAMS)
def test_with_swap_and_cross(Xm, kernel, kw, backend):
    rng = np.random.default_rng(2)
    mk = MaskedKernel(Xm, kernel, mask=np.arange(12) % 2 == 0, backend=backend, **kw)
    K0 = mk.K.copy()
    mask0 = mk.mask
    Kn = mk.with_swap(4, 7)
    np.testing.assert_array_equal(mk.K, K0)  # state unchanged
    np.testing.assert_array_equal(mk.mask, mask0)
    target = mask0.copy()
    target[[4, 7]] = [False, True]
    np.testing.assert_allclose(Kn, _full(mk, Xm, target), rtol=1e-11, atol=1e-12)
    mk.swap(4, 7)
    np.testing.assert_allclose(mk.K, Kn, rtol=1e-13, atol=1e-14)
    Z = rng.standard_normal((9, 12))
    direct = kernel_matrix(
        Z[:, target], Xm[:, target], kernel, gamma=mk.gamma, degree=mk.degree, coef0=mk.coef0
    )
    np.testing.assert_allclose(mk.cross(Z), direct, rtol=1e-12)
    assert mk.cross(Z).shape == (9, 50)


@pytest.mark.parametrize(("kernel", "kw"), MASKED_PARAMS)
def test_thousand_swaps_drift(kernel, kw):
    rng = np.random.default_rng(3)
    X = rng.standard_normal((60, 20))
    mask = np.zeros(20, dtype=bool)
    mask[rng.choice(20, 10, replace=False)] = True
    mk = MaskedKernel(X, kernel, mask=mask, **kw)
    for _ in range(1000):
        mk.swap(rng.choice(mk.selected), rng.choice(np.flatnonzero(~mk.mask)))
    assert mk.n_selected == 10
    drift = np.max(np.abs(mk.K - _full(mk, X)))
    assert drift < 1e-9
    mk.refresh()
    assert np.max(np.abs(mk.K - _full(mk, X))) <= max(drift, 1e-12)


def test_K_is_readonly_snapshot(Xm):
    mk = MaskedKernel(Xm, "rbf", gamma=0.1)
    K0 = mk.K
    saved = K0.copy()
    assert not K0.flags.writeable
    with pytest.raises(ValueError):
        K0[0, 0] = 2.0
    mk.remove(3)
    np.testing.assert_array_equal(K0, saved)  # an old K is never modified
    assert not np.array_equal(mk.K, K0)


def test_defaults_and_empty_mask(Xm):
    mk = MaskedKernel(Xm)  # poly, gamma=0.1, degree=2, coef0=1, all features
    assert mk.kernel == "poly" and mk.n_selected == 12
    np.testing.assert_allclose(
        mk.K, skp.polynomial_kernel(Xm, gamma=0.1, degree=2, coef0=1.0), rtol=1e-12
    )
    for j in range(12):
        mk.remove(j)
    np.testing.assert_allclose(mk.K, np.ones((50, 50)), atol=1e-12)  # (0 + 1)^2
    rb = MaskedKernel(Xm, "rbf", gamma=None, mask=np.zeros(12))
    np.testing.assert_array_equal(rb.K, np.ones((50, 50)))
    assert rb.gamma == pytest.approx(1 / 12)  # 1 / total n_features
    mk2 = rb.copy().add(2)
    assert rb.n_selected == 0 and mk2.n_selected == 1


def test_pickle_copy_and_auto_refresh(Xm, monkeypatch):
    import pickle

    from sparsekm.kernels import masked

    mk = MaskedKernel(Xm, "rbf", gamma=0.1, mask=np.arange(12) < 6)
    mk2 = pickle.loads(pickle.dumps(mk))
    np.testing.assert_array_equal(mk2.swap(0, 7).K, mk.with_swap(0, 7))
    monkeypatch.setattr(masked, "_AUTO_REFRESH", 3)
    for _ in range(2):
        mk.swap(0, 7).swap(7, 0)
    assert mk._n_updates == 1  # refreshed after the third update
    np.testing.assert_allclose(mk.K, _full(mk, Xm), rtol=1e-12)


def test_masked_errors(Xm):
    mk = MaskedKernel(Xm, "rbf", gamma=0.1, mask=np.arange(12) < 6)
    with pytest.raises(ValueError, match="already selected"):
        mk.add(0)
    with pytest.raises(ValueError, match="not selected"):
        mk.remove(7)
    with pytest.raises(ValueError, match="not selected"):
        mk.swap(7, 8)
    with pytest.raises(ValueError, match="already selected"):
        mk.with_swap(0, 1)
    with pytest.raises(ValueError, match="out of range"):
        mk.add(12)
    with pytest.raises(ValueError, match="integer feature index"):
        mk.add(1.0)
    with pytest.raises(ValueError, match="length n_features=12"):
        mk.set_mask(np.ones(5, dtype=bool))
    with pytest.raises(ValueError, match="booleans or 0/1"):
        mk.set_mask(np.arange(12))
    with pytest.raises(ValueError, match="all n_features=12 columns"):
        mk.cross(Xm[:, :6])
    with pytest.raises(ValueError, match="MaskedKernel supports kernels"):
        MaskedKernel(Xm, "anisotropic_rbf")
    with pytest.raises(ValueError, match="gamma must be a positive"):
        MaskedKernel(Xm, "rbf", gamma=-1.0)
    assert list(mk.selected) == [0, 1, 2, 3, 4, 5]  # failed calls changed nothing


def test_mask_from_indices() -> None:
    from sparsekm.kernels import mask_from_indices

    np.testing.assert_array_equal(mask_from_indices([0, 3], 5), [1, 0, 0, 1, 0])
    with pytest.raises(ValueError, match=r"\[0, 4\]"):
        mask_from_indices([5], 5)


def test_kernel_decision_equals_the_full_matrix_product_in_blocks(monkeypatch):
    """f(z) = K(Z, X) c + b computed in row blocks over the rows with c_i != 0 only."""
    from sparsekm.kernels import blocks, kernel_decision, rbf_kernel

    rng = np.random.default_rng(3)
    X, Z = rng.normal(size=(30, 4)), rng.normal(size=(23, 4))
    coef = np.where(rng.random(30) < 0.4, 0.0, rng.normal(size=30))
    seen = []

    def kernel(A, B):
        seen.append(B.shape[0])
        return rbf_kernel(A, B, gamma=0.3)

    monkeypatch.setattr(blocks, "BLOCK_ROWS", 5)
    f = kernel_decision(kernel, Z, X, coef, 0.7)
    np.testing.assert_allclose(f, rbf_kernel(Z, X, gamma=0.3) @ coef + 0.7, rtol=1e-12)
    assert len(seen) == 5 and set(seen) == {int((coef != 0).sum())}
    assert np.array_equal(kernel_decision(kernel, Z, X, np.zeros(30), -1.0), np.full(23, -1.0))


def test_prediction_reserve_ends_the_method_clock_earlier():
    """A run reserves the time of its printed predictions: the clock ends that much earlier
    (never below 10 ms left; no limit: unchanged); the cost is timed on a sample and scaled
    by the number of rows."""
    import math

    from sparsekm.kernels import rbf_kernel
    from sparsekm.run.predict_budget import prediction_seconds, reserve, reserved_plan
    from sparsekm.solvers import SolverPlan

    plan = SolverPlan(time_limit=10.0).start()
    assert reserve(plan, 3.0).clock.remaining() == pytest.approx(7.0, abs=0.05)
    assert reserve(plan, 30.0).clock.remaining() <= 0.01
    free = SolverPlan().start()
    assert math.isinf(reserve(free, 3.0).clock.remaining())
    assert reserved_plan(free, rbf_kernel, np.ones((5, 2)), np.ones((9, 2))) is free
    X = np.random.default_rng(0).normal(size=(400, 5))
    assert prediction_seconds(rbf_kernel, X, 0) == 0.0 < prediction_seconds(rbf_kernel, X, 50)
    r = reserved_plan(plan, rbf_kernel, X, None, np.ones((3000, 5)))
    assert r.clock.remaining() < plan.clock.remaining()
