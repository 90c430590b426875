"""Data sets and data handling for sparsekm.

Everything returns or consumes a :class:`Dataset` (float64 features, labels in {-1, +1}).

- bundled benchmarks: :func:`list_datasets`, :func:`dataset_info`, :func:`load_dataset`
- your own data: :func:`load_csv`, :func:`as_dataset`
- preprocessing: :class:`Scaler` (fit on training rows only)
- splits: :func:`train_test_split`, :func:`kfold_splits` (stratified, seeded)

Every refusal raises :class:`DataError` (a ``ValueError``) whose message says what is wrong
and how to fix it.
"""

from .dataset import Dataset
from .errors import DataError
from .loading import load_csv, load_dataset
from .preprocessing import Scaler
from .registry import dataset_info, list_datasets
from .splits import kfold_splits, train_test_split
from .validation import as_dataset

__all__ = [
    "DataError",
    "Dataset",
    "Scaler",
    "as_dataset",
    "dataset_info",
    "kfold_splits",
    "list_datasets",
    "load_csv",
    "load_dataset",
    "train_test_split",
]
