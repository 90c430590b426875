"""Valid bounds on w_j at a branch-and-bound node, from the incumbent (the big-M of DSCoMP (14)
and BoxMP (8) as node bounds).

Paper D's big-M rows (5) need an M with |w_j| <= M at an optimum of (2); Remark 3.2 warns that
a safe M makes BoxMP (8) no better than the SVM (1), and Proposition 4.1 tightens M by 2n conic
problems (19). At a node only supports better than the incumbent value UB matter, and the
Lagrangian of the margins gives valid bounds for those at no cost:

**Lemma.** Let alpha be feasible (0 <= alpha <= C, y'alpha = 0), s = X'(alpha y), intervals
I_j = [lo_j, hi_j] valid for every such support (w_j in I_j when z_j = 1), c_j = clip(s_j, I_j),
and g the certificate of the node at alpha with the terms psi_j(s_j) = max_{t in I_j} (s_j t -
t^2 / 2) (the perspective's s_j^2 / 2 when I_j is the real line). For every feasible point of
(2) in the node with objective f <= UB and every j with z_j = 1,

    f >= g_j + (w_j - c_j)^2 / 2,   so   w_j in [c_j - r_j, c_j + r_j],  r_j = sqrt(2 (UB - g_j)),

where g_j is the certificate of the node's child "j fixed in" at the same alpha (g itself for
j already fixed in); when g_j > UB no such point selects j, and w_j = 0.

*Proof.* For any (w, b, xi) of support S: f = 1/2 ||w||^2 + C 1'xi >= 1'alpha + sum_{i in S}
(w_i^2 / 2 - s_i w_i) (the margin rows weighted by alpha, y'alpha = 0, (C - alpha)'xi >= 0).
For w_i in I_i, w_i^2 / 2 - s_i w_i >= -psi_i(s_i) + (w_i - c_i)^2 / 2 (equality when s_i is
in I_i; otherwise, e.g. s_i > hi_i: the difference is (s_i - hi_i)(hi_i - w_i) >= 0). And
1'alpha - sum_{i in S} psi_i(s_i) >= g_j for every support S of the child "j in". []

So the intervals tighten as the node's bound nears UB, and each new incumbent tightens them
again. :func:`incumbent_intervals` applies the lemma at given multipliers (the root's, the
parent's), a few rounds (each round's intervals give a larger g, hence smaller r), and keeps 0
in every interval (so psi >= 0 and z_j = 0 stays feasible).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from sparsekm.models.fs_linear import FSLinearProblem

from .node_form import NodeTask, feasible_alpha, top_k_child_bounds, top_sum

__all__ = ["bigm_certificate", "huber", "incumbent_intervals"]

ROUNDS = 3   # tightening rounds per multiplier vector (each one O(n))


def huber(s: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """psi(s) = max_{t in [lo, hi]} (s t - t^2 / 2), elementwise (s^2 / 2 inside [lo, hi],
    linear outside; lo <= 0 <= hi gives psi >= 0)."""
    c = np.clip(s, lo, hi)
    return c * s - 0.5 * c * c


def _terms(problem: FSLinearProblem, alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a = feasible_alpha(problem, alpha)
    return a, problem.X.T @ (a * problem.y)


def bigm_certificate(problem: FSLinearProblem, alpha: np.ndarray, task: NodeTask,
                     lo: np.ndarray, hi: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """The node's DSCoMP (14) bound at the feasible alpha nearest ``alpha``:
    g = 1'alpha - sum_{F1} psi_j(s_j) - (sum of the k largest psi_j(s_j) over the free
    features), by weak duality valid for every support of the node better than the incumbent
    whose w lies in the intervals [lo, hi]. Returns (g, the feasible alpha, 2 psi for all
    features: the score, on the scale of the perspective's s^2)."""
    a, s = _terms(problem, alpha)
    psi = huber(s, lo, hi)
    val = float(a.sum()) - float(psi[task.F1].sum()) - top_sum(psi[task.free], task.k)
    return val, a, 2.0 * psi


def incumbent_intervals(problem: FSLinearProblem, task: NodeTask,
                        alphas: Iterable[np.ndarray | None]) -> tuple[np.ndarray, np.ndarray]:
    """Intervals [lo, hi] for w (see the module's lemma) valid at the node ``task`` for every
    support with objective <= ``task.ub``: from [-sqrt(2 UB), sqrt(2 UB)] (1/2 w_j^2 <= UB),
    narrowed at each multiplier vector of ``alphas`` (None skipped) by ``ROUNDS`` rounds of
    the lemma. Without an incumbent (UB infinite) the real line: the perspective."""
    n, ub = problem.n, task.ub
    if not math.isfinite(ub):
        return np.full(n, -np.inf), np.full(n, np.inf)
    cap = math.sqrt(2.0 * max(ub, 0.0))
    lo, hi = np.full(n, -cap), np.full(n, cap)
    F1, free = task.F1, task.free
    for alpha in alphas:
        if alpha is None:
            continue
        a, s = _terms(problem, alpha)
        for _ in range(ROUNDS):
            psi = huber(s, lo, hi)
            g = float(a.sum()) - float(psi[F1].sum()) - top_sum(psi[free], task.k)
            gj = np.full(n, g)
            if task.k < free.size:
                gj[free] = top_k_child_bounds(g, psi[free], task.k)[1]
            slack = ub - gj
            r = np.sqrt(2.0 * np.maximum(slack, 0.0))
            c = np.clip(s, lo, hi)
            lo = np.where(slack < 0, 0.0, np.minimum(np.maximum(lo, c - r), 0.0))
            hi = np.where(slack < 0, 0.0, np.maximum(np.minimum(hi, c + r), 0.0))
    return lo, hi
