"""Looking up the bundled data sets: their names, specs and descriptions (the catalogue
itself is :mod:`sparsekm.data.catalog`)."""

from __future__ import annotations

import difflib
from typing import Any

from .catalog import SPECS, DatasetSpec
from .errors import DataError

__all__ = ["DatasetSpec", "SPECS", "dataset_info", "get_spec", "list_datasets"]


_BY_NAME: dict[str, DatasetSpec] = {spec.name: spec for spec in SPECS}


def list_datasets() -> list[str]:
    """Return the names of the bundled data sets, sorted.

    Returns
    -------
    list of str
    """
    return sorted(_BY_NAME)


def get_spec(name: str) -> DatasetSpec:
    """Return the :class:`DatasetSpec` of a bundled data set.

    Raises
    ------
    DataError
        Unknown name; the message suggests the closest name and lists all of them.
    """
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):
        pass
    close = difflib.get_close_matches(str(name).lower(), list(_BY_NAME), n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise DataError(
        f"unknown dataset {name!r}; {hint}available datasets: {', '.join(list_datasets())}"
    )


def dataset_info(name: str) -> dict[str, Any]:
    """Describe a bundled data set without loading it.

    Parameters
    ----------
    name : str
        One of :func:`list_datasets`.

    Returns
    -------
    dict
        ``name``, ``m``, ``n``, ``positive_fraction``, ``citation``, ``source``, ``file``,
        ``missing`` (number of NaN feature cells) and ``notes``. ``m``, ``n`` and
        ``positive_fraction`` describe the stored file, before missing-value handling
        (e.g. heart: 303 rows, 297 after ``load_dataset("heart")``).
    """
    spec = get_spec(name)
    return {
        "name": spec.name,
        "m": spec.m,
        "n": spec.n,
        "positive_fraction": spec.positive_fraction,
        "citation": spec.citation,
        "source": spec.source,
        "file": spec.file,
        "missing": spec.missing,
        "notes": spec.notes,
    }
