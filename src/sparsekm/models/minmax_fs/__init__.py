"""Paper E (min-max feature weighting for nonlinear SVMs): problem, models, lower level."""

from .lower import LowerLevel, check_gamma, kkt_residual, lower_level
from .problem import MinMaxFSProblem
from .pyomo_models import (
    check_model_size,
    epigraph_model,
    lower_dual_model,
    minmax_model,
    single_level_model,
)

__all__ = ["LowerLevel", "MinMaxFSProblem", "check_gamma", "check_model_size",
           "epigraph_model", "kkt_residual", "lower_dual_model", "lower_level", "minmax_model",
           "single_level_model"]
