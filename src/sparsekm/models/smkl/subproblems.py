"""The beta-subproblem of paper B (eqs. (8)-(9)) and the weak-duality bound it gives.

* :func:`gssp` -- Greedy Selector and Simplex Projector (Kyrillidis et al. 2013, Theorem 1):
  the exact Euclidean projection of ``w`` onto {beta >= 0, sum beta = 1, ||beta||_0 <= k}.
  A node restriction (kernels ``excluded`` fixed to 0, kernels ``forced`` in the support for
  free) keeps it exact: swapping a support entry for one with a larger ``w`` never increases
  the distance (for the optimal beta on S, moving beta_j to entry k changes the squared distance
  by 2 beta_j (w_j - w_k) <= 0).
* :func:`beta_step` -- the best response (8) to an alpha: beta = GSSP(d / (4 lam), k0).
* :func:`lagrangian_bound` -- for ANY feasible alpha, (4) = min_beta max_alpha f >=
  min_beta f(alpha, beta) (weak duality of the min-max), and that minimum is (8), solved exactly
  by GSSP. A certified lower bound on (4) from one SVM solution, whoever computed it.
* :func:`perspective_bound` -- the same with beta ranging over the perspective relaxation of
  (14) (z in [0, 1], sum z <= k0, omega_i z_i >= beta_i^2): a lower bound on relaxation (14).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

__all__ = ["beta_step", "gssp", "lagrangian_bound", "perspective_bound", "simplex_projection",
           "feasible_alpha"]


def simplex_projection(v: np.ndarray) -> np.ndarray:
    """Euclidean projection of ``v`` onto {x >= 0, sum x = 1} (sort-based, exact).

    The projection is unchanged by a shift of ``v``, so ``v - max(v)`` is projected: its
    largest entry is 0 and the sort-based test ``u_k - (sum_{i<=k} u_i - 1) / k > 0`` holds
    at k = 1 in floating point too. Unshifted, entries of 4e16 (``d / (4 lam)`` at C = 1e6,
    lam = 0.01 on wine) made ``u_1 - (u_1 - 1)`` round to 0 and no k passed (IndexError).
    """
    v = np.asarray(v, dtype=float)
    if v.size == 0 or not np.all(np.isfinite(v)):
        raise ValueError(f"simplex projection of a vector with non-finite entries: {v}")
    u = np.sort(v - v.max())[::-1]
    css = np.cumsum(u) - 1.0
    ks = np.arange(1, v.size + 1)
    rho = np.flatnonzero(u - css / ks > 0)[-1]
    tau = css[rho] / (rho + 1)
    return np.maximum(v - v.max() - tau, 0.0)


def gssp(w: np.ndarray, k: int, excluded: Iterable[int] = (), forced: Iterable[int] = ()
         ) -> np.ndarray:
    """argmin ||beta - w|| over beta in the k-sparse simplex (paper B, eq. (9), GSSP).

    ``excluded`` kernels are fixed to 0; ``forced`` ones may be used without counting toward
    ``k`` (their indicator z_i = 1 already spends the budget): the support is ``forced`` plus
    the ``k - |forced|`` largest other entries. Ties are broken by the lower index.
    """
    w = np.asarray(w, dtype=float)
    q = w.size
    excl = np.zeros(q, bool)
    excl[list(excluded)] = True
    forced = sorted(set(forced))
    if any(excl[j] for j in forced):
        raise ValueError("a kernel cannot be both excluded and forced")
    free = np.flatnonzero(~excl)
    free = free[~np.isin(free, forced)]
    r = max(k - len(forced), 0)
    order = free[np.argsort(-w[free], kind="stable")][:r]
    S = np.array(sorted([*forced, *order.tolist()]), dtype=int)
    if S.size == 0:
        raise ValueError("empty support: every kernel is excluded")
    beta = np.zeros(q)
    beta[S] = simplex_projection(w[S])
    return beta


def beta_step(d: np.ndarray, lam: float, k0: int, excluded: Iterable[int] = (),
              forced: Iterable[int] = ()) -> np.ndarray:
    """Best response (8): argmin over the k0-sparse simplex of lam ||beta||^2 - d'beta / 2.

    ``d_i = (y o alpha)' K_i (y o alpha)``; with lam > 0 this is GSSP of w = d / (4 lam) (9);
    with lam = 0 the objective is linear and a vertex (the largest allowed d_i) is optimal.
    """
    d = np.asarray(d, dtype=float)
    if lam > 0:
        return gssp(d / (4.0 * lam), k0, excluded, forced)
    allowed = np.ones(d.size, bool)
    allowed[list(excluded)] = False
    if len(set(forced)) >= k0:
        allowed[:] = False
        allowed[list(forced)] = True
    j = int(np.flatnonzero(allowed)[np.argmax(d[allowed])])
    beta = np.zeros(d.size)
    beta[j] = 1.0
    return beta


def feasible_alpha(alpha: np.ndarray, y: np.ndarray, C: float) -> np.ndarray:
    """A point of {0 <= alpha <= C, y'alpha = 0} near ``alpha`` (clip, then scale down the
    heavier class): turns a solver's approximate multipliers into a certifiable dual point
    (:func:`sparsekm.engines.smo.feasible_alpha`)."""
    from sparsekm.engines.smo import feasible_alpha as feasible

    return feasible(alpha, y, C)


def lagrangian_bound(d: np.ndarray, sum_alpha: float, lam: float, k0: int,
                     excluded: Iterable[int] = (), forced: Iterable[int] = ()
                     ) -> tuple[float, np.ndarray]:
    """(lower bound on (4) restricted to the node, minimizing beta) from one feasible alpha.

    value = sum(alpha) + min over the (node's) k0-sparse simplex of lam||beta||^2 - d'beta/2.
    """
    beta = beta_step(d, lam, k0, excluded, forced)
    return float(sum_alpha + lam * beta @ beta - 0.5 * beta @ d), beta


def perspective_bound(d: np.ndarray, sum_alpha: float, lam: float, k0: int) -> float:
    """Weak-duality bound on relaxation (14) at a feasible alpha.

    sum(alpha) + min { lam sum beta_i^2 / z_i - d'beta / 2 : beta in simplex, z in [0,1]^q,
    sum z <= k0 }, computed exactly through its dual in the multiplier mu of sum beta = 1:
    h(mu) = mu - (1/(4 lam)) * (sum of the k0 largest (c_i + mu)_+^2), c = d / 2.
    """
    c = 0.5 * np.asarray(d, dtype=float)
    if lam <= 0:
        return float(sum_alpha - c.max())
    top = np.sort(c)[::-1][:k0]
    # maximize h: sum_{top} (top_i + mu)_+ = 2 lam (piecewise linear, increasing in mu)
    mu = None
    for j in range(1, top.size + 1):
        cand = (2 * lam - top[:j].sum()) / j
        lo = -top[j - 1]
        hi = -top[j] if j < top.size else np.inf
        if lo <= cand <= hi or (j == top.size and cand >= lo):
            mu = cand
            break
    if mu is None:  # numerical corner: fall back to the bracket of the top entry
        mu = 2 * lam - top[0]
    h = mu - (np.maximum(top + mu, 0.0) ** 2).sum() / (4 * lam)
    return float(sum_alpha + h)
