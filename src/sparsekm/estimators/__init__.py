"""scikit-learn estimators."""

from .fs_linear import CardinalityLinearSVC  # noqa: F401  (paper D)
