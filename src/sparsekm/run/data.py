"""Data preparation of a run: load, split (seeded, stratified), scale on the training rows.

Also the dry run of a grid point (:func:`checking`): a runner calls :func:`ready` once its
inputs are validated, and under :func:`checking` that ends the run there, on a small
stratified subset of the rows, so a bench grid is validated before its first run.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from sparsekm.declare import ParamError

from .options import SCALES, RunOptions

__all__ = ["Ready", "Split", "accuracy", "checking", "load_data", "prepare", "ready",
           "scale_fit_transform", "validation_split"]

CHECK_ROWS_PER_CLASS = 15
_CHECKING: ContextVar[bool] = ContextVar("sparsekm_checking", default=False)


class Ready(Exception):
    """Raised by :func:`ready` during a dry run: the inputs are valid."""


def ready() -> None:
    """Called by a runner once its inputs are validated, just before it solves: in a dry run
    (:func:`checking`) this ends the run there."""
    if _CHECKING.get():
        raise Ready


@contextlib.contextmanager
def checking() -> Iterator[None]:
    """A dry run: data loading uses a small stratified subset, :func:`ready` stops the run."""
    token = _CHECKING.set(True)
    try:
        yield
    finally:
        _CHECKING.reset(token)


@dataclass(frozen=True)
class Split:
    """The loaded data set and its scaled training (and test) rows."""

    ds: Any
    train: Any
    test: Any | None


def load_data(opts: RunOptions) -> Any:
    """The data set ``opts.data`` (a bundled name or a file), first ``opts.rows`` rows."""
    from sparsekm.data import load_csv, load_dataset
    from sparsekm.data.files import looks_like_path

    if looks_like_path(opts.data):
        drop = [c.strip() for c in (opts.drop_columns or "").split(",") if c.strip()]
        ds = load_csv(opts.data, label=opts.label, positive_class=opts.positive_class,
                      missing=opts.missing or "error", drop_columns=drop)
    else:
        for name, given in (("label", None if opts.label == "label" else opts.label),
                            ("positive_class", opts.positive_class),
                            ("drop_columns", opts.drop_columns)):
            if given is not None:
                raise ParamError(name, given, "a bundled dataset has its own label column and "
                                 "classes; this applies to a file (--data FILE.csv)")
        ds = load_dataset(opts.data, missing=opts.missing or "drop")
    if opts.rows is not None:
        ds = ds.head(opts.rows)
    return ds


def scale_fit_transform(scale: str, train: Any, *others: Any) -> Any:
    """Fit ``Scaler(scale)`` on ``train`` rows; transform train and each of ``others``."""
    from sparsekm.data import Scaler

    if scale not in SCALES:
        raise ParamError("scale", scale, f"choose one of {', '.join(SCALES)}")
    sc = Scaler(scale).fit(train.X)
    out = [replace(train, X=sc.transform(train.X))]
    out += [replace(o, X=sc.transform(o.X)) for o in others]
    return out if others else out[0]


def _small_stratified(ds: Any) -> Any:
    """The first CHECK_ROWS_PER_CLASS rows of each class (what a dry run validates on)."""
    keep = np.concatenate([np.flatnonzero(ds.y == c)[:CHECK_ROWS_PER_CLASS]
                           for c in (-1.0, 1.0)])
    return ds.subset_rows(np.sort(keep)) if keep.size < ds.m else ds


def _test_size(opts: RunOptions, ds: Any) -> float | int:
    if opts.train_rows is None:
        return opts.test_size
    if opts.test_size > 0:
        raise ParamError("train_rows", opts.train_rows, "--train-rows and --test-size both "
                         "split the rows: give one")
    if not opts.train_rows < ds.m:
        raise ParamError("train_rows", opts.train_rows,
                         f"give 2 to {ds.m - 1} ({ds.name} has {ds.m} rows)")
    return ds.m - opts.train_rows


def _split(ds: Any, test_size: float | int, seed: int, name: str, value: Any) -> tuple:
    """A stratified seeded split; a split that leaves a class out is the user's parameter."""
    from sparsekm.data import DataError, train_test_split

    try:
        return train_test_split(ds, test_size=test_size, seed=seed)
    except DataError as exc:      # the data's terms; the flag typed comes first
        raise ParamError(name, value, exc.template) from None


def prepare(opts: RunOptions) -> Split:
    """Load, split (``test_size`` > 0 or ``train_rows``: stratified, seeded) and scale on the
    training rows."""
    ds = load_data(opts)
    test_size = _test_size(opts, ds)
    if _CHECKING.get():  # a dry run: the same checks on a few rows
        full_m, ds = ds.m, _small_stratified(ds)
        if test_size >= 1:
            test_size = min(max(test_size / full_m, 0.1), 0.5)
    if test_size > 0:
        name = "train_rows" if opts.train_rows is not None else "test_size"
        train, test = _split(ds, test_size, opts.seed, name, getattr(opts, name))
        train, test = scale_fit_transform(opts.scale, train, test)
        return Split(ds, train, test)
    return Split(ds, scale_fit_transform(opts.scale, ds), None)


def validation_split(train: Any, opts: RunOptions) -> tuple[Any, Any | None]:
    """(fit rows, validation rows): a stratified seeded ``opts.validation_size`` of the
    (scaled) training rows held out for model selection (None without one)."""
    if not opts.validation_size:
        return train, None
    return _split(train, opts.validation_size, opts.seed, "validation_size",
                  opts.validation_size)


def accuracy(decision: np.ndarray, y: np.ndarray) -> float:
    """Fraction of rows with sign(decision) == y (decision >= 0 predicts +1)."""
    return float(np.mean(np.where(np.asarray(decision) >= 0, 1.0, -1.0) == y))
