"""Upper bounds on ``max_{beta in node} v(beta)`` from one feasible alpha (margin sense).

Paper A, eq. (3)-(4): ``v(beta) = min_alpha f(alpha, beta)`` with ``f(alpha, beta) = 1/2 sum_ih
w_i w_h K_beta(i, h) - 1'alpha``, ``w = alpha * y``. A feasible ``alpha`` (box and ``y'alpha =
0``) gives ``v(beta) <= f(alpha, beta)`` for *every* mask, so ``max_{beta in node} f(alpha,
beta)`` bounds every mask of a branch-and-bound node (masks containing ``I``, avoiding the
excluded features, picking ``r`` more from the free set ``U``).

Section 2.2 writes ``K_beta = phi(S_beta)`` with ``S_beta = sum_j beta_j g_j`` (per-feature
terms). For the polynomial kernel of degree 2 this makes ``f(alpha, .)`` a quadratic in
``beta`` (:func:`quad_terms`): with ``A = X' diag(w) X`` and ``a = X'w``,
``sum_ih w_i w_h K_ih = gamma^2 beta'(A o A) beta + 2 gamma c sum_j beta_j a_j^2 + c^2 (1'w)^2``
and ``A o A >= 0`` entrywise, so the top-``r`` relaxation of :func:`quad_bound` is valid (and
the maximum is exact over an enumeration of small free sets). For other degrees the maximum is
taken exactly over nodes of at most 64 masks (:func:`exact_small`), else no bound is given
(the branch and bound then relies on its superset bound).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from sparsekm.models.fs_kernel import FSKernelProblem

__all__ = ["exact_small", "fixed_alpha_value", "node_bound", "quad_bound", "quad_terms"]

EXACT_LIMIT = 2000  # enumerate f(alpha, .) over the node when it has at most this many masks


def quad_terms(p: FSKernelProblem, alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """``(Q, l, const)`` with ``f(alpha, beta) = 1/2 beta'Q beta + l'beta + const`` (poly d=2)."""
    w = alpha * p.y
    A = p.X.T @ (w[:, None] * p.X)
    a = p.X.T @ w
    g, c = p.gamma, p.coef0
    return g * g * A * A, g * c * a * a, 0.5 * c * c * w.sum() ** 2 - alpha.sum()


def _top_sum(v: np.ndarray, r: int) -> float:
    return float(np.sort(v)[::-1][:r].sum()) if r > 0 else 0.0


def quad_bound(Q: np.ndarray, l: np.ndarray, const: float, inc: np.ndarray, free: np.ndarray,
               r: int) -> tuple[float, np.ndarray]:
    """``max f`` over the node (exact for small nodes, else the top-``r`` relaxation) and the
    mask of the relaxation's pick (a feasible mask of the node)."""
    I, U = np.flatnonzero(inc), np.flatnonzero(free)
    base = 0.5 * Q[np.ix_(I, I)].sum() + l[I].sum() + const
    q = Q[np.ix_(U, I)].sum(axis=1)  # cross terms with the included features (counted twice/2)
    QU = Q[np.ix_(U, U)]
    if math.comb(U.size, r) <= EXACT_LIMIT:
        M = np.zeros((math.comb(U.size, r), U.size))
        for k, c in enumerate(itertools.combinations(range(U.size), r)):
            M[k, list(c)] = 1.0
        vals = base + M @ (q + l[U]) + 0.5 * np.einsum("kj,jl,kl->k", M, QU, M)
        k = int(np.argmax(vals))
        pick = U[M[k] > 0]
        return float(vals[k]), _mask(inc, pick)
    off = QU.copy()
    np.fill_diagonal(off, -np.inf)
    top = np.sort(off, axis=1)[:, ::-1][:, :max(r - 1, 0)].sum(axis=1) if r > 1 else 0.0
    score = q + l[U] + 0.5 * np.diag(QU) + 0.5 * top
    order = np.argsort(-score, kind="stable")[:r]
    return base + float(score[order].sum()), _mask(inc, U[order])


def _mask(inc: np.ndarray, pick: np.ndarray) -> np.ndarray:
    out = inc.copy()
    out[pick] = True
    return out


def fixed_alpha_value(p: FSKernelProblem, alpha: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``f(alpha, beta)`` for each row of ``masks`` (support-vector block, any kernel)."""
    from sparsekm.kernels import kernel_matrix

    sv = np.flatnonzero(alpha > 0)
    w = (alpha * p.y)[sv]
    out = np.empty(len(masks))
    for k, beta in enumerate(masks):
        K = kernel_matrix(p.X[np.ix_(sv, np.flatnonzero(beta))], **p.kernel_params())
        out[k] = 0.5 * w @ K @ w - alpha.sum()
    return out


def exact_small(p: FSKernelProblem, alpha: np.ndarray, inc: np.ndarray, free: np.ndarray,
                r: int) -> tuple[float, np.ndarray]:
    """``max_{beta in node} f(alpha, beta)`` by enumerating the node's masks, and its argmax."""
    U = np.flatnonzero(free)
    masks = np.array([_mask(inc, U[list(c)]) for c in itertools.combinations(range(U.size), r)])
    vals = fixed_alpha_value(p, alpha, masks)
    k = int(np.argmax(vals))
    return float(vals[k]), masks[k]


def node_bound(p: FSKernelProblem, alpha: np.ndarray, inc: np.ndarray, free: np.ndarray,
               r: int) -> tuple[float, np.ndarray | None]:
    """``(upper bound on max_{beta in node} v(beta), a candidate mask or None)``."""
    if p.kernel == "poly" and p.degree == 2:
        return quad_bound(*quad_terms(p, alpha), inc, free, r)
    if math.comb(int(free.sum()), r) <= 64:
        return exact_small(p, alpha, inc, free, r)
    return math.inf, None
