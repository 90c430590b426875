"""Feature masks and the per-feature terms of masked kernels (Paper A, Section 2.2)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .functions import _as_2d, canonical_kernel_name

__all__ = ["feature_terms", "mask_from_indices"]


def mask_from_indices(idx: Any, n: int) -> np.ndarray:
    """Boolean mask of length ``n`` selecting the feature indices ``idx``."""
    idx = np.asarray(idx, dtype=np.int64).ravel()
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise ValueError(f"feature indices must lie in [0, {n - 1}], got {idx.tolist()}")
    mask = np.zeros(n, dtype=bool)
    mask[idx] = True
    return mask


def feature_terms(X: Any, kernel: str) -> np.ndarray:
    """Per-feature terms g_j of a masked kernel as an (n, m, m) array (Paper A, Section 2.2).

    ``g_j = x_j x_j'`` for ``"poly"`` (K_beta = (gamma sum_j beta_j g_j + c)^d) and
    ``g_j = (x_ij - x_hj)^2`` for ``"rbf"`` (K_beta = exp(-gamma sum_j beta_j g_j)); the
    gradients in beta of paper A's relaxation and its set functions F, H read them. O(n m^2)
    memory: meant for the support vectors or small m.
    """
    Xa = _as_2d(X, "X")
    name = canonical_kernel_name(kernel)
    if name == "poly":
        return np.einsum("ij,hj->jih", Xa, Xa)
    if name == "rbf":
        d = Xa[:, None, :] - Xa[None, :, :]
        return np.moveaxis(d * d, 2, 0).copy()
    raise ValueError(f"feature_terms supports 'poly' and 'rbf', got {kernel!r}")
