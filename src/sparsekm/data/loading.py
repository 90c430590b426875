"""Reading data: the bundled data sets (`load_dataset`) and any CSV file (`load_csv`)."""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .dataset import Dataset
from .errors import DataError
from .registry import get_spec
from .validation import build_dataset, check_missing_mode

__all__ = ["load_csv", "load_dataset"]

LABEL_RAW = "label_raw"


def _read_csv(source: Any, what: str, **kwargs: Any) -> pd.DataFrame:
    try:
        return pd.read_csv(source, **kwargs)
    except pd.errors.EmptyDataError as exc:
        raise DataError(f"{what} is empty (no header, no rows); pass a CSV file with data") from exc
    except pd.errors.ParserError as exc:
        raise DataError(
            f"{what} is not a well-formed CSV file ({exc}); check the separator and quoting"
        ) from exc


def _split_frame(
    frame: pd.DataFrame, label: str, drop_columns: Iterable[str], what: str
) -> tuple[pd.DataFrame, pd.Series, np.ndarray | None]:
    """Separate features, the label column and an optional ``label_raw`` column."""
    columns = [str(c) for c in frame.columns]
    frame = frame.set_axis(columns, axis=1)
    if label not in columns:
        close = difflib.get_close_matches(str(label), columns, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        shown = ", ".join(columns[:30]) + (" ..." if len(columns) > 30 else "")
        raise DataError(
            f"{what} has no label column {label!r}{hint}; its columns are: {shown}; "
            "pass label=<column name> (CLI: --label)"
        )
    drop = [str(c) for c in drop_columns]
    unknown = [c for c in drop if c not in columns]
    if unknown:
        raise DataError(
            f"drop_columns {unknown} (CLI: --drop-columns) not found in {what}; columns are: "
            f"{', '.join(columns[:30])}; remove them from drop_columns"
        )
    y = frame[label]
    raw = None
    if label != LABEL_RAW and LABEL_RAW in columns and LABEL_RAW not in drop:
        raw = frame[LABEL_RAW].to_numpy()
        drop.append(LABEL_RAW)
    features = frame.drop(columns=[label, *drop])
    return features, y, raw


def load_csv(
    path: str | os.PathLike[str],
    label: str = "label",
    *,
    positive_class: Any = None,
    missing: str = "error",
    drop_columns: Iterable[str] = (),
) -> Dataset:
    """Load a binary classification data set from a CSV file (``.csv`` or ``.csv.gz``).

    Parameters
    ----------
    path : str or path-like
        File with a header row; one row per sample.
    label : str
        Name of the label column. Labels are mapped to {-1, +1} as in
        :func:`~sparsekm.data.as_dataset`.
    positive_class : optional
        Class mapped to +1 (required for more than two classes: one-vs-rest).
    missing : {"error", "drop", "zero"}
        Empty cells / NaN / inf: refuse (default), drop those rows, or set NaN to 0.
    drop_columns : iterable of str
        Columns to ignore (ids, text, ...).

    Returns
    -------
    Dataset
        Named after the file stem. A column named ``label_raw`` (the format of the bundled
        files) is kept as ``Dataset.label_raw``, not used as a feature.

    Raises
    ------
    DataError
        Missing label column (lists the columns), non-numeric features (named), NaN/inf
        with ``missing="error"``, empty data, or labels that cannot be mapped.
    """
    check_missing_mode(missing)
    p = Path(path)
    name = p.name.removesuffix(".gz").removesuffix(".csv") or "data"
    frame = _read_csv(p, f"file {str(p)!r}")
    features, y, raw = _split_frame(frame, label, drop_columns, f"file {p.name!r}")
    return build_dataset(
        features, y, feature_names=None, positive_class=positive_class, missing=missing,
        name=name, label_raw=raw,
        fixes={"non_numeric": "one-hot encode them (pandas.get_dummies) and save the file "
               "again, or pass drop_columns=[...] (CLI: --drop-columns A,B) to ignore them"},
    )


def load_dataset(name: str, *, missing: str = "drop", drop_constant: bool = False) -> Dataset:
    """Load one of the bundled data sets (see :func:`list_datasets`).

    Parameters
    ----------
    name : str
        Data set name, e.g. ``"breast_cancer_diagnostic"``.
    missing : {"drop", "zero", "error"}
        Empty cells (only in heart, breast_cancer_prognostic, mammographic): ``"drop"``
        the rows that have one (default; heart -> 297 rows), set them to ``"zero"``
        (paper B's loader convention; heart -> 303 rows), or raise (``"error"``).
    drop_constant : bool
        Remove columns that are constant over the loaded rows (e.g. ionosphere's ``a2``,
        giving the 33-feature version of papers A and D).

    Returns
    -------
    Dataset
        Raw (unscaled) features, labels in {-1, +1}, the MANIFEST citation and, where the
        source was multiclass, ``label_raw``.

    Raises
    ------
    DataError
        Unknown name (the message lists the available names and suggests a close one),
        or missing values with ``missing="error"``.
    """
    check_missing_mode(missing)
    spec = get_spec(name)
    resource = resources.files(__package__).joinpath("datasets", spec.file)
    compression = "gzip" if spec.file.endswith(".gz") else None
    with resource.open("rb") as handle:
        frame = _read_csv(handle, f"bundled file {spec.file!r}", compression=compression)
    features, y, raw = _split_frame(frame, "label", (), f"bundled file {spec.file!r}")
    ds = build_dataset(
        features, y, feature_names=None, positive_class=1, missing=missing, name=spec.name,
        label_raw=raw,
        fixes={"missing": "pass missing='drop' (default) to drop those rows or missing='zero' "
               "(CLI: --missing drop|zero)"},
    )
    ds = replace(ds, citation=spec.citation)
    if drop_constant:
        X = ds.X
        keep = np.flatnonzero(X.max(axis=0) != X.min(axis=0))
        if keep.size < ds.n:
            ds = ds.subset_features(keep)
    return ds
