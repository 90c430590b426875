"""What every sparsekm classifier shares: two labels mapped to {-1, +1}, predict from the
decision function, and the binary-only tag (the scikit-learn contract in one place)."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils.multiclass import unique_labels
from sklearn.utils.validation import validate_data

__all__ = ["BinaryClassifierMixin", "check_solvers", "method_kwargs"]


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
