"""What every sparsekm classifier shares: two labels mapped to {-1, +1}, predict from the
decision function, the binary-only tag (the scikit-learn contract in one place), and the
result's attributes with the bound on its side."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils.multiclass import unique_labels
from sklearn.utils.validation import validate_data

__all__ = ["BinaryClassifierMixin", "set_result_attributes"]


def set_result_attributes(est: Any, res: Any) -> None:
    """``objective_``, ``status_``, ``termination_``, ``gap_``, ``sense_`` and the certified
    bound on its side: ``lower_bound_`` when minimising, ``upper_bound_`` when maximising
    (never an attribute named for the other side)."""
    est.objective_ = None if res.objective is None else float(res.objective)
    est.status_ = res.status.value
    est.termination_ = res.termination.value
    est.gap_ = res.gap
    est.sense_ = res.sense
    for side in ("lower_bound_", "upper_bound_"):
        if hasattr(est, side):
            delattr(est, side)
    setattr(est, "lower_bound_" if res.sense == "min" else "upper_bound_", res.bound)


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
