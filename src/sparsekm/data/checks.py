"""The one check of training arrays shared by every problem: X finite 2-D, y in {-1, +1}."""

from __future__ import annotations

from typing import Any

import numpy as np

from sparsekm.declare import mention

from .errors import DataError

__all__ = ["check_labels", "check_xy"]


def check_labels(y: Any, m: int | None = None) -> np.ndarray:
    """``y`` as a float array of -1/+1 holding both classes (``m`` labels when given).

    Raises :class:`DataError` (a ``ValueError``) naming the fix.
    """
    ya = np.asarray(y)
    if ya.ndim != 1 or (m is not None and ya.shape[0] != m):
        want = f"of length {m}" if m is not None else ""
        raise DataError(f"y must be a 1-D array {want} (one label per sample), got shape "
                        f"{ya.shape}")
    if ya.dtype == bool or not np.issubdtype(ya.dtype, np.number):
        raise DataError(f"y must hold the numbers -1 and +1, got dtype {ya.dtype}; map the "
                        "labels with sparsekm.data.as_dataset (or np.where(y == pos, 1, -1))")
    yf = ya.astype(np.float64)
    bad = ~((yf == 1.0) | (yf == -1.0))
    if np.any(bad):
        raise DataError(f"y must hold only -1 and +1, found {np.unique(yf[bad])[:5]}; map the "
                        "labels with sparsekm.data.as_dataset (or np.where(y > 0, 1, -1))")
    if np.all(yf == 1.0) or np.all(yf == -1.0):
        raise DataError(f"y holds one class only ({int(yf[0]):+d}); a classifier needs both "
                        "-1 and +1 among the training rows")
    return yf


def check_xy(X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """Float ``X`` (m x n, finite, m >= 2, n >= 1) and ``y`` (see :func:`check_labels`)."""
    Xa = np.asarray(X, dtype=np.float64)
    if Xa.ndim != 2 or Xa.shape[0] < 2 or Xa.shape[1] < 1:
        raise DataError(f"X must be a 2-D array (m samples x n features) with m >= 2 and "
                        f"n >= 1, got shape {Xa.shape}")
    if not np.all(np.isfinite(Xa)):
        raise DataError("X contains NaN or inf; impute or drop those entries first (a file "
                        f"loaded with {mention('missing', 'drop', repr('drop'))} or "
                        f"{mention('missing', 'zero', repr('zero'))})")
    return Xa, check_labels(y, Xa.shape[0])
