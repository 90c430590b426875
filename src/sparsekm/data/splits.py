"""Seeded (and by default stratified) train/test splits and k-fold cross-validation."""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import KFold, ShuffleSplit, StratifiedKFold, StratifiedShuffleSplit

from sparsekm.declare import mention

from .dataset import Dataset
from .errors import DataError

__all__ = ["kfold_splits", "train_test_indices", "train_test_split"]


def _labels(ds: Dataset | np.ndarray) -> np.ndarray:
    y = ds.y if isinstance(ds, Dataset) else np.asarray(ds).reshape(-1)
    if y.shape[0] < 2:
        raise DataError(f"cannot split {y.shape[0]} sample(s); pass at least two samples")
    return y


def train_test_indices(
    ds: Dataset | np.ndarray,
    test_size: float | int = 0.3,
    seed: int | None = 0,
    stratify: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Row indices of a train/test split (sorted, disjoint, together all rows).

    Parameters are as in :func:`train_test_split`; ``ds`` may also be a label array.
    """
    y = _labels(ds)
    m = y.shape[0]
    if isinstance(test_size, float) and not 0.0 < test_size < 1.0:
        raise DataError(f"test_size={test_size} must lie in (0, 1) as a fraction of the rows")
    if isinstance(test_size, int | np.integer) and not 1 <= test_size < m:
        raise DataError(f"test_size={test_size} rows must lie in [1, {m - 1}] for {m} rows")
    splitter_cls = StratifiedShuffleSplit if stratify else ShuffleSplit
    splitter = splitter_cls(n_splits=1, test_size=test_size, random_state=seed)
    try:
        train, test = next(splitter.split(np.zeros((m, 1)), y))
    except ValueError:
        raise DataError(_why_no_split(y, test_size)) from None
    return np.sort(train), np.sort(test)


def _why_no_split(y: np.ndarray, test_size: float | int) -> str:
    """Why a stratified split of labels ``y`` into ``test_size`` fails, in the data's terms (not
    scikit-learn's words, which name its own parameters): each part must hold a row of each
    class, and each class at least two rows."""
    m = y.shape[0]
    n_test = int(np.ceil(test_size * m)) if isinstance(test_size, float) else int(test_size)
    counts = {c: int((y == c).sum()) for c in np.unique(y)}
    k, smallest = len(counts), min(counts.values())
    if smallest < 2:
        return (f"cannot split {m} rows: one class has a single row, so the training and the "
                "test part cannot both hold it; give no test part, or more rows of that class")
    lo, hi = k / m, 1.0 - k / m
    return (f"cannot split {m} rows ({', '.join(str(v) for v in counts.values())} per class) "
            f"into a test part of {n_test} rows with every class in both parts; give a "
            f"fraction between {lo:.3g} and {hi:.3g}")


def train_test_split(
    ds: Dataset,
    test_size: float | int = 0.3,
    seed: int | None = 0,
    stratify: bool = True,
) -> tuple[Dataset, Dataset]:
    """Split a data set into a training and a test part.

    Parameters
    ----------
    ds : Dataset
        Data to split.
    test_size : float or int
        Fraction (in (0, 1)) or number of test rows.
    seed : int or None
        Random seed (same seed, same split).
    stratify : bool
        Keep the +1/-1 proportions in both parts (scikit-learn's StratifiedShuffleSplit;
        ShuffleSplit when False).

    Returns
    -------
    (Dataset, Dataset)
        Training and test parts; rows keep their original order.
    """
    train, test = train_test_indices(ds, test_size=test_size, seed=seed, stratify=stratify)
    return ds.subset_rows(train), ds.subset_rows(test)


def kfold_splits(
    ds: Dataset | np.ndarray,
    k: int = 5,
    seed: int | None = 0,
    stratify: bool = True,
    name: str = "k",
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Shuffled k-fold cross-validation indices.

    Parameters
    ----------
    ds : Dataset or ndarray
        Data set (or its label vector).
    k : int
        Number of folds, 2 <= k <= m.
    seed : int or None
        Random seed for the shuffle (same seed, same folds).
    stratify : bool
        Keep class proportions in every fold (StratifiedKFold; KFold when False).
    name : str
        The caller's name of ``k`` (``cv_folds``, ``outer_folds``): a message names it in
        the words of the user's front door (``--cv-folds 5`` on the CLI).

    Returns
    -------
    list of (ndarray, ndarray)
        ``k`` pairs ``(train_idx, test_idx)`` of sorted row indices; the test parts are
        disjoint and together cover every row once.
    """
    y = _labels(ds)
    m = y.shape[0]
    given = mention(name, str(k), str(k))
    if not isinstance(k, int | np.integer) or not 2 <= k <= m:
        raise DataError(f"{given}: {k} folds are not possible for {m} rows; give an integer "
                        f"from 2 to {m}")
    if stratify:
        smallest = int(min(np.sum(y == c) for c in np.unique(y)))
        if smallest < k:
            fix = (f"give {mention(name, str(smallest), str(smallest))} or fewer"
                   if smallest >= 2 else "give more rows of that class")
            other = " or stratify=False" if name == "k" else ""
            raise DataError(f"{given}: stratified {k}-fold cross-validation needs at least {k} "
                            f"rows of each class, the smallest class has {smallest}; "
                            f"{fix}{other}")
        splitter: StratifiedKFold | KFold = StratifiedKFold(
            n_splits=int(k), shuffle=True, random_state=seed
        )
    else:
        splitter = KFold(n_splits=int(k), shuffle=True, random_state=seed)
    return [
        (np.sort(train), np.sort(test)) for train, test in splitter.split(np.zeros((m, 1)), y)
    ]
