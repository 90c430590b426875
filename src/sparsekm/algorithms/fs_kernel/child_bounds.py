"""Bounds for a node and for each of its children at one feasible alpha (poly kernels).

Paper A, Section 4.2 and Proposition 1: for the polynomial kernel with ``c >= 0`` and a fixed
alpha, ``F(S) = w'K_S w`` (``w = alpha * y``) is a polynomial in the mask with nonnegative
coefficients (each ``(sum_i w_i prod_t x_{i j_t})^2``), hence monotone and supermodular: the
gain of a feature only grows with the set it joins. With ``f(alpha, S) = F(S) / 2 - 1'alpha
>= v(S)`` (eq. (4)) this bounds every mask ``I u S`` (``S`` in ``U``, ``|S| = r``) of a node,
margin sense, from the node's alpha alone:

* superset: ``F(I u S) <= F(I u U)``;
* gains at the top: ``F(I u S) <= F(I) + sum_{j in S} rho_j``, ``rho_j = F(I u U) - F(I u
  U - j)`` (each gain at most the gain into the largest set);
* gains at the bottom: ``F(I u S) <= F(I u U) - sum_{j in U - S} delta_j``, ``delta_j =
  F(I + j) - F(I)`` (each removed gain at least its gain into the smallest set);
* degree 2 (Section 2.2): ``F = beta'Q beta + 2 l'beta + const`` with ``Q = gamma^2 (A o A)``
  entrywise nonnegative (``A = X'diag(w)X``); the pair terms of ``S`` are at most each row's
  ``r - 1`` largest (:func:`~.node_bound.quad_terms`, the top-r relaxation).

Each relaxation is a sum of per-feature scores, so the bound of the child that forces ``j``
in or out follows from the same scores (top-k sums without ``j``): one alpha gives the node's
bound and both bounds of every child (:class:`ChildBounds`), which fix features and prune
children before they are queued.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

ROUND = 1e-12  # relative slack for the round-off of a certified value (sums of <= 1e3 terms)

__all__ = ["ROUND", "ChildBounds", "child_bounds"]


@dataclass
class ChildBounds:
    """Certified upper bounds on ``v`` (margin sense): the node's, and per free feature
    (in the order of ``U``) the child's with ``j`` in and with ``j`` out."""

    node: float
    with_j: np.ndarray
    without_j: np.ndarray


def _top(v: np.ndarray, k: int) -> np.ndarray:
    """Per j: the sum of the k largest entries of v other than v[j] (k >= 0)."""
    u = v.size
    if k <= 0:
        return np.zeros(u)
    order = np.sort(v)[::-1]
    head = order[:k].sum()
    nxt = order[k] if k < u else -np.inf
    kth = order[k - 1]
    # j among the k largest (by value): replace it by the (k+1)-th
    out = np.where(v >= kth, head - v + (nxt if np.isfinite(nxt) else 0.0), head)
    if k >= u:                           # fewer than k others: all of them
        out = v.sum() - v
    return out


def _forms(K: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``w'K w`` and ``|w|'|K||w|`` over the leading axes of ``K`` (..., s, s)."""
    a = np.abs(w)
    return (np.einsum("...ih,i,h->...", K, w, w), np.einsum("...ih,i,h->...", np.abs(K), a, a))


def child_bounds(nb, inc: np.ndarray, free: np.ndarray, r: int, alpha: np.ndarray,
                 quad: tuple | None = None) -> ChildBounds:
    """The bounds of the module doc at ``alpha`` (feasible), each plus its round-off.

    ``nb`` is the problem's :class:`~.kernel_bounds.NodeBounds`; ``quad`` the degree-2 terms
    ``(Q, l, const)`` of :func:`~.node_bound.quad_terms` at ``alpha`` (None: not used).
    """
    sv = np.flatnonzero(alpha > 0)
    w = (alpha * nb.p.y)[sv]
    U = np.flatnonzero(free)
    u = U.size
    T = nb.terms[np.ix_(U, sv, sv)]
    S_I = nb.aggregate(inc)[np.ix_(sv, sv)]
    S_IU = S_I + T.sum(axis=0)
    F_I, a_I = _forms(nb.kernel(S_I), w)
    F_IU, a_IU = _forms(nb.kernel(S_IU), w)
    F_Ij, a_Ij = _forms(nb.kernel(S_I[None] + T), w)
    F_IUj, a_IUj = _forms(nb.kernel(S_IU[None] - T), w)
    rho, delta = F_IU - F_IUj, F_Ij - F_I
    big = max(a_I, a_IU, a_Ij.max(initial=0.0), a_IUj.max(initial=0.0))
    slack = ROUND * (2 * u + 4) * big
    top_rho, top_rho1 = _top(rho, r), _top(rho, r - 1)
    low_delta, low_delta1 = -_top(-delta, u - r), -_top(-delta, u - r - 1)
    node = min(F_IU, F_I + np.sort(rho)[::-1][:r].sum(), F_IU - np.sort(delta)[:u - r].sum())
    with_j = np.minimum(F_IU, np.minimum(F_I + rho + top_rho1, F_IU - low_delta))
    without_j = np.minimum(F_IUj, np.minimum(F_I + top_rho, F_IU - delta - low_delta1))
    asum = float(alpha.sum())
    node, with_j, without_j = 0.5 * node - asum, 0.5 * with_j - asum, 0.5 * without_j - asum
    if quad is not None:
        q_node, q_in, q_out, q_slack = _quad_scores(quad, inc, U, r)
        node = min(node, q_node)
        with_j, without_j = np.minimum(with_j, q_in), np.minimum(without_j, q_out)
        slack += q_slack
    lift = slack + ROUND * asum
    return ChildBounds(node + lift, with_j + lift, without_j + lift)


def _quad_scores(quad: tuple, inc: np.ndarray, U: np.ndarray, r: int
                 ) -> tuple[float, np.ndarray, np.ndarray, float]:
    """The degree-2 top-r relaxation of ``f = 1/2 beta'Q beta + l'beta + const`` for the node
    and each child, and its round-off."""
    Q, l, const = quad
    I = np.flatnonzero(inc)
    base = 0.5 * Q[np.ix_(I, I)].sum() + l[I].sum() + const
    QU = Q[np.ix_(U, U)]
    off = QU.copy()
    np.fill_diagonal(off, -np.inf)
    k = max(r - 1, 0)
    rows = np.sort(off, axis=1)[:, ::-1][:, :k].sum(axis=1) if k else np.zeros(U.size)
    score = Q[np.ix_(U, I)].sum(axis=1) + l[U] + 0.5 * np.diag(QU) + 0.5 * rows
    node = base + np.sort(score)[::-1][:r].sum()
    q_in = base + score + _top(score, r - 1)
    q_out = base + _top(score, r)
    slack = ROUND * (np.abs(Q).sum() + np.abs(l).sum() + abs(const)) * (U.size + 2)
    return float(node), q_in, q_out, slack
