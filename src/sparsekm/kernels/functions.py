"""Kernel functions and the :class:`KernelSpec` value object.

All kernels follow the conventions of :mod:`sklearn.metrics.pairwise` (``gamma=None`` means
``1 / n_features``), except that ``coef0`` defaults to ``0.0`` everywhere, as in
:func:`kernel_matrix`.

References
----------
Paper A, Section 2.1: polynomial ``(gamma x'z + c)^d`` and Gaussian ``exp(-gamma ||x - z||^2)``
kernels of the dual SVM, eq. (3). Paper E: the anisotropic (feature-weighted) Gaussian kernel
``exp(-sum_j w_j (x_j - z_j)^2)``.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "KERNELS",
    "KernelSpec",
    "add_jitter",
    "anisotropic_rbf_kernel",
    "canonical_kernel_name",
    "kernel_matrix",
    "laplacian_kernel",
    "linear_kernel",
    "polynomial_kernel",
    "rbf_kernel",
    "sigmoid_kernel",
    "symmetrize",
]

# Alternative spellings accepted wherever a kernel name is expected.
_ALIASES: dict[str, str] = {
    "polynomial": "poly",
    "gaussian": "rbf",
    "anisotropic": "anisotropic_rbf",
    "ard": "anisotropic_rbf",
}


# --------------------------------------------------------------------------------------------
# validation helpers
# --------------------------------------------------------------------------------------------
def _as_2d(X: Any, name: str) -> np.ndarray:
    A = np.asarray(X, dtype=np.float64)
    if A.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array (n_samples, n_features), got shape {A.shape}; "
            f"use {name}.reshape(-1, 1) for a single feature or {name}.reshape(1, -1) for one "
            "sample"
        )
    if not np.all(np.isfinite(A)):
        raise ValueError(f"{name} contains NaN or infinite values; impute or drop them first")
    return A


def _check_pair(X: Any, Z: Any) -> tuple[np.ndarray, np.ndarray, bool]:
    """Return ``(X, Z, same)``; ``same`` is True when ``Z`` is None (a Gram matrix)."""
    Xa = _as_2d(X, "X")
    if Z is None:
        return Xa, Xa, True
    Za = _as_2d(Z, "Z")
    if Za.shape[1] != Xa.shape[1]:
        raise ValueError(
            f"X and Z must have the same number of features, got {Xa.shape[1]} and {Za.shape[1]}"
        )
    return Xa, Za, False


def _resolve_gamma(gamma: float | None, n_features: int) -> float:
    if gamma is None:
        return 1.0 / max(n_features, 1)
    g = float(gamma)
    if not (np.isfinite(g) and g > 0):
        raise ValueError(f"gamma must be a positive finite number (or None), got {gamma!r}")
    return g


def _check_degree(degree: Any) -> int:
    if isinstance(degree, bool) or not isinstance(degree, numbers.Integral) or degree < 1:
        raise ValueError(f"degree must be an integer >= 1, got {degree!r}")
    return int(degree)


def _check_coef0(coef0: Any) -> float:
    c = float(coef0)
    if not np.isfinite(c):
        raise ValueError(f"coef0 must be a finite number, got {coef0!r}")
    return c


def canonical_kernel_name(name: str) -> str:
    """Return the canonical kernel name (``"polynomial"`` -> ``"poly"``, ...).

    Raises
    ------
    ValueError
        If ``name`` is not a known kernel; the message lists the valid names.
    """
    if not isinstance(name, str):
        raise ValueError(f"kernel name must be a string, got {type(name).__name__}")
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    if key not in KERNELS:
        valid = ", ".join(sorted(KERNELS)) + " (aliases: " + ", ".join(sorted(_ALIASES)) + ")"
        raise ValueError(f"unknown kernel {name!r}; valid names are: {valid}")
    return key


# --------------------------------------------------------------------------------------------
# elementary kernels
# --------------------------------------------------------------------------------------------
def _sq_dists(X: np.ndarray, Z: np.ndarray, same: bool) -> np.ndarray:
    """Squared Euclidean distances via ``|x|^2 + |z|^2 - 2 x'z`` (BLAS), clipped at 0."""
    xx = np.einsum("ij,ij->i", X, X)
    zz = xx if same else np.einsum("ij,ij->i", Z, Z)
    # (|x|^2 + |z|^2) first: addition is commutative, so D is exactly symmetric when same
    D = np.add.outer(xx, zz)
    G = X @ Z.T
    G *= 2.0
    D -= G
    np.maximum(D, 0.0, out=D)
    if same:
        np.fill_diagonal(D, 0.0)
    return D


def linear_kernel(X: Any, Z: Any = None) -> np.ndarray:
    """Linear kernel ``k(x, z) = x'z``.

    Parameters
    ----------
    X : array of shape (m, n)
    Z : array of shape (t, n), optional
        Defaults to ``X`` (Gram matrix).

    Returns
    -------
    ndarray of shape (m, t)
    """
    X, Z, _ = _check_pair(X, Z)
    return X @ Z.T


