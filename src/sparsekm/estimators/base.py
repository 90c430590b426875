"""What every sparsekm classifier shares: two labels mapped to {-1, +1}, predict from the
decision function, and the binary-only tag (the scikit-learn contract in one place)."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils.multiclass import unique_labels
from sklearn.utils.validation import validate_data

__all__ = ["BinaryClassifierMixin", "check_solvers", "method_kwargs", "tree_options"]


def check_solvers(**solvers: str | None) -> None:
    """ValueError naming the parameter when a given solver is unknown or unusable."""
    from sparsekm.solvers import SolverError, check_solver

    for name, value in solvers.items():
        if value is not None:
            try:
                check_solver(value)
            except SolverError as exc:
                raise ValueError(f"{name}={value!r}: {exc}") from None


def method_kwargs(problem: str, method: str, given: dict[str, Any],
                  method_options: dict[str, Any] | None) -> tuple[Any, dict[str, Any]]:
    """(registry entry, its keyword options): the estimator's own parameters that ``method``
    declares, then ``method_options`` -- any option of its signature, validated and typed
    from it (an unknown name is a ValueError listing the known ones)."""
    from sparsekm import registry
    from sparsekm.options import validate_options

    entry = registry.get(problem, "method", method)  # ValueError lists the methods
    kwargs = {k: v for k, v in given.items() if k in entry.options}
    kwargs.update(validate_options(entry, method_options, where="method_options"))
    return entry, kwargs


def tree_options(entry: Any, workers: int, checkpoint: str | None) -> dict[str, Any]:
    """``workers`` / ``checkpoint`` for a tree-search method (paper D's and A's ``bnb``,
    paper B's ``exact``); a clear error when set for a method that does not search a tree."""
    given: dict[str, Any] = {}
    if workers != 1:
        given["workers"] = workers
    if checkpoint is not None:
        given["checkpoint"] = str(checkpoint)
    extra = [k for k in given if k not in entry.options]
    if extra:
        raise ValueError(f"{extra[0]}={given[extra[0]]!r}: method {entry.name!r} of "
                         f"{entry.problem} does not search a tree; workers and checkpoint "
                         "apply to the tree methods (fs-linear / fs-kernel bnb, smkl exact)")
    return given


class BinaryClassifierMixin:
    """Mixin for binary classifiers; put it first in the bases (before ``ClassifierMixin``)."""

    def _binary_targets(self, X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
        """Validated float X and y mapped to {-1, +1} (``classes_[1]`` is +1)."""
        X, y = validate_data(self, X, y, dtype=np.float64)
        self.classes_ = unique_labels(y)
        if self.classes_.size != 2:
            raise ValueError(f"Only binary classification is supported: y has "
                             f"{self.classes_.size} classes; wrap {type(self).__name__} in "
                             "sklearn.multiclass.OneVsRestClassifier for more")
        return X, np.where(y == self.classes_[1], 1.0, -1.0)

    def predict(self, X: Any) -> np.ndarray:
        """Predicted labels: ``classes_[1]`` where the decision function is >= 0."""
        d = self.decision_function(X)  # type: ignore[attr-defined]
        return np.where(d >= 0, self.classes_[1], self.classes_[0])

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()  # type: ignore[misc]
        tags.classifier_tags.multi_class = False
        return tags
