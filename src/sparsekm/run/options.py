"""The options every run takes, whatever the problem: data, split, scaling, seed, solver, limit.

:class:`RunOptions` declares them once (:mod:`sparsekm.declare`); the CLI's common flags, a
bench grid's keys and the run key of a stored experiment all come from these fields.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from sparsekm import declare
from sparsekm.specs import DEFAULT_TIME_LIMIT, SEED, SOLVER, TIME_LIMIT

__all__ = ["DEFAULT_DATA", "SCALES", "RunOptions"]

DEFAULT_DATA = "breast_cancer_diagnostic"
SCALES = ("none", "standard", "minmax01", "minmax11")


@dataclass(frozen=True)
class RunOptions:
    """The options of every ``sparsekm solve / relax / path`` run."""

    data: str = declare.field(DEFAULT_DATA, "Bundled dataset name (`sparsekm datasets`), or a "
                              "CSV or svmlight / LIBSVM file.")
    label: str = declare.field("label", "Label column of a CSV file.")
    scale: str = declare.field("standard", "Preprocessing fitted on the training rows.",
                               choices=SCALES)
    rows: int | None = declare.field(None, "Use only the first N rows.", ge=2)
    seed: int = declare.field(0, SEED)
    solver: str | None = declare.field(None, SOLVER)
    time_limit: float = declare.field(DEFAULT_TIME_LIMIT, TIME_LIMIT)
    test_size: float = declare.field(0.0, "Stratified seeded test fraction (0: train on all "
                                     "rows).", ge=0, lt=1)
    train_rows: int | None = declare.field(None, "Train on a stratified seeded sample of N "
                                           "rows (the rest is the test set); instead of "
                                           "--test-size.", ge=2)
    validation_size: float = declare.field(0.0, "Hold out this stratified seeded fraction of "
                                           "the training rows as a validation set (model "
                                           "selection: validation_accuracy in the JSON).",
                                           ge=0, lt=1)
    missing: str | None = declare.field(None, "Missing values in the data: error, drop or zero "
                                        "(default: error for a file, drop for a bundled "
                                        "dataset).", choices=("error", "drop", "zero"))
    positive_class: str | None = declare.field(None, "File label mapped to +1 (default with two "
                                               "classes: the larger, numbers numerically, "
                                               "strings alphabetically, so M over B; needed "
                                               "with more: one-vs-rest). The JSON's `labels` "
                                               "shows the mapping.")
    drop_columns: str | None = declare.field(None, "Comma-separated CSV columns to ignore "
                                             "(ids, text).")

    def params(self) -> dict[str, Any]:
        """The options that shape a run's result (reported under ``params``)."""
        out = {"scale": self.scale, "seed": self.seed, "time_limit": self.time_limit,
               "test_size": self.test_size}
        for key in ("train_rows", "rows"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.validation_size:
            out["validation_size"] = self.validation_size
        return out

    def to_dict(self) -> dict[str, Any]:
        """Plain data (a grid's run specification, the run key)."""
        return asdict(self)
