"""The :class:`Dataset` container: a binary classification problem with labels in {-1, +1}."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .errors import DataError

__all__ = ["Dataset"]


@dataclass(frozen=True, eq=False, repr=False)
class Dataset:
    """A binary classification data set.

    Parameters
    ----------
    X : ndarray of shape (m, n)
        Features; stored as float64, C-contiguous.
    y : ndarray of shape (m,)
        Labels; stored as float64 with every value in {-1., +1.}.
    feature_names : list of str
        One name per column of ``X``; defaults to ``x0, x1, ...`` when empty.
    name : str
        Short name of the data set.
    citation : str, optional
        Where the data come from.
    label_raw : ndarray of shape (m,), optional
        The original (e.g. multiclass) label, kept for re-binarisation.
    labels : dict, optional
        How the loader mapped the original classes to {-1, +1}: ``{"M": 1, "B": -1}`` (the
        class mapped to +1 first; keys are the classes as text). Set by the loaders and
        ``as_dataset``; None for a data set built from {-1, +1} directly.

    Notes
    -----
    The constructor only checks and converts; it does not map labels. Use
    :func:`sparsekm.data.as_dataset` to build a data set from arbitrary labels. Empty data
    sets (0 rows or 0 columns) are allowed here (e.g. after selecting no feature); the
    loaders refuse them.
    An ``X`` that is already float64 and C-contiguous is stored without a copy; the
    loaders, ``as_dataset`` and the ``subset_*`` methods always return fresh arrays.
    """

    X: np.ndarray
    y: np.ndarray
    feature_names: list[str] = field(default_factory=list)
    name: str = "data"
    citation: str = ""
    label_raw: np.ndarray | None = None
    labels: dict[str, int] | None = None

    def __post_init__(self) -> None:
        try:
            X = np.ascontiguousarray(self.X, dtype=np.float64)
            y = np.asarray(self.y, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise DataError(
                f"Dataset X and y must be numeric arrays ({exc}); convert them first or use "
                "as_dataset(X, y), which maps labels and checks feature types"
            ) from exc
        if X.ndim != 2:
            raise DataError(
                f"Dataset X must be 2-D (m x n), got shape {X.shape}; "
                "use X.reshape(-1, 1) for a single feature"
            )
        if y.ndim != 1:
            y = y.reshape(-1) if y.ndim == 2 and 1 in y.shape else y
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise DataError(
                f"Dataset X has {X.shape[0]} rows but y has shape {y.shape}; "
                "pass one label per row of X"
            )
        bad = ~((y == 1.0) | (y == -1.0))
        if bad.any():
            vals = np.unique(y[bad])[:5].tolist()
            raise DataError(
                f"Dataset y must hold only -1 and +1, found {vals}; "
                "use as_dataset(X, y, positive_class=...) to map labels to {-1, +1}"
            )
        names = list(self.feature_names) if self.feature_names is not None else []
        if not names:
            names = [f"x{j}" for j in range(X.shape[1])]
        names = [str(v) for v in names]
        if len(names) != X.shape[1]:
            raise DataError(
                f"Dataset has {X.shape[1]} columns but {len(names)} feature names; "
                "pass one name per column (or none for x0, x1, ...)"
            )
        label_raw = self.label_raw
        if label_raw is not None:
            label_raw = np.asarray(label_raw)
            if label_raw.shape != (X.shape[0],):
                raise DataError(
                    f"Dataset label_raw has shape {label_raw.shape}, expected ({X.shape[0]},); "
                    "pass one raw label per row or label_raw=None"
                )
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "feature_names", names)
        object.__setattr__(self, "label_raw", label_raw)

    @property
    def m(self) -> int:
        """Number of samples (rows)."""
        return int(self.X.shape[0])

    @property
    def n(self) -> int:
        """Number of features (columns)."""
        return int(self.X.shape[1])

    @property
    def positive_fraction(self) -> float:
        """Fraction of samples labelled +1 (NaN for an empty data set)."""
        return float(np.mean(self.y == 1.0)) if self.m else float("nan")

    def subset_rows(self, idx: Any) -> Dataset:
        """Return the data set restricted to some rows.

        Parameters
        ----------
        idx : array-like of int or bool
            Row indices, or a boolean mask of length ``m``.

        Returns
        -------
        Dataset
            A new data set (arrays are copies).
        """
        rows = _as_index(idx, self.m, "rows")
        raw = None if self.label_raw is None else self.label_raw[rows]
        return replace(self, X=self.X[rows], y=self.y[rows], label_raw=raw)

    def subset_features(self, idx: Any) -> Dataset:
        """Return the data set restricted to some features.

        Parameters
        ----------
        idx : array-like of int, bool or str
            Column indices, a boolean mask of length ``n``, or feature names.

        Returns
        -------
        Dataset
            A new data set with the selected columns and their names, in the given order.
        """
        if isinstance(idx, str):
            idx = [idx]
        arr = np.asarray(idx)
        if arr.size and arr.dtype.kind in "UO" and isinstance(arr.flat[0], str):
            idx = arr.reshape(-1).tolist()
            pos = {nm: j for j, nm in enumerate(self.feature_names)}
            unknown = [str(v) for v in idx if v not in pos]
            if unknown:
                raise DataError(
                    f"unknown feature names {unknown}; use names from feature_names "
                    f"(first ones: {self.feature_names[:5]})"
                )
            idx = [pos[v] for v in idx]
        cols = _as_index(idx, self.n, "features")
        names = [self.feature_names[j] for j in cols]
        return replace(self, X=self.X[:, cols], feature_names=names)

    def head(self, rows: int = 5) -> Dataset:
        """Return the first ``rows`` samples."""
        return self.subset_rows(np.arange(min(max(int(rows), 0), self.m)))

    def __repr__(self) -> str:
        pos = self.positive_fraction
        return (
            f"Dataset(name={self.name!r}, m={self.m}, n={self.n}, "
            f"positive_fraction={pos:.3f})"
        )


def _as_index(idx: Any, size: int, what: str) -> np.ndarray:
    """Turn integer indices or a boolean mask into an int64 index array."""
    arr = np.asarray(idx)
    if arr.dtype == bool:
        if arr.shape != (size,):
            raise DataError(
                f"boolean mask for {what} has shape {arr.shape}, expected ({size},); "
                f"pass one True/False per {what[:-1]}"
            )
        return np.flatnonzero(arr)
    arr = arr.reshape(-1)
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if not np.issubdtype(arr.dtype, np.integer):
        raise DataError(
            f"indices for {what} must be integers or a boolean mask, got dtype {arr.dtype}; "
            "convert them with np.asarray(idx, dtype=int)"
        )
    if arr.min() < -size or arr.max() >= size:
        raise DataError(
            f"index out of range for {size} {what} (min {arr.min()}, max {arr.max()}); "
            f"use indices in [0, {size - 1}]"
        )
    return arr.astype(np.int64) % size if size else arr.astype(np.int64)
