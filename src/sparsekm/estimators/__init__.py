"""scikit-learn estimators."""

from .fs_kernel import CardinalityKernelSVC  # noqa: F401  (paper A)
from .fs_linear import CardinalityLinearSVC  # noqa: F401  (paper D)
