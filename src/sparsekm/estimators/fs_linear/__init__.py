"""Paper D's estimators: :class:`CardinalityLinearSVC` (FS-SVM (2) by any registered method)
and :class:`CardinalityLinearSVCCV` ((B, C) chosen by cross-validation)."""

from .cv import CardinalityLinearSVCCV
from .svc import CardinalityLinearSVC

__all__ = ["CardinalityLinearSVC", "CardinalityLinearSVCCV"]
