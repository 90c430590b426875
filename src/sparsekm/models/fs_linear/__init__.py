"""Paper D's exact models of FS-SVM (2): the problem, BigMP (6), CoP (7) / CoP(K) (16) with
Kernel Search's cuts (17)-(18), SR-DLMP(K) (21), and reading points back (solving a model and
what its bound certifies: :func:`sparsekm.algorithms.solve_formulation`)."""

from .bigm import bigm_model, estimate_big_m, label_big_m, link_bound
from .cop import COP_FORMS, cop_model
from .cuts import add_new_feature_cut, add_objective_cut
from .problem import CARDINALITIES, FSLinearProblem
from .readback import ModelPoint, model_point, point_result
from .sr_dlmp import SR_FORMS, sr_dlmp_model

__all__ = ["CARDINALITIES", "COP_FORMS", "SR_FORMS", "FSLinearProblem", "ModelPoint",
           "add_new_feature_cut", "add_objective_cut", "bigm_model", "cop_model",
           "estimate_big_m", "label_big_m", "link_bound", "model_point", "point_result",
           "sr_dlmp_model"]
