"""Certified bounds on ``v(beta) = min_alpha f(alpha, beta)`` over a node's masks (paper A).

Paper A, eqs. (3)-(4): ``f(alpha, beta) = 1/2 w'K_beta w - 1'alpha``, ``w = alpha * y``,
alpha in ``Delta = {0 <= alpha <= C, y'alpha = 0}``. A node fixes ``I`` in and picks ``r``
more from the free set ``U``; its masks ``beta`` satisfy ``I <= beta <= I u U``. Every value
here is certified at a feasible point, whatever the accuracy of the solver that found it:

* an upper bound on ``min_alpha f(alpha, K)`` is ``f(alpha, K)`` at any feasible alpha
  (:meth:`NodeBounds.upper`, any symmetric ``K``);
* a lower bound, for a PSD ``K``, is ``-P(w(alpha), b*)`` (weak duality of the SVM,
  :func:`~sparsekm.engines.smo.svm_duality`; :meth:`NodeBounds.lower`).

The node bounds (:meth:`NodeBounds.node`):

* *superset* (margin sense, polynomial kernel, ``c >= 0``): ``K_beta = (gamma S_beta + c)^d``
  grows in the PSD order with the mask (sums and Schur products of PSD matrices), so
  ``f(alpha, beta) <= f(alpha, I u U)`` for every alpha and ``v(beta) <= v(I u U)``;
* *subset* (paper sense, polynomial kernel): by the same order ``v(beta) >= v(I)``;
* *box corner* (margin sense, Gaussian kernel): each entry ``exp(-gamma S_ih)`` lies between
  its values at the least and the largest ``S_ih`` over the node (the ``r`` smallest / largest
  free terms added to ``I``'s). ``f(alpha, K)`` grows with ``K_ih`` where ``y_i y_h > 0`` and
  falls where ``y_i y_h < 0`` (alpha >= 0), so the corner ``K*`` (largest same-class, least
  cross-class entries) gives ``f(alpha, beta) <= f(alpha, K*)`` for every alpha, hence
  ``v(beta) <= min_alpha f(alpha, K*)`` (``K*`` need not be PSD: any feasible alpha bounds
  that minimum from above);
* otherwise the bounds every mask meets: ``v <= f(0, .) = 0`` (margin) and, the kernels being
  PSD, ``v >= -max{1'alpha : alpha in Delta} = -2 C min(m+, m-)`` (paper).

Measured (``docs/guides/fs_kernel.md``): the superset and subset bounds prune near the leaves;
the box corner is valid but far above the optimum on every instance of paper A's tables.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from sparsekm.engines.smo import feasible_alpha
from sparsekm.kernels import feature_terms
from sparsekm.models.fs_kernel import FSKernelProblem

from .child_bounds import ROUND, ChildBounds, child_bounds
from .evaluator import SVM_TOL

__all__ = ["ROUND", "NodeBounds"]

CACHE_SIZE = 20_000   # supersets / subsets kept per worker
EXACT_BAND = 0.05     # margin: a child's superset SVM only within 5 % above the incumbent
                      # (measured: 59 % of such children pruned at d = 5, < 6 % beyond)


class NodeBounds:
    """The per-feature terms of the problem and its node bounds (see the module doc)."""

    def __init__(self, p: FSKernelProblem) -> None:
        self.p = p
        self.terms = np.ascontiguousarray(feature_terms(p.X, p.kernel))
        self.paper = p.sense == "paper"
        self.kind = p.kernel
        m_pos, m_neg = int((p.y > 0).sum()), int((p.y < 0).sum())
        self.trivial = -2.0 * p.C * min(m_pos, m_neg) if self.paper else 0.0
        self.bounded = p.kernel == "poly" or not self.paper   # node bounds beyond trivial
        self.solved: dict[bytes, tuple[float, np.ndarray]] = {}   # only saves time
        self.solves = 0
        self.deadline: Any = None     # the task's Deadline: every SVM takes the time left

    def _limit(self) -> float | None:
        return None if self.deadline is None else self.deadline.cap(None)

    def _cached(self, mask: np.ndarray, compute: Any) -> tuple[float, np.ndarray]:
        """``compute()`` for the superset / subset ``mask``, kept (siblings share it)."""
        key = np.packbits(mask).tobytes()
        if key not in self.solved:
            if len(self.solved) > CACHE_SIZE:
                self.solved.clear()
            self.solved[key] = compute()
        return self.solved[key]

    def aggregate(self, mask: np.ndarray) -> np.ndarray:
        """``S = sum_{j in mask} g_j``, summed in feature order."""
        idx = np.flatnonzero(mask)
        if idx.size == 0:
            return np.zeros(self.terms.shape[1:])
        out = self.terms[idx[0]].copy()
        for j in idx[1:]:
            out += self.terms[j]
        return out

    def kernel(self, S: np.ndarray) -> np.ndarray:
        """``phi(S)`` entrywise (Section 2.2)."""
        p = self.p
        if self.kind == "rbf":
            return np.exp(-p.gamma * S)
        return (p.gamma * S + p.coef0) ** p.degree

    def _svm(self, K: np.ndarray) -> np.ndarray:
        from sparsekm.engines.smo import SVMDualOptions, solve_svm_dual

        p = self.p
        self.solves += 1
        return solve_svm_dual(K, p.y, p.C, options=SVMDualOptions(
            tol=SVM_TOL, check_input=False, time_limit=self._limit())).alpha

    def certify_upper(self, K: np.ndarray, alpha: np.ndarray) -> tuple[float, np.ndarray]:
        """``f(alpha, K)`` at ``alpha`` made exactly feasible, plus its round-off: an upper
        bound on ``min_alpha f(alpha, K)`` (any symmetric ``K``); and that alpha."""
        p = self.p
        a = feasible_alpha(alpha, p.y, p.C)
        w = a * p.y
        f = 0.5 * float(w @ K @ w) - float(a.sum())
        mag = 0.5 * float(np.abs(w) @ np.abs(K) @ np.abs(w)) + float(a.sum())
        return f + ROUND * mag, a

    def certify_lower(self, K: np.ndarray, alpha: np.ndarray, tight: bool = False) -> float:
        """``-P(w(alpha), b*)`` minus its round-off: a lower bound on ``min_alpha f(alpha,
        K)`` for a PSD ``K`` (weak duality; any alpha, clipped to the box). ``tight``: first
        continue the SMO from alpha to a KKT tolerance of 1e-10 (an incumbent's bound)."""
        from sparsekm.engines.smo import SVMDualOptions, solve_svm_dual, svm_duality

        p = self.p
        if tight:
            alpha = solve_svm_dual(K, p.y, p.C, alpha0=alpha, options=SVMDualOptions(
                tol=1e-10, check_input=False, backend="smo", time_limit=self._limit())).alpha
        primal, _, _ = svm_duality(K, p.y, alpha, p.C)
        return -primal - ROUND * (abs(primal) + p.C * p.m)

    def upper(self, K: np.ndarray) -> tuple[float, np.ndarray]:
        """A certified upper bound on ``min_alpha f(alpha, K)`` at the SVM's alpha."""
        return self.certify_upper(K, self._svm(K))

    def lower(self, K: np.ndarray) -> float:
        """A certified lower bound on ``min_alpha f(alpha, K)`` at the SVM's point (PSD)."""
        return self.certify_lower(K, self._svm(K))

    def corner(self, inc: np.ndarray, free: np.ndarray, r: int) -> np.ndarray:
        """The box corner ``K*`` of a node (Gaussian kernel, margin sense)."""
        S0 = self.aggregate(inc)
        T = self.terms[np.flatnonzero(free)]
        srt = np.sort(T, axis=0)
        smin = S0 + srt[:r].sum(axis=0)
        smax = S0 + srt[T.shape[0] - r:].sum(axis=0)
        same = np.outer(self.p.y, self.p.y) > 0
        return self.kernel(np.where(same, smin, smax))   # exp falls with S

    def node(self, inc: np.ndarray, free: np.ndarray, r: int, inc_v: float = math.nan
             ) -> tuple[float, Any]:
        """The node's certified bound on ``v`` (upper: margin; lower: paper) and, for poly
        kernels, the bounds of its children (:class:`~.child_bounds.ChildBounds`; None
        otherwise). ``inc_v``: the incumbent; a child bound that does not prune it is
        tightened by the child's own SVM (paper sense: always; margin sense: when within
        ``EXACT_BAND`` of it, where the SVM of the child's superset may prune it)."""
        from .node_bound import quad_terms

        p = self.p
        if p.kernel == "poly" and p.coef0 >= 0:
            if self.paper:
                return self._subset(inc, free, inc_v)
            ub, a = self._superset(inc | free)
            kids = child_bounds(self, inc, free, r, a, quad_terms(p, a) if p.degree == 2
                                else None)
            for k, j in enumerate(np.flatnonzero(free)):     # the j-out child's superset
                b = kids.without_j[k]
                if inc_v < b <= inc_v + EXACT_BAND * abs(inc_v):
                    sup = inc | free
                    sup[j] = False
                    kids.without_j[k] = min(kids.without_j[k], self._superset(sup)[0])
            return min(ub, kids.node), kids
        if p.kernel == "rbf" and not self.paper:
            return min(self.upper(self.corner(inc, free, r))[0], 0.0), None
        return self.trivial, None

    def _superset(self, mask: np.ndarray) -> tuple[float, np.ndarray]:
        """Margin sense, poly: ``v <= v(mask)`` for every mask below ``mask`` (the PSD
        order), certified at the SVM's alpha, which it also returns."""
        return self._cached(mask, lambda: self.upper(self.kernel(self.aggregate(mask))))

    def _subset(self, inc: np.ndarray, free: np.ndarray, inc_v: float) -> tuple[float, Any]:
        """Paper sense, poly: ``v >= v(I)`` for the node and ``v >= v(I + j)`` for the child
        that takes ``j`` (the PSD order; one SVM each, certified by weak duality)."""
        def low(mask: np.ndarray) -> float:
            if not mask.any():
                return self.trivial
            S = self.aggregate(mask)
            return max(self._cached(mask, lambda: (self.lower(self.kernel(S)), None))[0],
                       self.trivial)

        node = low(inc)
        U = np.flatnonzero(free)
        pruned = node >= inc_v            # then no child needs its own bound
        with_j = np.array([node if pruned else low(inc | (np.arange(inc.size) == j))
                           for j in U])
        return node, ChildBounds(node, np.maximum(with_j, node), np.full(U.size, node))

    def masks(self, free: np.ndarray, r: int) -> int:
        """How many masks a node holds."""
        return math.comb(int(free.sum()), r)
