"""scikit-learn estimators, one per problem (loaded lazily: scikit-learn costs ~2 s to import)."""

from sparsekm.lazy import lazy

_NAMES = {
    "CardinalityKernelSVC": "fs_kernel",    # paper A
    "CardinalityLinearSVC": "fs_linear",    # paper D
    "CardinalityLinearSVCCV": "fs_linear",  # paper D, (B, C) by cross-validation
    "SparseKernelLogisticRegression": "sklr",  # paper C
    "SparseMKLClassifier": "smkl",          # paper B
    "MinMaxFeatureWeightingSVC": "minmax_fs",  # paper E
}
__all__ = sorted(_NAMES)
__getattr__, __dir__ = lazy(__name__, _NAMES)
