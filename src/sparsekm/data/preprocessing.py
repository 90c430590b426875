"""Feature scaling fitted on training rows only."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, TypeVar

import numpy as np

from .dataset import Dataset
from .errors import DataError

__all__ = ["SCALER_METHODS", "Scaler"]

SCALER_METHODS = ("none", "standard", "minmax01", "minmax11")

_Data = TypeVar("_Data", np.ndarray, Dataset)


class Scaler:
    """Per-feature affine scaling ``(X - offset_) / scale_``.

    Parameters
    ----------
    method : {"none", "standard", "minmax01", "minmax11"}
        ``"standard"``: zero mean, unit (population) standard deviation;
        ``"minmax01"``: training range to [0, 1]; ``"minmax11"``: training range to
        [-1, 1]; ``"none"``: identity.

    Attributes
    ----------
    offset_, scale_ : ndarray of shape (n,)
        Set by :meth:`fit`. Constant training columns get ``scale_ = 1`` (never NaN), so
        they map to 0 (standard, minmax01, minmax11).

    Notes
    -----
    Fit on the training rows only and apply the same statistics to the test rows, so no
    test information leaks into training. ``fit`` and ``transform`` accept an array or a
    :class:`Dataset` (``transform`` then returns a Dataset with scaled ``X``).
    """

    def __init__(self, method: str = "standard") -> None:
        if method not in SCALER_METHODS:
            raise DataError(
                f"unknown scaling method {method!r}; use one of {list(SCALER_METHODS)}"
            )
        self.method = method
        self.offset_: np.ndarray | None = None
        self.scale_: np.ndarray | None = None

    def __repr__(self) -> str:
        return f"Scaler(method={self.method!r})"

    @staticmethod
    def _array(X: Any) -> np.ndarray:
        arr = np.asarray(X.X if isinstance(X, Dataset) else X, dtype=np.float64)
        if arr.ndim != 2:
            raise DataError(
                f"Scaler needs a 2-D array (m x n), got shape {arr.shape}; "
                "use X.reshape(-1, 1) for a single feature"
            )
        return arr

    def fit(self, X: np.ndarray | Dataset) -> Scaler:
        """Compute the per-feature offset and scale from (training) data.

        Parameters
        ----------
        X : ndarray of shape (m, n) or Dataset
            Training rows only; must be finite and non-empty.

        Returns
        -------
        Scaler
            ``self``.
        """
        arr = self._array(X)
        if arr.shape[0] == 0:
            raise DataError("Scaler.fit got 0 rows; fit on at least one training sample")
        if not np.isfinite(arr).all():
            raise DataError(
                f"Scaler.fit got {int((~np.isfinite(arr)).sum())} NaN/inf values; "
                "drop or impute them before scaling"
            )
        n = arr.shape[1]
        if self.method == "none":
            offset, scale = np.zeros(n), np.ones(n)
        elif self.method == "standard":
            offset, scale = arr.mean(axis=0), arr.std(axis=0)
        else:
            lo, hi = arr.min(axis=0), arr.max(axis=0)
            if self.method == "minmax01":
                offset, scale = lo, hi - lo
            else:
                offset, scale = (hi + lo) / 2.0, (hi - lo) / 2.0
        scale = np.where(scale > 0.0, scale, 1.0)
        self.offset_, self.scale_ = offset, scale
        return self

    def transform(self, X: _Data) -> _Data:
        """Scale data with the fitted statistics.

        Parameters
        ----------
        X : ndarray of shape (k, n) or Dataset
            Any rows (training or test) with the training columns.

        Returns
        -------
        ndarray or Dataset
            Same type as ``X``; a new float64 array.
        """
        if self.offset_ is None or self.scale_ is None:
            raise DataError("this Scaler is not fitted yet; call fit(X_train) first")
        arr = self._array(X)
        if arr.shape[1] != self.offset_.shape[0]:
            raise DataError(
                f"Scaler was fitted on {self.offset_.shape[0]} features but X has "
                f"{arr.shape[1]}; transform data with the training columns"
            )
        out = np.ascontiguousarray((arr - self.offset_) / self.scale_)
        return replace(X, X=out) if isinstance(X, Dataset) else out

    def fit_transform(self, X: _Data) -> _Data:
        """Fit on ``X`` and return it scaled (use for the training rows only)."""
        return self.fit(X).transform(X)

    def inverse_transform(self, X: np.ndarray) -> np.ndarray:
        """Map scaled values back to the original units."""
        if self.offset_ is None or self.scale_ is None:
            raise DataError("this Scaler is not fitted yet; call fit(X_train) first")
        return np.asarray(X, dtype=np.float64) * self.scale_ + self.offset_
