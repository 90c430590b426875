"""The separable terms phi of the kernel-dual family and their derivatives (compiled).

``phi`` is 0 for the hinge (the SVM dual, paper A eq. (3)) and the entropy
``phi(a) = c G(a / c)``, ``G(t) = t log t + (1 - t) log(1 - t)``, for the logistic dual
(paper C eq. (22)).
"""

from __future__ import annotations

import math

from numba import njit

__all__ = ["HINGE", "LOGISTIC", "phi_d1", "phi_d2", "phi_value"]

HINGE, LOGISTIC = 0, 1


@njit(cache=True, nogil=True)
def phi_d1(loss, a, c):
    """phi'(a) = log(a / (c - a)) for the entropy, 0 for the hinge."""
    if loss == LOGISTIC:
        return math.log(a) - math.log(c - a)
    return 0.0


@njit(cache=True, nogil=True)
def phi_d2(loss, a, c):
    """phi''(a) = c / (a (c - a)) for the entropy (eq. (35)), 0 for the hinge."""
    if loss == LOGISTIC:
        return c / (a * (c - a))
    return 0.0


@njit(cache=True, nogil=True)
def phi_value(loss, a, c):
    """phi(a) = c G(a / c) = a log(a / c) + (c - a) log(1 - a / c) (0 log 0 = 0)."""
    if loss != LOGISTIC:
        return 0.0
    v = 0.0
    if a > 0.0:
        v += a * math.log(a / c)
    if a < c:
        v += (c - a) * math.log1p(-a / c)
    return v