def polynomial_kernel(
    X: Any, Z: Any = None, gamma: float | None = None, degree: int = 3, coef0: float = 0.0
) -> np.ndarray:
    """Polynomial kernel ``k(x, z) = (gamma x'z + coef0)^degree`` (Paper A, Section 2.1).

    ``gamma=None`` means ``1 / n_features``.
    """
    X, Z, _ = _check_pair(X, Z)
    g = _resolve_gamma(gamma, X.shape[1])
    d = _check_degree(degree)
    c = _check_coef0(coef0)
    K = X @ Z.T
    K *= g
    K += c
    if d != 1:
        np.power(K, d, out=K)
    return K


def rbf_kernel(X: Any, Z: Any = None, gamma: float | None = None) -> np.ndarray:
    """Gaussian kernel ``k(x, z) = exp(-gamma ||x - z||^2)`` (Paper A, Section 2.1).

    ``gamma=None`` means ``1 / n_features``.
    """
    X, Z, same = _check_pair(X, Z)
    g = _resolve_gamma(gamma, X.shape[1])
    K = _sq_dists(X, Z, same)
    K *= -g
    np.exp(K, out=K)
    return K


def laplacian_kernel(X: Any, Z: Any = None, gamma: float | None = None) -> np.ndarray:
    """Laplacian kernel ``k(x, z) = exp(-gamma ||x - z||_1)``; ``gamma=None`` -> 1/n_features."""
    from scipy.spatial.distance import cdist  # here: scipy.spatial costs 0.2 s to import

    X, Z, _ = _check_pair(X, Z)
    g = _resolve_gamma(gamma, X.shape[1])
    K = cdist(X, Z, "cityblock")
    K *= -g
    np.exp(K, out=K)
    return K


def sigmoid_kernel(
    X: Any, Z: Any = None, gamma: float | None = None, coef0: float = 0.0
) -> np.ndarray:
    """Sigmoid kernel ``k(x, z) = tanh(gamma x'z + coef0)`` (not PSD in general).

    ``gamma=None`` means ``1 / n_features``.
    """
    X, Z, _ = _check_pair(X, Z)
    g = _resolve_gamma(gamma, X.shape[1])
    c = _check_coef0(coef0)
    K = X @ Z.T
    K *= g
    K += c
    np.tanh(K, out=K)
    return K


def _check_weights(weights: Any, n_features: int) -> np.ndarray:
    if weights is None:
        raise ValueError(
            "the anisotropic_rbf kernel needs weights=<array of n_features nonnegative numbers>"
        )
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim == 0:
        w = np.full(n_features, float(w))
    if w.ndim != 1 or w.shape[0] != n_features:
        raise ValueError(
            f"weights must be a 1-D array of length n_features={n_features}, got shape {w.shape}"
        )
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("weights must be finite and >= 0 (one nonnegative weight per feature)")
    return w


def anisotropic_rbf_kernel(X: Any, Z: Any = None, weights: Any = None) -> np.ndarray:
    """Anisotropic Gaussian kernel ``k(x, z) = exp(-sum_j w_j (x_j - z_j)^2)`` (Paper E).

    Parameters
    ----------
    X : array of shape (m, n)
    Z : array of shape (t, n), optional
    weights : array of shape (n,), all ``>= 0`` (a scalar is broadcast to every feature)
        A weight of zero removes the feature; binary weights give the masked Gaussian kernel of
        Paper A, eq. (4) with ``gamma = 1``.
    """
    X, Z, same = _check_pair(X, Z)
    w = _check_weights(weights, X.shape[1])
    s = np.sqrt(w)
    Xs = X * s
    Zs = Xs if same else Z * s
    K = _sq_dists(Xs, Zs, same)
    np.negative(K, out=K)
    np.exp(K, out=K)
    return K


KERNELS: dict[str, Callable[..., np.ndarray]] = {
    "linear": linear_kernel,
    "poly": polynomial_kernel,
    "rbf": rbf_kernel,
    "laplacian": laplacian_kernel,
    "sigmoid": sigmoid_kernel,
    "anisotropic_rbf": anisotropic_rbf_kernel,
}
"""Canonical kernel name -> kernel function. Aliases: polynomial, gaussian, anisotropic, ard."""


