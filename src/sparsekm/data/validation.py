"""Checks and conversions shared by the loaders: feature types, missing values, shapes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from sparsekm.declare import mention

from .dataset import Dataset
from .errors import DataError
from .labels import label_map, to_pm1

__all__ = ["MISSING_MODES", "as_dataset", "build_dataset", "check_missing_mode"]

MISSING_MODES = ("drop", "zero", "error")
DROP_HINT = "<<drop those columns>>"   # in a fix: the drop_columns of the columns named
FIXES = {"non_numeric": "one-hot encode them (pandas.get_dummies) or drop them",
         "missing": "drop or impute them, or give "
                    f"{mention('missing', 'drop', repr('drop'))}"}


def check_missing_mode(missing: str) -> str:
    """Return ``missing`` if it is a known mode, else raise :class:`DataError`."""
    if missing not in MISSING_MODES:
        raise DataError(
            f"{mention('missing', str(missing), repr(missing))} is not a known mode; use one "
            f"of {list(MISSING_MODES)}"
        )
    return missing


def _names(columns: Sequence[Any], limit: int = 10) -> str:
    shown = ", ".join(str(c) for c in columns[:limit])
    return shown + (f", ... ({len(columns)} in all)" if len(columns) > limit else "")


def _numeric_frame(frame: pd.DataFrame, fix: str) -> np.ndarray:
    """Convert a feature frame to float64, refusing non-numeric columns by name."""
    bad = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c].dtype)]
    # object columns that hold only numbers (e.g. from a list of lists) are fine
    still_bad = []
    for c in bad:
        col = frame[c]
        conv = pd.to_numeric(col, errors="coerce")
        if (conv.isna() & col.notna()).any():
            still_bad.append(c)
        else:
            frame[c] = conv
    if still_bad:
        cols = [str(c) for c in still_bad]
        raise DataError(f"non-numeric feature columns: {_names(still_bad)}; " + fix.replace(
            DROP_HINT, mention("drop_columns", ",".join(cols), repr(cols))))
    if any(pd.api.types.is_complex_dtype(frame[c].dtype) for c in frame.columns):
        raise DataError("complex-valued features are not supported; pass real numbers")
    # np.array copies: to_numpy may return a read-only view under copy-on-write
    return np.array(frame.to_numpy(dtype=np.float64, na_value=np.nan), order="C")


def _to_2d(X: Any) -> tuple[np.ndarray | pd.DataFrame, list[str] | None]:
    """Return X as an ndarray or DataFrame plus the column names it carries (if any)."""
    if isinstance(X, pd.DataFrame):
        return X, [str(c) for c in X.columns]
    if isinstance(X, pd.Series):
        return X.to_frame(), [str(X.name) if X.name is not None else "x0"]
    if hasattr(X, "toarray") and not isinstance(X, np.ndarray):  # scipy.sparse
        X = X.toarray()
    arr = np.asarray(X)
    if arr.ndim != 2:
        raise DataError(
            f"X must be 2-D (m samples x n features), got shape {arr.shape}; "
            "use X.reshape(-1, 1) for a single feature"
        )
    return arr, None


def build_dataset(
    X: np.ndarray | pd.DataFrame,
    y: Any,
    *,
    feature_names: Sequence[str] | None,
    positive_class: Any,
    missing: str,
    name: str,
    label_raw: Any = None,
    fixes: dict[str, str] | None = None,
) -> Dataset:
    """Check, clean and assemble a :class:`Dataset` (the common core of all loaders).

    Parameters
    ----------
    X : ndarray or DataFrame of shape (m, n)
        Features.
    y : array-like of shape (m,)
        Labels of any type, mapped with :func:`~sparsekm.data.labels.to_pm1`.
    feature_names : sequence of str or None
        Column names.
    positive_class : optional
        Class mapped to +1.
    missing : {"drop", "zero", "error"}
        What to do with NaN/inf feature values and missing labels.
    name : str
        Stored on the result (a citation is set by the caller with ``dataclasses.replace``).
    label_raw : array-like of shape (m,), optional
        Original labels, kept (and row-filtered) alongside ``y``.
    fixes : dict, optional
        The "how to fix" part of the error messages on ``"non_numeric"`` columns and
        ``"missing"`` values (defaults in :data:`FIXES`).

    Returns
    -------
    Dataset
    """
    check_missing_mode(missing)
    fix = {**FIXES, **(fixes or {})}
    non_numeric_fix, missing_fix = fix["non_numeric"], fix["missing"]
    m, n = X.shape
    if m == 0 or n == 0:
        raise DataError(
            f"{name}: empty data ({m} rows, {n} columns); pass at least one sample and one "
            "feature"
        )
    if feature_names is None:
        feature_names = (
            [str(c) for c in X.columns] if isinstance(X, pd.DataFrame)
            else [f"x{j}" for j in range(n)]
        )
    feature_names = [str(c) for c in feature_names]
    if len(feature_names) != n:
        raise DataError(
            f"{name}: X has {n} columns but {len(feature_names)} feature names were given; "
            "pass one name per column"
        )
    if isinstance(X, pd.DataFrame):
        frame = X.copy()
        frame.columns = feature_names
        Xf = _numeric_frame(frame, non_numeric_fix)
    elif X.dtype.kind in "biuf":
        Xf = np.array(X, dtype=np.float64, order="C")
    elif X.dtype.kind == "c":
        raise DataError(f"{name}: complex-valued features are not supported; pass real numbers")
    else:
        Xf = _numeric_frame(pd.DataFrame(X, columns=feature_names), non_numeric_fix)

    if isinstance(y, pd.DataFrame):
        if y.shape[1] != 1:
            raise DataError(
                f"{name}: y has {y.shape[1]} columns; pass a single label column"
            )
        y = y.iloc[:, 0]
    if isinstance(y, pd.Series):
        y_ser = y.reset_index(drop=True)
    else:
        y_arr = np.asarray(y)
        if y_arr.ndim == 2 and 1 in y_arr.shape:
            y_arr = y_arr.reshape(-1)
        if y_arr.ndim != 1:
            raise DataError(
                f"{name}: y must be 1-D, got shape {y_arr.shape}; pass one label per row of X"
            )
        y_ser = pd.Series(y_arr)
    if len(y_ser) != m:
        raise DataError(
            f"{name}: X has {m} rows but y has {len(y_ser)} labels; pass one label per row of X"
        )
    raw = None if label_raw is None else np.asarray(label_raw).reshape(-1)
    if raw is not None and raw.shape[0] != m:
        raise DataError(f"{name}: label_raw has {raw.shape[0]} entries for {m} rows")

    bad = ~np.isfinite(Xf)
    n_bad = int(bad.sum())
    y_missing = y_ser.isna().to_numpy()
    if missing == "drop":
        keep = ~(bad.any(axis=1) | y_missing)
        if not keep.all():
            Xf = np.ascontiguousarray(Xf[keep])
            y_ser = y_ser[keep].reset_index(drop=True)
            raw = None if raw is None else raw[keep]
        if Xf.shape[0] == 0:
            raise DataError(
                f"{name}: every row has a missing value, so "
                f"{mention('missing', 'drop', repr('drop'))} leaves no data; impute the "
                f"values or give {mention('missing', 'zero', repr('zero'))}"
            )
    elif n_bad:
        if missing == "zero":
            Xf[np.isnan(Xf)] = 0.0
            bad = ~np.isfinite(Xf)
            n_bad = int(bad.sum())
        if n_bad:
            cols = [feature_names[j] for j in np.flatnonzero(bad.any(axis=0))]
            what = "inf" if missing == "zero" else "NaN/inf"
            raise DataError(
                f"{name}: X contains {n_bad} {what} values (columns: {_names(cols)}); "
                f"{missing_fix}"
            )
    y_pm1, _ = to_pm1(y_ser, positive_class, what=f"{name}: y")
    return Dataset(
        X=Xf, y=y_pm1, feature_names=feature_names, name=name, label_raw=raw,
        labels=label_map(y_ser, y_pm1),
    )


def as_dataset(
    X: Any,
    y: Any,
    *,
    feature_names: Sequence[str] | None = None,
    positive_class: Any = None,
    name: str = "data",
    missing: str = "error",
    citation: str = "",
) -> Dataset:
    """Build a :class:`Dataset` from arrays or pandas objects.

    Parameters
    ----------
    X : array-like or DataFrame of shape (m, n)
        Numeric features; DataFrame column names become the feature names.
        Rows are matched to ``y`` by position, not by index.
    y : array-like or Series of shape (m,)
        Labels of any type. Two classes: the larger (numbers numerically, strings
        alphabetically, so "M" over "B") or ``positive_class`` becomes +1. More classes
        need ``positive_class`` (one-vs-rest).
    feature_names : sequence of str, optional
        Overrides the DataFrame column names; default ``x0, x1, ...`` for arrays.
    positive_class : optional
        The class mapped to +1.
    name : str
        Name of the data set.
    missing : {"error", "drop", "zero"}
        NaN/inf handling: refuse (default), drop those rows, or set NaN to 0.
    citation : str
        Stored on the result.

    Returns
    -------
    Dataset

    Raises
    ------
    DataError
        Empty or non-numeric data, NaN/inf with ``missing="error"``, shape mismatch, or
        labels that cannot be mapped to {-1, +1}.
    """
    X2, names = _to_2d(X)
    ds = build_dataset(
        X2, y,
        feature_names=feature_names if feature_names is not None else names,
        positive_class=positive_class, missing=missing, name=name,
    )
    return replace(ds, citation=citation) if citation else ds
