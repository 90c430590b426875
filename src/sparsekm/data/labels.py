"""Mapping arbitrary class labels to {-1, +1}."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from sparsekm.declare import mention

from .errors import DataError

__all__ = ["label_map", "to_pm1"]


def _sort_key(value: Any) -> tuple[int, Any]:
    """Sort numbers numerically, everything else by its string form, numbers first."""
    if isinstance(value, bool | np.bool_):
        return (0, int(value))
    if isinstance(value, int | float | np.integer | np.floating):
        return (0, float(value))
    return (1, str(value))


def to_pm1(
    y: Any, positive_class: Any = None, *, what: str = "y"
) -> tuple[np.ndarray, list[Any]]:
    """Map class labels to float64 values in {-1., +1.}.

    Parameters
    ----------
    y : array-like of shape (m,)
        Labels of any type (numbers, strings, booleans).
    positive_class : optional
        The class mapped to +1; every other class maps to -1 (one-vs-rest when there are
        more than two classes). When None, ``y`` must have exactly two classes and the
        larger one becomes +1: numbers compare numerically, strings alphabetically, so
        {0, 1}, {1, 2}, {-1, 1} map the larger number and {"B", "M"} maps "M" to +1.
    what : str
        Name used in error messages.

    Returns
    -------
    y_pm1 : ndarray of shape (m,)
        float64 labels in {-1., +1.}.
    classes : list
        The distinct original classes, sorted (numbers first, then strings).

    Raises
    ------
    DataError
        Missing labels, fewer than two classes, more than two classes without
        ``positive_class``, or a ``positive_class`` that does not occur.
    """
    values = pd.Series(np.asarray(y).reshape(-1) if not isinstance(y, pd.Series) else y)
    if values.empty:
        raise DataError(f"{what} is empty; pass at least one label per sample")
    n_missing = int(values.isna().sum())
    if n_missing:
        raise DataError(
            f"{what} has {n_missing} missing labels; drop those samples before loading "
            f"(or load the file with {mention('missing', 'drop', repr('drop'))})"
        )
    classes = sorted(pd.unique(values).tolist(), key=_sort_key)
    if len(classes) < 2:
        raise DataError(
            f"{what} has fewer than two classes (only {classes}); a binary classifier needs "
            "samples of both classes, so check the label column or the row selection"
        )
    if positive_class is None:
        if len(classes) > 2:
            shown = classes[:10]
            raise DataError(
                f"{what} has {len(classes)} classes {shown}; give one of them as "
                f"{mention('positive_class', 'CLASS', repr(classes[0]))} to train that class "
                "against the rest (one-vs-rest)"
            )
        positive_class = classes[-1]
    elif positive_class not in classes:
        matches = [c for c in classes if str(c) == str(positive_class)]
        if len(matches) != 1:
            raise DataError(
                f"{mention('positive_class', str(positive_class), repr(positive_class))} does "
                f"not occur in {what}; choose one of {classes[:10]}"
            )
        positive_class = matches[0]
    y_pm1 = np.where(values.to_numpy() == positive_class, 1.0, -1.0).astype(np.float64)
    return y_pm1, classes


def label_map(y: Any, y_pm1: np.ndarray) -> dict[str, int]:
    """The mapping :func:`to_pm1` applied, ``{class as text: +1 or -1}``: the class mapped
    to +1 first, then the others in sorted order (numbers first, then strings)."""
    values = pd.Series(np.asarray(y).reshape(-1) if not isinstance(y, pd.Series) else y)
    signs = pd.Series(np.asarray(y_pm1), index=values.index)
    out = {str(c): int(signs[values == c].iloc[0])
           for c in sorted(pd.unique(values).tolist(), key=_sort_key)}
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))
