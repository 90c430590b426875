"""Derivatives of the anisotropic Gaussian kernel (paper E, eq. (13)) in its weights gamma.

K_gamma(x, z) = exp(-sum_j gamma_j (x_j - z_j)^2), so

    dK_il / dgamma_j = -K_il d_ilj,      d^2 K_il / dgamma_j dgamma_k = K_il d_ilj d_ilk,

with d_ilj = (x_ij - x_lj)^2. Paper E needs these only contracted with an (m, m) weight matrix
W (e.g. W = (a y)(a y)' for the Danskin gradient of the SVM dual value), and the contraction
never needs the (m, m, n) tensor d:

    sum_{il} W_il d_ilj = 2 sum_i x_ij^2 (W 1)_i - 2 x_j' W x_j          (W symmetric),

i.e. two matrix products, O(m^2 n) time and O(m n) memory. Columns are centred first (d is
translation invariant), which keeps the cancellation in the difference small.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .functions import anisotropic_rbf_kernel

__all__ = ["anisotropic_rbf_derivative", "anisotropic_rbf_weight_gradient", "pair_moments",
           "pair_sq_diff_sum", "pair_sq_diff_times"]


def _centred(X: Any) -> np.ndarray:
    Xa = np.asarray(X, dtype=np.float64)
    if Xa.ndim != 2:
        raise ValueError(f"X must be a 2-D array (m, n), got shape {Xa.shape}")
    return Xa - Xa.mean(axis=0)


def _square(W: Any, m: int) -> np.ndarray:
    Wa = np.asarray(W, dtype=np.float64)
    if Wa.shape != (m, m):
        raise ValueError(f"W must have shape ({m}, {m}) (one weight per pair of rows of X), "
                         f"got {Wa.shape}")
    return Wa


def pair_sq_diff_sum(X: Any, W: Any) -> np.ndarray:
    """``s_j = sum_{i,l} W_il (x_ij - x_lj)^2`` for every feature j at once (W symmetric).

    Computed as ``2 sum_i x_ij^2 (W1)_i - 2 x_j' W x_j`` on centred columns: O(m^2 n) time,
    O(m n) memory (the (m, m, n) tensor of squared differences is never formed).
    """
    Xc = _centred(X)
    Wa = _square(W, Xc.shape[0])
    r = Wa.sum(axis=1)
    WX = Wa @ Xc
    return 2.0 * ((Xc * Xc).T @ r) - 2.0 * np.einsum("ij,ij->j", Xc, WX)


def pair_sq_diff_times(X: Any, K: Any, v: Any) -> np.ndarray:
    """``R_ij = sum_l K_il (x_ij - x_lj)^2 v_l`` as an (m, n) array (K any (m, m) matrix).

    The row form of :func:`pair_sq_diff_sum` (``sum_i R_ij u_i`` with ``W = K * u v'``); it is
    the derivative of ``K v`` in gamma: ``d (K_gamma v)_i / dgamma_j = -R_ij``.
    """
    Xc = _centred(X)
    Ka = _square(K, Xc.shape[0])
    v = np.asarray(v, dtype=np.float64)
    X2 = Xc * Xc
    return X2 * (Ka @ v)[:, None] - 2.0 * Xc * (Ka @ (v[:, None] * Xc)) + Ka @ (v[:, None] * X2)


def pair_moments(X: Any, W: Any) -> np.ndarray:
    """``M_jk = sum_{i,l} W_il d_ilj d_ilk`` (n, n), the weight-Hessian contraction (W symmetric).

    ``sum_il W_il K_il d_ilj d_ilk`` is the second derivative of ``sum_il W_il K_il`` in
    (gamma_j, gamma_k). Expanding ``d_ilj = x_ij^2 - 2 x_ij x_lj + x_lj^2`` leaves one term
    without a low-rank form, so this costs O(m^2 n^2) (one (m, m) x (m, n) product per
    feature): use it for small n.
    """
    Xc = _centred(X)
    Wa = _square(W, Xc.shape[0])
    m, n = Xc.shape
    Q = Xc * Xc
    r = Wa.sum(axis=1)
    WX = Wa @ Xc
    QrQ = Q.T @ (r[:, None] * Q)
    QWQ = Q.T @ (Wa @ Q)
    cross = Q.T @ (Xc * WX)                         # sum_il W_il x_ij^2 x_ik x_lk
    M = 2.0 * QrQ + 2.0 * QWQ - 4.0 * (cross + cross.T)
    for j in range(n):                              # 4 sum_il W_il x_ij x_lj x_ik x_lk
        P = Xc * Xc[:, j:j + 1]
        M[j] += 4.0 * np.einsum("ik,ik->k", P, Wa @ P)
    return M


def anisotropic_rbf_derivative(X: Any, gamma: Any, j: int, K: Any = None) -> np.ndarray:
    """``dK_gamma / dgamma_j = -K_gamma * (x_j - x_j')^2`` as an (m, m) matrix (one feature)."""
    Xa = np.asarray(X, dtype=np.float64)
    if K is None:
        K = anisotropic_rbf_kernel(Xa, weights=gamma)
    if not 0 <= int(j) < Xa.shape[1]:
        raise ValueError(f"feature index j={j} outside 0..{Xa.shape[1] - 1}")
    col = Xa[:, int(j)]
    return -np.asarray(K) * np.subtract.outer(col, col) ** 2


def anisotropic_rbf_weight_gradient(X: Any, gamma: Any, W: Any, K: Any = None) -> np.ndarray:
    """``g_j = sum_{il} W_il dK_il / dgamma_j = -sum_il W_il K_il d_ilj`` for all j (W symmetric).

    With ``W = (a y)(a y)'`` this is -2 times the Danskin gradient of the SVM dual value of
    paper E's (14): ``dV/dgamma_j = 1/2 sum_il a_i a_l y_i y_l K_il d_ilj``.
    """
    if K is None:
        K = anisotropic_rbf_kernel(X, weights=gamma)
    return -pair_sq_diff_sum(X, np.asarray(W, dtype=np.float64) * K)
