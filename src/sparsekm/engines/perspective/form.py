"""The standard form G x + s = h of the perspective dual (see :mod:`.ipm`).

x = (alpha, tau, t). The slack s = h - G x has a linear part (alpha, C - alpha, tau, t) >= 0
and, per feature j of the working set, the 3-vector s_j = ((t_j + tau + 1)/2,
(t_j + tau - 1)/2, q_j'alpha) in the second-order cone: (q_j'alpha)^2 <= t_j + tau (paper D,
Lemma 4.3). The operators G x, G' z and the offset h are shared by the interior-point method
and its Newton system (:mod:`.kkt`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["PerspectiveData", "apply_g", "apply_g_transpose", "right_hand_side"]


@dataclass
class PerspectiveData:
    """The (scaled) data of the perspective dual: Q = Y X_W, QF = Y X_F1, y, the box C and
    the budget k."""

    Q: np.ndarray          # m x p
    QF: np.ndarray         # m x f
    y: np.ndarray
    C: float
    k: int

    @property
    def m(self) -> int:
        return self.Q.shape[0]

    @property
    def p(self) -> int:
        return self.Q.shape[1]


def apply_g(d: PerspectiveData, a: np.ndarray, tau: float, t: np.ndarray,
            ) -> tuple[np.ndarray, np.ndarray]:
    """G x (linear part, cone part)."""
    gl = np.concatenate([-a, a, [-tau], -t])
    zt = -0.5 * (tau + t)
    return gl, np.column_stack([zt, zt, -(a @ d.Q)])


def apply_g_transpose(d: PerspectiveData, zl: np.ndarray, zq: np.ndarray,
                      ) -> tuple[np.ndarray, float, np.ndarray]:
    """G' z split as (alpha, tau, t)."""
    m = d.m
    w = -0.5 * (zq[:, 0] + zq[:, 1])
    ga = -zl[:m] + zl[m:2 * m] - d.Q @ zq[:, 2]
    return ga, float(-zl[2 * m] + w.sum()), -zl[2 * m + 1:] + w


def right_hand_side(d: PerspectiveData) -> tuple[np.ndarray, np.ndarray]:
    """h (linear part, cone part): C on the upper box rows, (1/2, -1/2, 0) per cone."""
    hl = np.zeros(2 * d.m + 1 + d.p)
    hl[d.m:2 * d.m] = d.C
    hq = np.zeros((d.p, 3))
    hq[:, 0], hq[:, 1] = 0.5, -0.5
    return hl, hq

