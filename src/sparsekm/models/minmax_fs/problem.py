"""Paper E's problem: min-max feature weighting for the nonlinear SVM, problem (14).

    min_{gamma >= 0}  C2 ||gamma||_p^p + (1 - C2) max_alpha { e'alpha - 1/2 alpha' G_gamma alpha :
                                                           y'alpha = 0, 0 <= alpha <= C }

with G_gamma = diag(y) K_gamma diag(y) and K_gamma the anisotropic Gaussian kernel (13).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from sparsekm import declare
from sparsekm.models.problem import PointCheck, Problem, finite_point
from sparsekm.registry import register_problem
from sparsekm.specs import PENALTY

from .lower import check_gamma, lower_level

__all__ = ["MinMaxFSProblem"]


@register_problem("minmax-fs", paper="E", title="Min-max feature weighting for nonlinear SVMs "
                  "(anisotropic Gaussian kernel, problem (14))",
                  method="fast")
@dataclass
class MinMaxFSProblem(Problem):
    """Training data and the parameters of (14).

    Parameters
    ----------
    X, y : training rows (m x n) and labels in {-1, +1}; paper E scales X to [-1, 1].
    C : SVM penalty (10c) / (14c), > 0.
    C2 : trade-off in (0, 1) between ||gamma||_p^p and the SVM dual value (14a).
    p : exponent of the penalty ||gamma||_p^p = sum_j gamma_j^p, > 0 (paper: p = 1).
    """

    C: float = declare.field(1.0, PENALTY, help="SVM penalty C of (10c) / (14c).")
    C2: float = declare.field(0.5, "Trade-off C2 in (0, 1) between ||gamma||_p^p and the SVM "
                              "dual value in (14a) (paper E: 0.01..0.99).", gt=0, lt=1)
    p: float = declare.field(1.0, "Exponent p of the penalty sum_j gamma_j^p (paper E: 1).",
                             gt=0, le=100)

    variables: ClassVar[dict[str, str]] = {
        "gamma": "gamma_j: weight of feature j in the kernel (13)",
        "alpha": "alpha_i: lower-level SVM dual variable",
        "nu": "nu: multiplier of y'alpha = 0 (18)",
        "lambda0": "lambda0_i: multiplier of alpha_i >= 0 (18)",
        "lambdaC": "lambdaC_i: multiplier of alpha_i <= C (18)",
        "z": "z: epigraph variable of (19)"}

    def variable_sizes(self) -> dict[str, int]:
        return {"gamma": self.n, "alpha": self.m, "nu": 0, "lambda0": self.m,
                "lambdaC": self.m, "z": 0}

    def check_point(self, values: Mapping[str, Any],
                    support: Sequence[int] | None = None) -> PointCheck:
        """(14) of paper E: gamma >= 0; the value C2 ||gamma||_p^p + (1 - C2) V(gamma) with
        V re-solved at gamma (its certified upper value in ``details``)."""
        vals = finite_point({k: v for k, v in values.items() if v is not None})
        gamma = vals.get("gamma")
        if gamma is None:
            raise ValueError("the point gives no gamma (one weight per feature)")
        g = np.broadcast_to(gamma, (self.n,))
        ll = lower_level(self, np.clip(g, 0.0, None))
        return PointCheck({"gamma_nonneg": float(np.maximum(-g, 0).max())},
                          objective=self.objective(ll.gamma, ll.value),
                          support=[int(j) for j in np.flatnonzero(g > 0)],
                          details={"objective_upper": self.objective(ll.gamma, ll.primal)})

    def penalty(self, gamma: np.ndarray) -> float:
        """``||gamma||_p^p = sum_j gamma_j^p`` (gamma >= 0)."""
        g = np.asarray(gamma, dtype=float)
        return float(g.sum()) if self.p == 1.0 else float(np.sum(g ** self.p))

    def objective(self, gamma: np.ndarray, value: float) -> float:
        """(14a) at ``gamma`` given the SVM dual value V(gamma) = ``value``."""
        return self.C2 * self.penalty(gamma) + (1.0 - self.C2) * float(value)

    def start(self, gamma0: Any = None) -> np.ndarray:
        """A start gamma (n,): ``None`` -> 1/n for every feature, a scalar -> that value for every
        feature (the NO-FS start of Algorithm 1), or a vector."""
        return check_gamma(1.0 / self.n if gamma0 is None else gamma0, self.n)
