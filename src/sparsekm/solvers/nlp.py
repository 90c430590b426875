"""A nonlinear program given as numpy callbacks: the solver layer's third kind of model.

Paper A's relaxation and paper E's bilevel reformulation have exact, vectorised gradients that
a modelling layer cannot write as fast; :class:`CallbackNLP` hands them to Ipopt through the
same :func:`sparsekm.solvers.solve` as a Pyomo model (framework ``"callbacks"``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .types import ProblemClass

__all__ = ["CallbackNLP"]


@dataclass
class CallbackNLP:
    """min (or max) f(x) s.t. cl <= g(x) <= cu, lb <= x <= ub, as callbacks.

    ``jacobian`` returns the values of the entries listed by ``jacobianstructure`` (rows, cols);
    without a structure the Jacobian is dense (``jacobian`` returns g' as an array). Without
    ``hessian`` Ipopt uses L-BFGS. ``names`` maps a variable name to its slice of x, so that
    the result's ``values`` hold e.g. ``alpha`` and ``beta``. ``convex`` declares that a local
    optimum is global (so its value is a certified bound).
    """

    n: int
    x0: np.ndarray
    lb: np.ndarray
    ub: np.ndarray
    objective: Callable[[np.ndarray], float]
    gradient: Callable[[np.ndarray], np.ndarray]
    constraints: Callable[[np.ndarray], np.ndarray] | None = None
    jacobian: Callable[[np.ndarray], np.ndarray] | None = None
    jacobianstructure: Callable[[], tuple[np.ndarray, np.ndarray]] | None = None
    cl: np.ndarray | None = None
    cu: np.ndarray | None = None
    hessian: Callable[..., np.ndarray] | None = None
    hessianstructure: Callable[[], tuple[np.ndarray, np.ndarray]] | None = None
    sense: str = "min"
    names: dict[str, slice] = field(default_factory=dict)
    problem_class: ProblemClass = ProblemClass.NLP
    convex: bool = False
    name: str = "callback NLP"

    def named_values(self, x: np.ndarray) -> dict[str, Any]:
        """``{"x": x}`` plus one entry per name in ``names``."""
        out: dict[str, Any] = {"x": np.asarray(x, dtype=float)}
        for key, sl in self.names.items():
            out[key] = np.asarray(x[sl], dtype=float)
        return out

    def ipopt_callbacks(self) -> Any:
        """The object cyipopt calls (objective, gradient, constraints, jacobian, ...)."""
        nlp, sign = self, (1.0 if self.sense == "min" else -1.0)

        class _Callbacks:
            def objective(self, x: np.ndarray) -> float:
                return sign * nlp.objective(x)

            def gradient(self, x: np.ndarray) -> np.ndarray:
                return sign * np.asarray(nlp.gradient(x), dtype=float)

        cb = _Callbacks()
        if self.constraints is None:
            cb.constraints = lambda x: np.zeros(0)
            cb.jacobian = lambda x: np.zeros(0)
            cb.jacobianstructure = lambda: (np.zeros(0, dtype=int), np.zeros(0, dtype=int))
        else:
            cb.constraints = self.constraints
            cb.jacobian = (self.jacobian if self.jacobianstructure is not None
                           else (lambda x: np.asarray(nlp.jacobian(x)).ravel()))
            if self.jacobianstructure is not None:
                cb.jacobianstructure = self.jacobianstructure
        if self.hessian is not None:
            if sign > 0:
                cb.hessian = self.hessian
            else:
                cb.hessian = lambda x, lag, of: nlp.hessian(x, lag, -of)
            if self.hessianstructure is not None:
                cb.hessianstructure = self.hessianstructure
        return cb