def kernel_matrix(
    X: Any,
    Z: Any = None,
    kernel: str = "rbf",
    gamma: float | None = None,
    degree: int = 3,
    coef0: float = 0.0,
    weights: Any = None,
) -> np.ndarray:
    """Kernel matrix ``K[i, h] = k(X[i], Z[h])`` for a named kernel.

    Parameters
    ----------
    X : array of shape (m, n)
    Z : array of shape (t, n), optional
        Defaults to ``X``.
    kernel : {"linear", "poly", "rbf", "laplacian", "sigmoid", "anisotropic_rbf"}
        ``linear``: x'z; ``poly``: (gamma x'z + coef0)^degree; ``rbf``: exp(-gamma ||x-z||^2);
        ``laplacian``: exp(-gamma ||x-z||_1); ``sigmoid``: tanh(gamma x'z + coef0);
        ``anisotropic_rbf``: exp(-sum_j weights_j (x_j - z_j)^2).
    gamma : float > 0, optional
        ``None`` means ``1 / n_features`` (scikit-learn convention).
    degree : int >= 1
    coef0 : float
    weights : array of shape (n,), only for ``anisotropic_rbf``

    Returns
    -------
    ndarray of shape (m, t), float64
    """
    name = canonical_kernel_name(kernel)
    if weights is not None and name != "anisotropic_rbf":
        raise ValueError(
            f"weights are only used by kernel='anisotropic_rbf', not {name!r}; drop weights= or "
            "switch the kernel"
        )
    if name == "linear":
        return linear_kernel(X, Z)
    if name == "poly":
        return polynomial_kernel(X, Z, gamma=gamma, degree=degree, coef0=coef0)
    if name == "rbf":
        return rbf_kernel(X, Z, gamma=gamma)
    if name == "laplacian":
        return laplacian_kernel(X, Z, gamma=gamma)
    if name == "sigmoid":
        return sigmoid_kernel(X, Z, gamma=gamma, coef0=coef0)
    return anisotropic_rbf_kernel(X, Z, weights=weights)


@dataclass(frozen=True)
class KernelSpec:
    """An immutable, validated kernel description; calling it returns a kernel matrix.

    Parameters
    ----------
    name : str
        One of ``KERNELS`` (aliases accepted and normalised, e.g. ``"polynomial"`` -> ``"poly"``).
    gamma : float > 0, optional
        ``None`` means ``1 / n_features`` of the data the spec is applied to.
    degree : int >= 1
    coef0 : float
    weights : tuple of float, optional
        Per-feature weights, required by ``anisotropic_rbf`` only (stored as a tuple so that the
        spec stays hashable).

    Examples
    --------
    >>> spec = KernelSpec("poly", gamma=0.1, degree=2, coef0=1.0)
    >>> K = spec(X)            # doctest: +SKIP
    """

    name: str = "rbf"
    gamma: float | None = None
    degree: int = 3
    coef0: float = 0.0
    weights: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", canonical_kernel_name(self.name))
        if self.gamma is not None:
            object.__setattr__(self, "gamma", _resolve_gamma(self.gamma, 1))
        object.__setattr__(self, "degree", _check_degree(self.degree))
        object.__setattr__(self, "coef0", _check_coef0(self.coef0))
        if self.weights is not None:
            w = np.atleast_1d(np.asarray(self.weights, dtype=np.float64))
            w = _check_weights(w, w.shape[0])
            object.__setattr__(self, "weights", tuple(float(v) for v in w))
            if self.name != "anisotropic_rbf":
                raise ValueError(
                    f"weights are only used by 'anisotropic_rbf', not {self.name!r}; drop them"
                )
        elif self.name == "anisotropic_rbf":
            raise ValueError("KernelSpec('anisotropic_rbf') needs weights=<one weight per feature>")

    def gamma_for(self, n_features: int) -> float:
        """The effective gamma for data with ``n_features`` columns."""
        return _resolve_gamma(self.gamma, n_features)

    def __call__(self, X: Any, Z: Any = None) -> np.ndarray:
        """Kernel matrix between the rows of ``X`` and ``Z`` (default ``X``)."""
        return kernel_matrix(
            X,
            Z,
            kernel=self.name,
            gamma=self.gamma,
            degree=self.degree,
            coef0=self.coef0,
            weights=self.weights,
        )


# --------------------------------------------------------------------------------------------
# matrix utilities
# --------------------------------------------------------------------------------------------
def symmetrize(K: Any) -> np.ndarray:
    """Return ``(K + K') / 2`` as a new array (removes round-off asymmetry before a solver)."""
    A = np.asarray(K, dtype=np.float64)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"symmetrize needs a square 2-D matrix, got shape {A.shape}")
    S = A + A.T
    S *= 0.5
    return S


def add_jitter(K: Any, eps: float = 1e-8) -> np.ndarray:
    """Return ``K + eps * I`` as a new array (regularises a nearly singular kernel matrix)."""
    A = np.asarray(K, dtype=np.float64)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"add_jitter needs a square 2-D matrix, got shape {A.shape}")
    e = float(eps)
    if not np.isfinite(e):
        raise ValueError(f"eps must be finite, got {eps!r}")
    J = A.copy()
    J[np.diag_indices_from(J)] += e
    return J
