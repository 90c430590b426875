"""Weak-duality certificate of the soft-margin SVM: any dual alpha bounds the optimum.

For the dual (paper A eq. (3)) D(alpha) = 1/2 a'Qa - 1'a, Q = (yy') * K, and the primal
(paper D eq. (1) in kernel form) P(w, b) = 1/2||w||^2 + C sum max(0, 1 - y_i f(x_i)) with
w = sum_i alpha_i y_i phi(x_i): P(w, b) >= P* = -D* >= -D(alpha) for every feasible alpha and
every b. :func:`svm_duality` returns P at the best b (O(m log m)) and -D(alpha): an incumbent
and a certified lower bound on the SVM optimum from one alpha, whichever solver produced it.
"""

from __future__ import annotations

import numpy as np

__all__ = ["feasible_alpha", "optimal_intercept", "svm_duality"]


def feasible_alpha(alpha: np.ndarray, y: np.ndarray, C: float) -> np.ndarray:
    """The point of {0 <= a <= C, y'a = 0} that ``alpha`` becomes when clipped to the box and
    its heavier class scaled down: an outside solver's alpha is feasible only within its
    tolerances (y'alpha = 1e-9), and -D at an infeasible point is no bound (SCIP's on the rbf
    SVM of wine sat 9e-8 above Ipopt's feasible value)."""
    a = np.clip(np.nan_to_num(np.asarray(alpha, dtype=float)), 0.0, C)
    pos = np.asarray(y) > 0
    sp, sn = float(a[pos].sum()), float(a[~pos].sum())
    if sp > sn:
        a[pos] *= sn / sp
    elif sn > sp:
        a[~pos] *= sp / sn
    return a


def optimal_intercept(g: np.ndarray, y: np.ndarray) -> float:
    """The b minimizing sum_i max(0, 1 - y_i (g_i + b)) for fixed scores g = K (alpha*y).

    The hinge sum is convex piecewise linear in b with kinks at b = y_i - g_i, so its minimum
    is at a kink; all kinks are scanned in O(m log m) with sorted cumulative slopes.
    """
    g = np.asarray(g, dtype=float)
    y = np.asarray(y, dtype=float)
    kinks = y - g
    order = np.argsort(kinks)
    k = kinks[order]
    yo = y[order]
    # slope of the hinge sum just right of b: sum over active terms of -y_i, where term i is
    # active when y_i (g_i + b) < 1, i.e. b < k_i for y = +1 and b > k_i for y = -1.
    pos_right = (yo > 0).sum() - np.cumsum(yo > 0)  # y=+1 terms with k_i > b
    neg_left = np.cumsum(yo < 0)  # y=-1 terms with k_i <= b
    slope = -pos_right + neg_left
    idx = int(np.searchsorted(slope, 0.0, side="left"))
    return float(k[min(idx, k.size - 1)])


def svm_duality(K: np.ndarray, y: np.ndarray, alpha: np.ndarray, C: float,
                g: np.ndarray | None = None) -> tuple[float, float, float]:
    """(primal value at the best intercept, lower bound -D(alpha), that intercept b).

    ``g = K (alpha * y)`` may be passed when the caller has it (saves the O(m^2) product).
    ``alpha`` is made feasible first (:func:`feasible_alpha`), so the bound holds whoever
    computed it; ``g`` is used only when that changed nothing.
    """
    raw = np.asarray(alpha, dtype=float)
    alpha = feasible_alpha(raw, y, C)
    ay = alpha * y
    if g is None or not np.array_equal(alpha, raw):
        g = K @ ay
    b = optimal_intercept(g, y)
    quad = float(ay @ g)
    primal = 0.5 * quad + C * float(np.maximum(0.0, 1.0 - y * (g + b)).sum())
    return primal, -(0.5 * quad - float(alpha.sum())), b


def linearized_bound(alpha: np.ndarray, grad: np.ndarray, y: np.ndarray, lo: np.ndarray,
                     hi: np.ndarray) -> tuple[float, float]:
    """(h, b*): a certified lower bound is ``f(alpha) + h`` for any convex dual f in the family.

    For f convex on F = {lo <= a <= hi, y'a = 0}, ``f* >= f(alpha) + min_{beta in F}
    G'(beta - alpha)`` (G = grad f(alpha)); relaxing y'beta = 0 with a multiplier b gives
    ``h(b) = sum_k min_{beta_k in [lo_k, hi_k]} (G_k + b y_k)(beta_k - alpha_k) <= 0``, concave
    and piecewise linear in b with kinks at b_k = -y_k G_k. Its maximiser b* is found by one
    sort (O(m log m)). For the hinge SVM dual, ``-(f + h(b))`` is the primal value at
    intercept b, so this is :func:`svm_duality`'s bound; b* is the best intercept.
    """
    kinks = -y * grad
    order = np.argsort(kinks)
    # slope of term k left of its kink (>= 0) and right of it (<= 0)
    wl = np.where(y > 0, hi - alpha, alpha - lo)[order]
    wr = np.where(y > 0, lo - alpha, alpha - hi)[order]
    slope_right = (wl.sum() - np.cumsum(wl)) + np.cumsum(wr)
    r = int(np.searchsorted(-slope_right, 0.0, side="left"))  # first r with slope <= 0
    b = float(kinks[order[min(r, kinks.size - 1)]])
    s = grad + b * y
    h = float(np.minimum(s * (lo - alpha), s * (hi - alpha)).sum())
    return min(h, 0.0), b
