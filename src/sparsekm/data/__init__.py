"""Data sets and data handling for sparsekm.

Everything returns or consumes a :class:`Dataset` (float64 features, labels in {-1, +1}).

- bundled benchmarks: :func:`list_datasets`, :func:`dataset_info`, :func:`load_dataset`
- your own data: :func:`load_csv` (CSV with comma, semicolon or tab, or svmlight / LIBSVM),
  :func:`load_svmlight`, :func:`as_dataset`
- preprocessing: :class:`Scaler` (fit on training rows only)
- splits: :func:`train_test_split`, :func:`kfold_splits` (stratified, seeded)
- the one check of training arrays: :func:`check_xy`, :func:`check_labels`

Every refusal raises :class:`DataError` (a ``ValueError``) whose message says what is wrong
and how to fix it; a data file that cannot be read as given (a directory, a missing file,
duplicate column names) raises its subclass :class:`DataFileError`, also a
:class:`~sparsekm.declare.ParamError` of ``data``. Names load lazily (pandas and
scikit-learn only when used).
"""

from sparsekm.lazy import lazy

_NAMES = {
    "Dataset": "dataset", "DataError": "errors", "DataFileError": "errors",
    "load_csv": "loading", "load_svmlight": "loading",
    "load_dataset": "loading", "Scaler": "preprocessing", "dataset_info": "registry",
    "list_datasets": "registry", "kfold_splits": "splits", "train_test_split": "splits",
    "as_dataset": "validation", "check_labels": "checks", "check_xy": "checks",
}
__all__ = sorted(_NAMES)
__getattr__, __dir__ = lazy(__name__, _NAMES)
