"""The linear SVM (paper D eq. (1)) on a few columns, natively: the hot subproblem of paper D's
swap searches (a support of B features, solved thousands of times).

``solve_linear_svm(XS, y, C, *, method="auto", alpha0=None, tol=1e-9) -> LinearSVMFit``
    the SVM on the columns XS (m, k) with the paper's unregularised intercept, by a
    primal-dual interior-point method (:mod:`.ipm`, 10-30 iterations of O(m k^2) whatever C)
    or by warm-started pair coordinate descent (:mod:`.dcd`, liblinear's dual coordinate
    descent made to keep y'alpha = 0).
``decide_below(XS, y, C, cutoff, *, method="auto", alpha0=None, tol=1e-9)``
    is the optimum on XS below ``cutoff``? Stops as soon as a certificate answers;
    ``"auto"`` tries a few warm pair updates first, then the IPM.

Every result carries its certificate (:mod:`.certificate`): ``primal`` is the objective of a
feasible point (w, b), ``dual`` a lower bound on the optimum (weak duality).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .certificate import best_intercept, certificate, feasible_dual, primal_best_b, snapped_dual
from .dcd import dcd_below
from .ipm import ipm_below
from .status import ABOVE, BELOW, UNDECIDED

__all__ = ["ABOVE", "AUTO_PAIRS_PER_ROW", "BELOW", "METHODS", "LinearSVMFit", "best_intercept",
           "certificate", "decide_below", "feasible_dual", "primal_best_b", "snapped_dual",
           "solve_linear_svm"]

METHODS = ("auto", "ipm", "dcd")
IPM_MAX_ITER = 200
AUTO_PAIRS_PER_ROW = 4  # "auto": warm pair updates allowed (per row) before the IPM takes over


@dataclass(frozen=True)
class LinearSVMFit:
    """The SVM (1) on k columns: the feasible dual point ``alpha`` (m), the primal point
    (``w`` (k), ``b``), its objective ``primal``, the lower bound ``dual`` = D(alpha) on the
    optimum, and the iterations (IPM steps or pair updates)."""

    alpha: np.ndarray
    w: np.ndarray
    b: float
    primal: float
    dual: float
    iterations: int
    below: bool = True

    @property
    def gap(self) -> float:
        """primal - dual >= 0: how far ``primal`` can be above the optimum."""
        return max(self.primal - self.dual, 0.0)


def _check(XS: np.ndarray, y: np.ndarray, C: float, method: str) -> tuple[np.ndarray,
                                                                          np.ndarray]:
    if method not in METHODS:
        raise ValueError(f"method={method!r}: use one of {', '.join(METHODS)}")
    if not (isinstance(C, int | float) and math.isfinite(C) and C > 0):
        raise ValueError(f"C={C!r} must be a positive finite number")
    XS = np.ascontiguousarray(XS, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    if XS.ndim != 2 or y.shape != (XS.shape[0],) or XS.shape[1] < 1:
        raise ValueError(f"XS must be (m, k >= 1) with y of length m; got {XS.shape} and "
                         f"{y.shape}")
    return XS, y


def _start(alpha0: np.ndarray | None, y: np.ndarray, C: float) -> np.ndarray:
    m = y.size
    if alpha0 is None:
        return np.zeros(m)
    a = np.array(alpha0, dtype=np.float64)
    if a.shape != (m,) or a.min() < 0 or a.max() > C * (1 + 1e-12) or \
            abs(float(a @ y)) > 1e-9 * max(1.0, C * m):
        raise ValueError("alpha0 must have one entry per row, lie in [0, C] and satisfy "
                         "y'alpha0 = 0")
    return np.clip(a, 0.0, C)


def decide_below(XS: np.ndarray, y: np.ndarray, C: float, cutoff: float, *,
                 method: str = "auto", alpha0: np.ndarray | None = None,
                 tol: float = 1e-9) -> LinearSVMFit:
    """Is the SVM optimum on the columns XS below ``cutoff``? ``fit.below`` answers, with
    ``fit.primal < cutoff`` (a feasible point below) or ``fit.dual >= cutoff`` (a proof it
    is not; ``fit.primal`` may then be inf: not computed) or, when neither, the point solved
    to ``tol``.

    ``"ipm"`` starts from the centre of the box; ``"dcd"`` from ``alpha0``; ``"auto"`` makes
    at most 10 m warm pair updates from ``alpha0`` (enough when the start is close: small C,
    nearly separable rows) and hands an undecided case to the IPM (measured in
    ``benchmarks/results/fs_linear_fast.md``); a full solve (``cutoff = inf``) is the IPM's.
    """
    XS, y = _check(XS, y, C, method)
    m, k = XS.shape
    w = np.empty(k)
    C, cutoff = float(C), float(cutoff)
    if method == "dcd" or (method == "auto" and alpha0 is not None and cutoff < math.inf):
        alpha = _start(alpha0, y, C)
        first = tol if math.isinf(cutoff) else max(tol, 1e-3)
        pairs = AUTO_PAIRS_PER_ROW * m if method == "auto" else 100_000 + 200 * m
        st, P, D, b, it = dcd_below(XS, y, C, alpha, w, cutoff, (first, tol, pairs))
        if st != UNDECIDED:
            return LinearSVMFit(alpha, w, float(b), float(P), float(D), int(it),
                                bool(st == BELOW))
    alpha = np.empty(m)
    st, P, D, b, it = ipm_below(XS, y, C, cutoff, tol, IPM_MAX_ITER, alpha, w)
    return LinearSVMFit(alpha, w, float(b), float(P), float(D), int(it), bool(st == BELOW))


def solve_linear_svm(XS: np.ndarray, y: np.ndarray, C: float, *, method: str = "auto",
                     alpha0: np.ndarray | None = None, tol: float = 1e-9) -> LinearSVMFit:
    """The SVM (1) on the columns ``XS`` (m, k), to a relative duality gap of about ``tol``
    (``"ipm"``, also ``"auto"``) or a maximal KKT violation below ``tol`` (``"dcd"``,
    warm-started from ``alpha0``: any alpha in [0, C] with y'alpha = 0, e.g. another
    support's)."""
    return decide_below(XS, y, C, math.inf, method=method, alpha0=alpha0, tol=tol)
