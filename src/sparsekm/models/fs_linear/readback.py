"""Points of FS-SVM (2) as results, and the point a solved model of paper D holds.

Nothing here runs a solver: solving a model and certifying what its bound means is the
algorithms' (:func:`sparsekm.algorithms.solve_formulation`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from sparsekm.solvers import Result

from .problem import FSLinearProblem

__all__ = ["SEL_TOL", "ModelPoint", "model_point", "point_result"]

SEL_TOL = 1e-6


def point_result(problem: FSLinearProblem, w: np.ndarray, b: float, *, method: str = "",
                 solver: str = "") -> Result:
    """A feasible point (w, b) of (2) as a :class:`Result` (objective recomputed exactly)."""
    selected = sorted(int(j) for j in np.flatnonzero(np.abs(w) > SEL_TOL))
    return Result(objective=problem.objective(w, b), method=method, problem="fs-linear",
                  solver=solver, selected=selected,
                  values={"w": w, "b": b})


@dataclass
class ModelPoint:
    """The point a solved model of :mod:`sparsekm.models.fs_linear` holds: (w, b) over all
    features (0 outside the model's K), the selection variable as the model has it
    (``selector``: ``"u"`` or ``"v"``, its values), and the support read from both: the
    features it selects with |w_j| > 1e-6, at most B (round-off in the selection: the B
    largest |w_j|)."""

    w: np.ndarray
    b: float
    selector: str | None
    selection: np.ndarray | None
    support: list[int]

    def variables(self) -> dict[str, Any]:
        """The paper's variables of the point (what ``check_point`` reads)."""
        out: dict[str, Any] = {"w": self.w, "b": self.b}
        if self.selector is not None:
            out[self.selector] = self.selection
        return out


def _full(model: Any, name: str, n: int, fill: float = 0.0) -> np.ndarray:
    out = np.full(n, fill)
    var = getattr(model, name)
    for j in model.K:
        val = var[j].value
        out[j] = 0.0 if val is None else float(val)
    return out


def model_point(problem: FSLinearProblem, model: Any) -> ModelPoint:
    """Read the point of a solved model (see :class:`ModelPoint`). A model the toolkit did
    not build for paper D (no ``fs_data``) is a ``ValueError``."""
    d = getattr(model, "fs_data", None)
    if not isinstance(d, dict) or "K" not in d:
        raise ValueError("the model is not one of sparsekm.models.fs_linear (bigm_model, "
                         "cop_model, sr_dlmp_model): its variables cannot be read as a point "
                         "of (2)")
    n = problem.n
    w = _full(model, "w", n)
    b = float(model.b.value or 0.0)
    sel = list(d["K"])
    selector = d.get("selector")
    selection = None
    if selector == "u":          # u_j = 1: w_j = 0 (outside K: u_j = 1)
        selection = _full(model, "u", n, fill=1.0)
        sel = [j for j in sel if selection[j] < 0.5]
    elif selector == "v":        # v_j = 1: feature j selected (outside K: 0)
        selection = _full(model, "v", n)
        sel = [j for j in sel if selection[j] > 0.5]
    sel = [j for j in sel if abs(w[j]) > SEL_TOL] or sel
    if len(sel) > problem.B:
        sel = sorted(sorted(sel, key=lambda j: -abs(w[j]))[:problem.B])
    return ModelPoint(w, b, selector, selection, sorted(sel))
