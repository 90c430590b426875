"""Paper E's single-level model (20) as exact numpy callbacks for Ipopt (a CallbackNLP).

The same model as :func:`sparsekm.models.minmax_fs.single_level_model`, with vectorised
objective, gradient, Jacobian and (for small n) exact Hessian of the Lagrangian: the Pyomo
route differentiates m(m-1)/2 * n exponent terms in Python at every Ipopt iteration, these
callbacks cost a few (m, m) x (m, n) products (benchmarks/results/minmax_fs_routes.md).

Variables x = (gamma (n), alpha (m), nu, lambda0 (m), lambdaC (m)); c = alpha * y, u = mu * y
for the multipliers mu of (20b); D = 1 - C2. With dK_il/dgamma_j = -K_il d_ilj:

* (20a) printed: C2 pen(gamma) + D(-1/2 c'Kc + (e - nu y + lambda0 - lambdaC)'alpha
  + C e'lambdaC); ``objective="reduced"``: C2 pen + D(1/2 c'Kc + C e'lambdaC) (equal on (20b)).
* (20b): h = y * (K c) - e + nu y - lambda0 + lambdaC = 0; dh_i/dgamma_j = -y_i R_ij with
  R_ij = sum_l K_il d_ilj c_l, dh/dalpha = G.
* Hessian of sigma F + mu'h: the kernel part s c'Kc + u'Kc (s = -+ sigma D / 2) gives
  gamma-gamma: sum_il K_il w_il d_ilj d_ilk with w = s cc' + (uc' + cu')/2, alpha-alpha: 2 s G,
  alpha-gamma: -y_k sum_l K_kl d_klj (2 s c + u)_l; plus the constant bilinear terms of the
  printed objective and the penalty's diagonal.
"""

from __future__ import annotations

import numpy as np

from sparsekm.kernels.anisotropic import pair_moments, pair_sq_diff_sum, pair_sq_diff_times
from sparsekm.solvers import CallbackNLP

from .lower import LowerLevel, kernel, penalty_gradient
from .problem import MinMaxFSProblem

__all__ = ["JACOBIAN_LIMIT", "EXACT_HESSIAN_MAX_N", "single_level_nlp"]

JACOBIAN_LIMIT = 20_000_000   # dense Jacobian entries m(n + m) of (20b) (160 MB of doubles)
EXACT_HESSIAN_MAX_N = 200     # exact gamma-gamma Hessian costs O(m^2 n^2) per evaluation


