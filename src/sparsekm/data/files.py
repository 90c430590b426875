"""Data files: which format a file is in (CSV with its delimiter, or svmlight / LIBSVM), the
checks made before reading it, and the svmlight reader.

A file is svmlight when its name ends in ``.svm``, ``.svmlight``, ``.libsvm`` or ``.t`` (the
LIBSVM test sets, ``a1a.t``), optionally compressed (``.gz``, ``.bz2``, ``.xz``), or when its
first lines read ``label index:value ...``; anything else is a CSV whose delimiter (comma,
semicolon or tab) is sniffed from its header and first rows. A semicolon file whose numbers
use a decimal comma (``1,5;2,25``) is read with ``decimal=","``.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import lzma
import os
import re
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from .errors import DataFileError

__all__ = ["SVMLIGHT_SUFFIXES", "CsvDialect", "DataWarning", "check_data_path", "data_stem",
           "duplicate_names", "file_format", "head_lines", "header_names", "looks_like_path",
           "read_svmlight", "sniff_csv"]

SVMLIGHT_SUFFIXES = (".svm", ".svmlight", ".libsvm", ".t")
DENSE_MAX_BYTES = 4 * 2**30   # the largest dense matrix an svmlight file may become


class DataWarning(UserWarning):
    """A data file was read with a change the user should know of (one line)."""
CSV_SUFFIXES = (".csv", ".tsv", ".txt", ".data", ".dat")
_OPEN: dict[str, Callable[..., Any]] = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
DELIMITERS = (",", ";", "\t")
HEAD_LINES = 50
FIX = "give a CSV or svmlight file"

_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf|nan)"
_LABEL = re.compile(rf"^(?:{_NUMBER})$", re.IGNORECASE)
_PAIR = re.compile(rf"^(?:\d+|qid):(?:{_NUMBER})$", re.IGNORECASE)
_DECIMAL_COMMA = re.compile(r"^[-+]?\d*,\d+(?:[eE][-+]?\d+)?$")
_DECIMAL_POINT = re.compile(r"^[-+]?\d*\.\d+(?:[eE][-+]?\d+)?$")


class CsvDialect(NamedTuple):
    """How a CSV file is written, as :func:`pandas.read_csv` takes it."""

    sep: str = ","
    decimal: str = "."


def _suffixes(path: Path) -> list[str]:
    """Lower-case suffixes without the compression one (``a.svm.gz`` -> ``[".svm"]``)."""
    out = [s.lower() for s in path.suffixes]
    if out and out[-1] in _OPEN:
        out.pop()
    return out


def data_stem(path: str | os.PathLike[str]) -> str:
    """The data set's name from its file name: without compression and format suffixes."""
    p = Path(path)
    name = p.name
    for suffix in (*_OPEN, *SVMLIGHT_SUFFIXES, *CSV_SUFFIXES):
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
            if suffix in _OPEN:
                continue
            break
    return name or "data"


def looks_like_path(name: str) -> bool:
    """True when ``name`` means a file (or folder) rather than a bundled data set: written as
    a path (a folder separator, or a data file's suffix such as ``.csv``, ``.svm``, ``.gz``),
    or not a bundled name and present on disk (``mydata``, a folder ``runs``)."""
    name = str(name)
    if os.sep in name or "/" in name or (os.altsep and os.altsep in name):
        return True
    suffixes = [s.lower() for s in Path(name).suffixes]
    if suffixes and suffixes[-1] in (*_OPEN, *SVMLIGHT_SUFFIXES, *CSV_SUFFIXES):
        return True
    if not name or not os.path.lexists(name):
        return False
    from .registry import list_datasets

    return name not in list_datasets()


def check_data_path(path: str | os.PathLike[str]) -> Path:
    """``path`` as a :class:`~pathlib.Path` when it names a readable file; else
    :class:`DataFileError` saying what it is instead (a directory, nothing, unreadable)."""
    p = Path(path)
    if p.is_dir():
        raise DataFileError(path, f"is a directory; {FIX}")
    if not p.exists():
        for parent in p.parents:
            if parent.exists() and not parent.is_dir():
                raise DataFileError(path, f"{parent} is a file, not a folder; {FIX}")
        raise DataFileError(path, f"no such file; {FIX} (or a bundled dataset name: "
                                  "`sparsekm datasets` lists them)")
    if not p.is_file():
        raise DataFileError(path, f"is not a regular file; {FIX}")
    if not os.access(p, os.R_OK):
        raise DataFileError(path, f"is not readable (permission denied); {FIX} you can read")
    return p


def head_lines(path: Path, n: int = HEAD_LINES) -> list[str]:
    """The first ``n`` non-empty lines of a (possibly compressed) text file."""
    opener = _OPEN.get(path.suffix.lower(), open)
    lines: list[str] = []
    try:
        with opener(path, "rt", encoding="utf-8-sig", errors="replace", newline="") as fh:
            for line in fh:
                if line.strip():
                    lines.append(line.rstrip("\r\n"))
                    if len(lines) >= n:
                        break
    except (OSError, EOFError, lzma.LZMAError) as exc:
        raise DataFileError(path, f"cannot be read ({exc}); {FIX}") from None
    return lines


