"""The reduced system of the node active-set engine's null-space step (numba).

On a fixed partition the node dual is an equality-constrained concave QP in z = (alpha_M, r)
(:mod:`.pivot`) with only a handful of degrees of freedom left (2-6 on the wide sets): in the
basis Z of the null space of the constraints (:mod:`.qr`) the step solves (Z'HZ) p = Z' grad q
(Nocedal & Wright, Numerical Optimization, 2nd ed., Section 16.2), a tiny symmetric positive
semidefinite system.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["reduced_solve"]


@njit(cache=True, error_model="numpy")
def reduced_solve(R, g):
    """p with R p = g for the small symmetric positive semidefinite reduced Hessian R, by
    Cholesky with a relative shift of 1e-12 (a flat direction then gives a long step that
    the ratio test of the caller cuts: a ray of the piecewise problem)."""
    d = g.size
    if d == 0:
        return np.zeros(0)
    tr = 0.0
    for i in range(d):
        tr += abs(R[i, i])
    shift = 1e-12 * max(tr, 1e-300)
    Lc = np.zeros((d, d))
    for i in range(d):
        for j in range(i + 1):
            acc = R[i, j] + (shift if i == j else 0.0)
            for c in range(j):
                acc -= Lc[i, c] * Lc[j, c]
            if i == j:
                Lc[i, i] = np.sqrt(max(acc, shift))
            else:
                Lc[i, j] = acc / Lc[j, j]
    p = g.copy()
    for i in range(d):
        acc = p[i]
        for c in range(i):
            acc -= Lc[i, c] * p[c]
        p[i] = acc / Lc[i, i]
    for i in range(d - 1, -1, -1):
        acc = p[i]
        for c in range(i + 1, d):
            acc -= Lc[c, i] * p[c]
        p[i] = acc / Lc[i, i]
    return p
