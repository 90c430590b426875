"""Reading data: the bundled data sets (`load_dataset`) and your own files (`load_csv`: a CSV
file with a comma, semicolon or tab, or an svmlight / LIBSVM file; `load_svmlight`)."""

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

from sparsekm.declare import mention

from .dataset import Dataset
from .errors import DataError, DataFileError
from .files import (
    CsvDialect,
    check_data_path,
    data_stem,
    duplicate_names,
    file_format,
    head_lines,
    header_names,
    looks_like_path,
    read_svmlight,
    sniff_csv,
)
from .registry import get_spec, list_datasets
from .validation import DROP_HINT, build_dataset, check_missing_mode

__all__ = ["load_csv", "load_dataset", "load_svmlight"]

LABEL_RAW = "label_raw"


def _read_csv(source: Any, what: str, **kwargs: Any) -> pd.DataFrame:
    try:
        return pd.read_csv(source, **kwargs)
    except pd.errors.EmptyDataError as exc:
        raise DataError(f"{what} is empty (no header, no rows); pass a CSV file with data") from exc
    except UnicodeDecodeError as exc:
        raise DataError(f"{what} is not UTF-8 text ({exc.reason}); save it as UTF-8") from exc
    except pd.errors.ParserError as exc:
        text = " ".join(str(exc).split())  # one line
        raise DataError(
            f"{what} is not a well-formed CSV file ({text}); check the separator and quoting"
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
            f"name the label column with {mention('label', 'NAME', repr('NAME'))}"
        )
    drop = [str(c) for c in drop_columns]
    unknown = [c for c in drop if c not in columns]
    if unknown:
        raise DataError(
            f"{mention('drop_columns', ','.join(unknown), repr(unknown))}: not found in {what}; "
            f"columns are: {', '.join(columns[:30])}; remove them from "
            f"{mention('drop_columns')}"
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
    """Load a binary classification data set from a file: a CSV file (``.csv``, ``.csv.gz``,
    ...) separated by commas, semicolons or tabs (sniffed from its first lines), or an
    svmlight / LIBSVM file (read by :func:`load_svmlight`).

    Parameters
    ----------
    path : str or path-like
        A CSV file with a header row and one row per sample; or an svmlight file, told by its
        suffix (``.svm``, ``.svmlight``, ``.libsvm``, ``.t``, optionally ``.gz``, ``.bz2``
        or ``.xz``) or by lines reading ``label index:value ...``.
    label : str
        Name of the label column (CSV only: an svmlight file has its label first on every
        line). Labels are mapped to {-1, +1} as in :func:`~sparsekm.data.as_dataset`.
    positive_class : optional
        Class mapped to +1 (required for more than two classes: one-vs-rest).
    missing : {"error", "drop", "zero"}
        Empty cells / NaN / inf: refuse (default), drop those rows, or set NaN to 0.
    drop_columns : iterable of str
        Columns to ignore (ids, text, ...); in an svmlight file ``x1, x2, ...``.

    Returns
    -------
    Dataset
        Named after the file stem. A column named ``label_raw`` (the format of the bundled
        files) is kept as ``Dataset.label_raw``, not used as a feature.

    Raises
    ------
    DataFileError
        (a :class:`DataError` and a :class:`~sparsekm.declare.ParamError` of ``data``) A
        directory or a missing file given as ``path``, duplicate column names (named), a
        malformed svmlight file, ``label`` given for an svmlight file.
    DataError
        Missing label column (lists the columns), non-numeric features (named), NaN/inf
        with ``missing="error"``, empty data, or labels that cannot be mapped.
    """
    check_missing_mode(missing)
    p = check_data_path(path)
    lines = head_lines(p)
    if file_format(p, lines) == "svmlight":
        if label != "label":
            raise DataFileError(label, f"{path} is an svmlight file (its label is the first "
                                       "number of each line): give no label column",
                                name="label")
        return load_svmlight(p, positive_class=positive_class, missing=missing,
                             drop_columns=drop_columns)
    dialect = sniff_csv(lines)
    dups = duplicate_names(header_names(lines, dialect))
    if dups:
        shown = ", ".join(repr(d) for d in dups[:10]) + (" ..." if len(dups) > 10 else "")
        raise DataFileError(path, f"duplicate column names {shown} (pandas would silently "
                                  f"rename the second {dups[0]!r} to '{dups[0]}.1'); rename "
                                  "the columns so that each name occurs once")
    frame = _read_csv(p, f"file {str(p)!r}", **_read_options(dialect))
    features, y, raw = _split_frame(frame, label, drop_columns, f"file {p.name!r}")
    return build_dataset(
        features, y, feature_names=None, positive_class=positive_class, missing=missing,
        name=data_stem(p), label_raw=raw,
        fixes={"non_numeric": "one-hot encode them (pandas.get_dummies) and save the file "
               f"again, or leave them out with {DROP_HINT}"},
    )


def _read_options(dialect: CsvDialect) -> dict[str, Any]:
    """``pandas.read_csv`` keywords of a sniffed dialect (none for a plain comma CSV)."""
    out: dict[str, Any] = {}
    if dialect.sep != ",":
        out["sep"] = dialect.sep
    if dialect.decimal != ".":
        out["decimal"] = dialect.decimal
    return out


def load_svmlight(
    path: str | os.PathLike[str],
    *,
    positive_class: Any = None,
    missing: str = "error",
    drop_columns: Iterable[str] = (),
) -> Dataset:
    """Load a binary classification data set from an svmlight / LIBSVM file (lines
    ``label index:value index:value ...``; ``.gz``, ``.bz2``, ``.xz`` read as such).

    Features are named after their index in the file (``x1, x2, ...``; ``x0, ...`` when the
    file uses index 0); absent entries are 0; the number of features is the largest index.
    Labels are mapped to {-1, +1} as in :func:`load_csv`: two classes (the larger is +1) or
    ``positive_class`` against the rest. ``missing`` and ``drop_columns`` as in
    :func:`load_csv`. Raises :class:`DataFileError` for a directory, a missing file or a
    malformed line.
    """
    check_missing_mode(missing)
    p = check_data_path(path)
    X, y, names = read_svmlight(p)
    frame = pd.DataFrame(X, columns=names)
    frame["label"] = y  # the features are x0, x1, ...: no clash
    features, labels, _ = _split_frame(frame, "label", drop_columns, f"file {p.name!r}")
    return build_dataset(
        features.to_numpy(), labels, feature_names=list(features.columns),
        positive_class=positive_class, missing=missing, name=data_stem(p),
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
    if name not in list_datasets():
        if Path(name).is_dir():
            raise DataFileError(name, "is a directory; give a CSV or svmlight file")
        if looks_like_path(name):
            check_data_path(name)  # a path that is not a readable file: says why
            raise DataError(f"{name!r} is a file, not a bundled dataset; load it with "
                            "load_csv (CSV or svmlight)")
    spec = get_spec(name)
    resource = resources.files(__package__).joinpath("datasets", spec.file)
    compression = "gzip" if spec.file.endswith(".gz") else None
    with resource.open("rb") as handle:
        frame = _read_csv(handle, f"bundled file {spec.file!r}", compression=compression)
    features, y, raw = _split_frame(frame, "label", (), f"bundled file {spec.file!r}")
    ds = build_dataset(
        features, y, feature_names=None, positive_class=1, missing=missing, name=spec.name,
        label_raw=raw,
        fixes={"missing": f"give {mention('missing', 'drop', repr('drop'))} (the default) to "
               f"drop those rows, or {mention('missing', 'zero', repr('zero'))}"},
    )
    ds = replace(ds, citation=spec.citation)
    if drop_constant:
        X = ds.X
        keep = np.flatnonzero(X.max(axis=0) != X.min(axis=0))
        if keep.size < ds.n:
            ds = ds.subset_features(keep)
    return ds