def _svmlight_line(line: str) -> tuple[bool, bool]:
    """(the line reads ``label index:value ...``, it has at least one pair)."""
    tokens = line.split("#", 1)[0].split()
    if not tokens:
        return True, False
    label, pairs = tokens[0], tokens[1:]
    ok = bool(_LABEL.match(label)) and all(_PAIR.match(t) for t in pairs)
    return ok, ok and any(not t.lower().startswith("qid") for t in pairs)


def file_format(path: Path, lines: list[str] | None = None) -> str:
    """``"svmlight"`` (by suffix, or first lines ``label index:value ...``) or ``"csv"``."""
    sfx = _suffixes(path)
    if sfx and sfx[-1] in SVMLIGHT_SUFFIXES:
        return "svmlight"
    if sfx and sfx[-1] in (".csv", ".tsv"):
        return "csv"
    lines = head_lines(path) if lines is None else lines
    body = [ln for ln in lines if not ln.lstrip().startswith("#")]
    if not body:
        return "csv"
    checks = [_svmlight_line(ln) for ln in body]
    return "svmlight" if all(ok for ok, _ in checks) and any(p for _, p in checks) else "csv"


def _fields(line: str, sep: str) -> list[str]:
    try:
        return next(csv.reader([line], delimiter=sep))
    except (csv.Error, StopIteration):
        return [line]


def sniff_csv(lines: list[str]) -> CsvDialect:
    """The delimiter (comma, semicolon or tab) that splits the header and the first rows into
    the same number of fields (>= 2), the most fields first; a comma when none does. A
    semicolon or tab file whose numbers are written ``1,5`` gets ``decimal=","``."""
    if not lines:
        return CsvDialect()
    sep, best = ",", (0, 0)
    for candidate in DELIMITERS:  # ties: the first of comma, semicolon, tab
        counts = [len(_fields(ln, candidate)) for ln in lines]
        score = (int(all(c == counts[0] for c in counts)), counts[0])
        if counts[0] >= 2 and score > best:
            sep, best = candidate, score
    decimal = "."
    if sep != ",":
        cells = [c.strip() for ln in lines[1:] for c in _fields(ln, sep)]
        if any(_DECIMAL_COMMA.match(c) for c in cells) and \
                not any(_DECIMAL_POINT.match(c) for c in cells):
            decimal = ","
    return CsvDialect(sep, decimal)


def header_names(lines: list[str], dialect: CsvDialect) -> list[str]:
    """The column names of the header line (as pandas reads them, before it renames)."""
    return _fields(lines[0], dialect.sep) if lines else []


def duplicate_names(names: list[str]) -> list[str]:
    """Names that occur more than once (empty names aside: pandas numbers those)."""
    counts = Counter(n for n in names if n.strip())
    return [n for n, k in counts.items() if k > 1]


def read_svmlight(path: Path) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """``(X dense float64, y, feature names)`` of an svmlight / LIBSVM file.

    Feature ``j`` is named after its index in the file: ``x1, x2, ...`` for the usual 1-based
    files, ``x0, x1, ...`` when the file uses index 0. Integral labels are returned as
    integers (so ``--positive-class 2`` matches a label written ``2``). An index that no row
    uses is a feature that is zero everywhere: it is left out (with one warning line), so the
    dense matrix grows with the features present, not with the largest index (200 rows
    naming index 1,349,942 became a 2 GB matrix, 7 GB with its copies, 90 s to load). A
    matrix still above ``DENSE_MAX_BYTES`` is refused, naming the size it would need.
    """
    from sklearn.datasets import load_svmlight_file

    opener = _OPEN.get(path.suffix.lower())
    try:
        if opener is None:
            X, y = load_svmlight_file(str(path), dtype=np.float64, zero_based=True)
        else:  # .gz, .bz2, .xz alike
            with opener(path, "rb") as fh:
                X, y = load_svmlight_file(fh, dtype=np.float64, zero_based=True)
    except (ValueError, TypeError, OSError, EOFError, lzma.LZMAError) as exc:
        text = " ".join(str(exc).split())
        raise DataFileError(path, f"is not a well-formed svmlight / LIBSVM file ({text}); "
                                  "each line must read `label index:value index:value ...`, "
                                  "or give a CSV file") from None
    X = X.tocsc()
    one_based = X.shape[1] > 0 and X.indptr[1] == 0  # no entry with index 0
    if one_based:
        X = X[:, 1:]
    shift = 1 if one_based else 0
    present = np.flatnonzero(np.diff(X.indptr) > 0)   # the features with an entry
    absent = X.shape[1] - present.size
    if absent:
        X = X[:, present]
        warnings.warn(f"file {path.name!r}: {absent} of its {present.size + absent} feature "
                      "indices have no entry in any row (zero everywhere) and are left out; "
                      f"{present.size} features are kept, with their names",
                      DataWarning, stacklevel=2)
    names = [f"x{j + shift}" for j in present]
    need = 8.0 * X.shape[0] * X.shape[1]
    if need > DENSE_MAX_BYTES:
        raise DataFileError(path, f"holds {X.nnz} entries in {X.shape[0]} rows and "
                                  f"{X.shape[1]} features: as the dense matrix every method "
                                  f"works on it needs {need / 2**30:.1f} GB (at most "
                                  f"{DENSE_MAX_BYTES / 2**30:.0f} GB); keep fewer features "
                                  "or rows")
    if y.size and np.all(np.isfinite(y)) and np.all(y == np.round(y)):
        y = y.astype(np.int64)
    return np.asarray(X.toarray(), dtype=np.float64, order="C"), y, names
