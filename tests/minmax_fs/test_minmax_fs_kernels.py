"""Paper E, eq. (13): weight derivatives of the anisotropic Gaussian kernel, checked against the
explicit (m, m, n) tensor and against finite differences."""

from __future__ import annotations

import numpy as np
import pytest

from sparsekm.kernels import anisotropic_rbf_kernel
from sparsekm.kernels.anisotropic import (
    anisotropic_rbf_derivative,
    anisotropic_rbf_weight_gradient,
    pair_moments,
    pair_sq_diff_sum,
    pair_sq_diff_times,
)


@pytest.fixture
def data():
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, (11, 5)) + 7.0       # an offset: the centring must not matter
    W = rng.normal(size=(11, 11))
    return X, W + W.T, rng.uniform(0.1, 1.0, 5), rng


def _tensor(X):
    return (X[:, None, :] - X[None, :, :]) ** 2


def test_contractions_equal_the_explicit_tensor(data):
    X, W, g, rng = data
    D = _tensor(X)
    K = anisotropic_rbf_kernel(X, weights=g)
    v = rng.normal(size=X.shape[0])
    np.testing.assert_allclose(pair_sq_diff_sum(X, W), np.einsum("il,ilj->j", W, D),
                               rtol=1e-11, atol=1e-10)
    np.testing.assert_allclose(pair_sq_diff_times(X, K, v), np.einsum("il,ilj,l->ij", K, D, v),
                               rtol=1e-11, atol=1e-11)
    np.testing.assert_allclose(pair_moments(X, W), np.einsum("il,ilj,ilk->jk", W, D, D),
                               rtol=1e-10, atol=1e-9)


def test_weight_gradient_and_derivative_match_finite_differences(data):
    X, W, g, _ = data
    h = 1e-5       # the offset costs digits in |x|^2 + |z|^2 - 2x'z: keep h moderate
    fd = []
    for j in range(X.shape[1]):
        e = np.eye(X.shape[1])[j] * h
        Kp, Km = anisotropic_rbf_kernel(X, weights=g + e), anisotropic_rbf_kernel(X, weights=g - e)
        fd.append(float((W * (Kp - Km)).sum()) / (2 * h))
        np.testing.assert_allclose(anisotropic_rbf_derivative(X, g, j), (Kp - Km) / (2 * h),
                                   atol=1e-7)
    np.testing.assert_allclose(anisotropic_rbf_weight_gradient(X, g, W), fd, rtol=1e-6,
                               atol=1e-7)


def test_bad_shapes_are_refused(data):
    X, W, g, _ = data
    with pytest.raises(ValueError, match="W must have shape"):
        pair_sq_diff_sum(X, W[:3, :3])
    with pytest.raises(ValueError, match="feature index"):
        anisotropic_rbf_derivative(X, g, 9)
