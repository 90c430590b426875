"""Kernel Search's cuts on CoP(K) (16), paper D, Algorithm 2: (17) and (18).

Each cut adds one constraint to a model built by :func:`~.cop.cop_model` (any form).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from sparsekm.registry import register

from ..record import note_cut

__all__ = ["add_new_feature_cut", "add_objective_cut"]


@register("fs-linear", "cut", "objective-ub", paper="D", ref="eq. (17)")
def add_objective_cut(model: Any, ub: float | None) -> Any:
    """(17): objective <= UB (the incumbent's value); nothing when UB is None or infinite."""
    import pyomo.environ as pyo

    if ub is not None and math.isfinite(ub):
        model.ub_cut = pyo.Constraint(expr=model.obj.expr <= ub)
        note_cut(model, "objective-ub", "ub_cut")   # valid: keeps every better point
    return model


@register("fs-linear", "cut", "new-feature", paper="D", ref="eq. (18)")
def add_new_feature_cut(model: Any, new_features: Iterable[int] | None) -> Any:
    """(18): sum_{j in K_k} u_j <= |K_k| - 1, at least one feature of the new bucket is used.

    It removes points of (2) (the supports without a new feature): the model becomes a
    restriction, whose bound is only the restricted subproblem's."""
    import pyomo.environ as pyo

    if new_features is None:
        return model
    inside = set(model.fs_data["K"])
    new = [j for j in sorted(set(new_features)) if j in inside]
    if new:
        model.new_cut = pyo.Constraint(
            expr=pyo.quicksum(model.u[j] for j in new) <= len(new) - 1)
        note_cut(model, "new-feature", "new_cut", restricts=True)
    return model