class _SingleLevel:
    """Callbacks of (20) with the kernel cached per gamma."""

    def __init__(self, problem: MinMaxFSProblem, box: bool, objective: str) -> None:
        self.pb, self.box, self.printed = problem, box, objective == "printed"
        m, n = problem.m, problem.n
        self.m, self.n = m, n
        self.ia, self.inu, self.il0, self.ilc = n, n + m, n + m + 1, n + 2 * m + 1
        self.N = n + 3 * m + 1
        self._key: bytes | None = None
        self.K = np.empty((0, 0))

    def split(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        n, m = self.n, self.m
        return (x[:n], x[self.ia:self.ia + m], x[self.inu], x[self.il0:self.il0 + m],
                x[self.ilc:self.ilc + m])

    def kernel(self, gamma: np.ndarray) -> np.ndarray:
        key = gamma.tobytes()
        if key != self._key:
            self.K = kernel(self.pb.X, np.maximum(gamma, 0.0))
            self._key = key
        return self.K

    # --- objective ---------------------------------------------------------------------
    def objective(self, x: np.ndarray) -> float:
        g, a, nu, l0, lc = self.split(x)
        pb, y = self.pb, self.pb.y
        c = a * y
        quad = float(c @ (self.kernel(g) @ c))
        hinge = pb.C * float(lc.sum())
        if self.printed:
            inner = -0.5 * quad + float((1.0 - nu * y + l0 - lc) @ a) + hinge
        else:
            inner = 0.5 * quad + hinge
        return pb.C2 * pb.penalty(np.maximum(g, 0.0)) + (1.0 - pb.C2) * inner

    def gradient(self, x: np.ndarray) -> np.ndarray:
        g, a, nu, l0, lc = self.split(x)
        pb, y, D = self.pb, self.pb.y, 1.0 - self.pb.C2
        K = self.kernel(g)
        c = a * y
        Kc = K @ c
        sign = -1.0 if self.printed else 1.0      # of the 1/2 c'Kc term
        out = np.zeros(self.N)
        dquad = -pair_sq_diff_sum(pb.X, np.outer(c, c) * K)   # d(c'Kc)/dgamma
        pen = penalty_gradient(np.maximum(g, 1e-300), pb.p)
        out[:self.n] = pb.C2 * pen + D * 0.5 * sign * dquad
        out[self.ia:self.ia + self.m] = D * sign * y * Kc
        out[self.ilc:] = D * pb.C
        if self.printed:
            out[self.ia:self.ia + self.m] += D * (1.0 - nu * y + l0 - lc)
            out[self.inu] = -D * float(y @ a)
            out[self.il0:self.il0 + self.m] = D * a
            out[self.ilc:] -= D * a
        return out

    # --- constraints (20b) ---------------------------------------------------------------
    def constraints(self, x: np.ndarray) -> np.ndarray:
        g, a, nu, l0, lc = self.split(x)
        y = self.pb.y
        return y * (self.kernel(g) @ (a * y)) - 1.0 + nu * y - l0 + lc

    def jacobianstructure(self) -> tuple[np.ndarray, np.ndarray]:
        m, n = self.m, self.n
        rows = np.repeat(np.arange(m), n + m + 3)
        dense = np.tile(np.arange(n + m), (m, 1))
        tail = np.stack([np.full(m, self.inu), self.il0 + np.arange(m),
                         self.ilc + np.arange(m)], axis=1)
        return rows, np.concatenate([dense, tail], axis=1).ravel()

    def jacobian(self, x: np.ndarray) -> np.ndarray:
        g, a, _, _, _ = self.split(x)
        pb, y = self.pb, self.pb.y
        K = self.kernel(g)
        dg = -y[:, None] * pair_sq_diff_times(pb.X, K, a * y)
        da = (y[:, None] * K) * y[None, :]
        tail = np.stack([y, -np.ones(self.m), np.ones(self.m)], axis=1)
        return np.concatenate([dg, da, tail], axis=1).ravel()

    # --- Hessian of the Lagrangian (lower triangle) ----------------------------------------
    def hessianstructure(self) -> tuple[np.ndarray, np.ndarray]:
        n, m = self.n, self.m
        gr, gc = np.tril_indices(n)
        ag_r = np.repeat(self.ia + np.arange(m), n)
        ag_c = np.tile(np.arange(n), m)
        ar, ac = np.tril_indices(m)
        rows = [gr, ag_r, self.ia + ar]
        cols = [gc, ag_c, self.ia + ac]
        if self.printed:
            idx = self.ia + np.arange(m)
            rows += [np.full(m, self.inu), self.il0 + np.arange(m), self.ilc + np.arange(m)]
            cols += [idx, idx, idx]
        return np.concatenate(rows), np.concatenate(cols)

    def hessian(self, x: np.ndarray, lagrange: np.ndarray, obj_factor: float) -> np.ndarray:
        g, a, _, _, _ = self.split(x)
        pb, y, D, m = self.pb, self.pb.y, 1.0 - self.pb.C2, self.m
        K = self.kernel(g)
        c, u = a * y, np.asarray(lagrange) * y
        s = (-0.5 if self.printed else 0.5) * obj_factor * D
        W = (s * np.outer(c, c) + 0.5 * (np.outer(u, c) + np.outer(c, u))) * K
        Hgg = pair_moments(pb.X, W)
        if pb.p != 1.0:
            gg = np.maximum(g, 1e-300)
            Hgg[np.diag_indices(self.n)] += obj_factor * pb.C2 * pb.p * (pb.p - 1.0) * \
                gg ** (pb.p - 2.0)
        Hag = -y[:, None] * pair_sq_diff_times(pb.X, K, 2.0 * s * c + u)
        Haa = 2.0 * s * (y[:, None] * K * y[None, :])
        parts = [Hgg[np.tril_indices(self.n)], Hag.ravel(), Haa[np.tril_indices(m)]]
        if self.printed:
            f = obj_factor * D
            parts += [-f * y, np.full(m, f), np.full(m, -f)]
        return np.concatenate(parts)


def single_level_nlp(problem: MinMaxFSProblem, start: LowerLevel, *, box: bool = True,
                     objective: str = "printed", hessian: str = "auto") -> CallbackNLP:
    """(20) as a :class:`~sparsekm.solvers.CallbackNLP` started at ``start`` (Algorithm 1).

    ``hessian``: ``"exact"`` (O(m^2 n^2) per evaluation), ``"lbfgs"`` (Ipopt's limited-memory
    quasi-Newton) or ``"auto"`` (exact when n <= EXACT_HESSIAN_MAX_N).
    """
    if objective not in ("printed", "reduced"):
        raise ValueError(f"objective={objective!r}: choose 'printed' or 'reduced'")
    if hessian not in ("auto", "exact", "lbfgs"):
        raise ValueError(f"hessian={hessian!r}: choose 'auto', 'exact' or 'lbfgs'")
    m, n = problem.m, problem.n
    entries = m * (n + m)
    if entries > JACOBIAN_LIMIT:
        raise ValueError(
            f"minmax-fs: the dense Jacobian of (20b) for m={m} rows and n={n} features has "
            f"m(n+m) = {entries:,} entries (limit {JACOBIAN_LIMIT:,}); use method='fast' (the "
            "value-function route needs O(m^2) memory) or fewer rows (--rows)")
    cb = _SingleLevel(problem, box, objective)
    inf = np.inf
    lb = np.concatenate([np.zeros(n), np.zeros(m) if box else np.full(m, -inf), [-inf],
                         np.zeros(2 * m)])
    ub = np.concatenate([np.full(n, inf), np.full(m, problem.C) if box else np.full(m, inf),
                         [inf], np.full(2 * m, inf)])
    x0 = np.concatenate([start.gamma, start.alpha, [start.b], start.lambda0, start.lambdaC])
    exact = hessian == "exact" or (hessian == "auto" and n <= EXACT_HESSIAN_MAX_N)
    names = {"gamma": slice(0, n), "alpha": slice(n, n + m), "nu": slice(n + m, n + m + 1),
             "lambda0": slice(n + m + 1, n + 2 * m + 1), "lambdaC": slice(n + 2 * m + 1, None)}
    return CallbackNLP(
        n=cb.N, x0=x0, lb=lb, ub=ub, objective=cb.objective, gradient=cb.gradient,
        constraints=cb.constraints, jacobian=cb.jacobian,
        jacobianstructure=cb.jacobianstructure, cl=np.zeros(m), cu=np.zeros(m),
        hessian=cb.hessian if exact else None,
        hessianstructure=cb.hessianstructure if exact else None, names=names,
        name=f"minmax-fs (20), {objective} objective")
