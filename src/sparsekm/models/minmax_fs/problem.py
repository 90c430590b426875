"""Paper E's problem: min-max feature weighting for the nonlinear SVM, problem (14).

    min_{gamma >= 0}  C2 ||gamma||_p^p + (1 - C2) max_alpha { e'alpha - 1/2 alpha' G_gamma alpha :
                                                           y'alpha = 0, 0 <= alpha <= C }

with G_gamma = diag(y) K_gamma diag(y) and K_gamma the anisotropic Gaussian kernel (13).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from sparsekm import declare
from sparsekm.models.problem import Problem
from sparsekm.registry import register_problem
from sparsekm.specs import PENALTY

__all__ = ["MinMaxFSProblem", "check_gamma"]


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


def check_gamma(gamma: Any, n: int, name: str = "gamma0") -> np.ndarray:
    """A finite nonnegative weight vector of length n (a scalar is repeated)."""
    try:
        g = np.asarray(gamma, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name}={gamma!r} must be a number or {n} numbers >= 0") from None
    if g.ndim == 0:
        g = np.full(n, float(g))
    if g.shape != (n,):
        raise ValueError(f"{name} has shape {g.shape}; pass one weight per feature ({n}) or a "
                         "scalar")
    if not np.all(np.isfinite(g)):
        raise ValueError(f"{name} contains NaN or inf; kernel weights must be finite")
    if np.any(g < 0):
        raise ValueError(f"{name} has negative entries (min {g.min():.3g}); kernel weights "
                         "gamma_j of (13) must be >= 0")
    return g.copy()
