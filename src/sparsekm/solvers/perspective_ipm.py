"""A primal-dual interior-point method for the perspective dual of paper D (dual of DSCoP (13)).

Solves, for Q = Y X_W (m x p: the samples' columns y_i x_ij of a working set W of features),
an optional QF = Y X_F1 (m x f: features fixed in), the budget k and the box C,

    min  1/2 ||QF' alpha||^2 - 1'alpha + k tau / 2 + 1/2 sum_j t_j
    s.t. (q_j' alpha)^2 <= t_j + tau  (j in W),  t >= 0,  tau >= 0,  0 <= alpha <= C,  y'alpha = 0,

i.e. -max g(alpha) of the perspective relaxation (Lemma 4.3: each constraint is a 3-dimensional
second-order cone ||((t_j + tau - 1)/2, q_j'alpha)|| <= (t_j + tau + 1)/2). The method is the
primal-dual path-following algorithm with Nesterov-Todd scaling and Mehrotra's predictor-corrector
of CVXOPT's ``coneqp`` (Vandenberghe, "The CVXOPT linear and quadratic cone program solvers",
2010, Sections 7-8), with every cone operation vectorised over the p small cones and a Newton
system that exploits the structure: the t_j are eliminated per feature, which leaves an m x m
system H = D + Q diag(w) Q' + QF QF' bordered by tau and y'alpha. H is factorised

* densely in m (``m <= MSPACE_MAX`` or m not much above p + f: O((p + f) m^2)), or
* split: the samples whose barrier weight D_i is small (the free multipliers, about p of them
  near the optimum) are kept in an m-space block and the rest are eliminated by the
  Sherman-Morrison-Woodbury identity in feature space: O(m (p + f)^2). Splitting keeps the
  Woodbury step well conditioned (a plain Woodbury on all samples loses the free multipliers'
  precision near the optimum: measured, it diverges at relative gap ~1e-7).

Its output needs no certificate of its own: callers evaluate g at the returned multipliers.
The relaxed selection is v_j = z_j0 + z_j1 (the cone multipliers), in [0, 1].
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.linalg as sla

__all__ = ["PerspectiveDualSolution", "solve_perspective_dual"]

MSPACE_MAX = 400      # factorise H densely in m up to this many samples
STALL = 2             # iterations without progress before stopping
STEP = 0.99          # fraction of the step to the boundary (CVXOPT's)
REFINE = 1           # iterative-refinement steps per KKT solve ...
REFINE_BELOW = 1e-4  # ... once the relative gap is below this (measured: without refinement
                     # mfeat stalls at 3e-7; it changes nothing earlier)
SPLIT_RATIO = 1e-4    # sample i stays in the dense block when D_i < SPLIT_RATIO * (Q w Q')_ii
_J = np.array([1.0, -1.0, -1.0])


@dataclass
class PerspectiveDualSolution:
    """alpha (m), tau, v (p, relaxed selection on W), iterations, status ("optimal" |
    "inaccurate"), the final relative gap, and the primal hyperplane of the relaxation,
    w (p, on W: w_j = v_j s_j at the optimum) and b: sample i has margin
    y_i (x_i'w + x_i,F1'(X_F1' Y alpha) + b), 1 on the free multipliers."""

    alpha: np.ndarray
    tau: float
    v: np.ndarray
    iterations: int
    status: str
    gap: float
    w: np.ndarray
    b: float


@dataclass
class _Data:
    Q: np.ndarray          # m x p
    QF: np.ndarray         # m x f
    y: np.ndarray
    C: float
    k: int

    @property
    def m(self) -> int:
        return self.Q.shape[0]

    @property
    def p(self) -> int:
        return self.Q.shape[1]


@dataclass
class _Point:
    """x = (alpha, tau, t), the equality multiplier yy, the slacks and multipliers of the
    linear cone (sl, zl: alpha >= 0, C - alpha >= 0, tau >= 0, t >= 0) and of the p
    3-dimensional cones (sq, zq: p x 3)."""

    a: np.ndarray
    tau: float
    t: np.ndarray
    yy: float
    sl: np.ndarray
    zl: np.ndarray
    sq: np.ndarray
    zq: np.ndarray


# --- the operators G x, G' z of the standard form  G x + s = h ------------------------------

def _gx(d: _Data, a: np.ndarray, tau: float, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """G x (linear part, cone part)."""
    gl = np.concatenate([-a, a, [-tau], -t])
    zt = -0.5 * (tau + t)
    return gl, np.column_stack([zt, zt, -(a @ d.Q)])


def _gtz(d: _Data, zl: np.ndarray, zq: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
    """G' z split as (alpha, tau, t)."""
    m = d.m
    w = -0.5 * (zq[:, 0] + zq[:, 1])
    ga = -zl[:m] + zl[m:2 * m] - d.Q @ zq[:, 2]
    return ga, float(-zl[2 * m] + w.sum()), -zl[2 * m + 1:] + w


def _h(d: _Data) -> tuple[np.ndarray, np.ndarray]:
    hl = np.zeros(2 * d.m + 1 + d.p)
    hl[d.m:2 * d.m] = d.C
    hq = np.zeros((d.p, 3))
    hq[:, 0], hq[:, 1] = 0.5, -0.5
    return hl, hq


# --- second-order cone algebra, vectorised over rows ---------------------------------------

def _jprod(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Jordan product x o y per cone: (x'y, x0 y1 + y0 x1)."""
    out = x[:, 0:1] * y + y[:, 0:1] * x
    out[:, 0] = np.einsum("ij,ij->i", x, y)
    return out


def _jdiv(lam: np.ndarray, r: np.ndarray) -> np.ndarray:
    """u with lam o u = r."""
    det = lam[:, 0] ** 2 - np.einsum("ij,ij->i", lam[:, 1:], lam[:, 1:])
    u0 = (lam[:, 0] * r[:, 0] - np.einsum("ij,ij->i", lam[:, 1:], r[:, 1:])) / det
    u = np.empty_like(r)
    u[:, 0] = u0
    u[:, 1:] = (r[:, 1:] - u0[:, None] * lam[:, 1:]) / lam[:, 0:1]
    return u


def _jnorm(x: np.ndarray) -> np.ndarray:
    """sqrt(x0^2 - ||x1||^2) per cone."""
    det = (x[:, 0] - x[:, 1]) * (x[:, 0] + x[:, 1]) - x[:, 2] ** 2
    return np.sqrt(np.maximum(det, 1e-300))


def _max_step_soc(x: np.ndarray, dx: np.ndarray) -> float:
    """Largest a with x + a dx in the cones (x interior): the first positive root of
    (x0 + a dx0)^2 - ||x1 + a dx1||^2 or of x0 + a dx0."""
    A = dx[:, 0] ** 2 - np.einsum("ij,ij->i", dx[:, 1:], dx[:, 1:])
    Bh = x[:, 0] * dx[:, 0] - np.einsum("ij,ij->i", x[:, 1:], dx[:, 1:])
    Cc = x[:, 0] ** 2 - np.einsum("ij,ij->i", x[:, 1:], x[:, 1:])
    step = np.full(x.shape[0], np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        disc = Bh * Bh - A * Cc
        sq = np.sqrt(np.where(disc >= 0, disc, np.nan))
        qq = -(Bh + np.where(Bh >= 0, sq, -sq))          # stable roots: qq / A and Cc / qq
        r1 = qq / A
        r2 = Cc / qq
        lin = np.where(np.abs(A) < 1e-300, -Cc / (2 * Bh), np.inf)
    for r in (r1, r2, lin):
        ok = np.isfinite(r) & (r > 0)
        step = np.where(ok, np.minimum(step, r), step)
    neg = dx[:, 0] < 0
    step = np.where(neg, np.minimum(step, -x[:, 0] / np.where(neg, dx[:, 0], -1.0)), step)
    return float(step.min()) if step.size else np.inf


def _max_step(pt_l: np.ndarray, dl: np.ndarray, pt_q: np.ndarray, dq: np.ndarray) -> float:
    neg = dl < 0
    st = float((-pt_l[neg] / dl[neg]).min()) if neg.any() else np.inf
    return min(st, _max_step_soc(pt_q, dq))


@dataclass
class _Scaling:
    """Nesterov-Todd scaling: linear part W = diag(wl); cone j: W_j = beta_j (2 v v' - J)
    with v'Jv = 1. W_j is applied in its eigenbasis, e+ = (1, n)/sqrt2 (eigenvalue
    beta r^2), e- = (1, -n)/sqrt2 (beta / r^2) and u = (0, n_perp) (beta), where
    r = v0 + |v1| and n = v1 / |v1|: every eigen-component keeps its relative precision,
    whereas the explicit matrices lose the small eigenvalues once r^4 eps ~ 1 (measured:
    the Newton step's cone residual reached 1e-2 relative at r ~ 80, relative gap 6e-6)."""

    wl: np.ndarray
    beta: np.ndarray
    v: np.ndarray
    lam_l: np.ndarray
    lam_q: np.ndarray
    E: np.ndarray = field(init=False, repr=False)     # p x 3 x 3, rows e+, e-, u
    r2: np.ndarray = field(init=False, repr=False)    # r^2

    def __post_init__(self) -> None:
        v1 = self.v[:, 1:]
        nv = np.linalg.norm(v1, axis=1)
        ok = nv > 0
        n = np.where(ok[:, None], v1 / np.where(ok, nv, 1.0)[:, None], [1.0, 0.0])
        h = np.sqrt(0.5)
        E = np.zeros((n.shape[0], 3, 3))
        E[:, 0, 0], E[:, 0, 1:] = h, h * n
        E[:, 1, 0], E[:, 1, 1:] = h, -h * n
        E[:, 2, 1], E[:, 2, 2] = -n[:, 1], n[:, 0]
        self.E, self.r2 = E, (self.v[:, 0] + nv) ** 2

    def eig_scale(self, power: int) -> np.ndarray:
        """The eigenvalues of W_j^power per cone (p x 3), in the order e+, e-, u."""
        r2p = self.r2 ** power
        return self.beta[:, None] ** power * np.column_stack([r2p, 1.0 / r2p,
                                                              np.ones_like(r2p)])

    def coords(self, xq: np.ndarray) -> np.ndarray:
        """Coordinates of x_j in the eigenbasis of W_j."""
        return np.einsum("pij,pj->pi", self.E, xq)

    def power(self, xq: np.ndarray, k: int) -> np.ndarray:
        """W_j^k x_j for every cone (k = 1: W, -1: W^-1, -2: (W'W)^-1, 2: W'W)."""
        return np.einsum("pij,pi->pj", self.E, self.eig_scale(k) * self.coords(xq))

    def apply(self, xq: np.ndarray, inverse: bool = False) -> np.ndarray:
        """W_j x_j (or W_j^{-1} x_j) for every cone."""
        return self.power(xq, -1 if inverse else 1)


def _scaling(sl: np.ndarray, zl: np.ndarray, sq: np.ndarray, zq: np.ndarray) -> _Scaling:
    """NT scaling point of (s, z) (CVXOPT's formulas, Vandenberghe 2010, Section 4.4)."""
    wl = np.sqrt(sl / zl)
    ns, nz = _jnorm(sq), _jnorm(zq)
    sb, zb = sq / ns[:, None], zq / nz[:, None]
    gam = np.sqrt(0.5 * (1.0 + np.einsum("ij,ij->i", sb, zb)))
    wb = (sb + zb * _J) / (2 * gam[:, None])
    v = wb.copy()
    v[:, 0] += 1.0
    v /= np.sqrt(2.0 * (wb[:, 0] + 1.0))[:, None]
    sc = _Scaling(wl, np.sqrt(ns / nz), v, np.sqrt(sl * zl), np.empty_like(sq))
    sc.lam_q = sc.apply(zq)
    return sc


def _jnrm(x: np.ndarray) -> np.ndarray:
    """sqrt(x' J x) per cone, as sqrt(x0 - ||x1||) sqrt(x0 + ||x1||)."""
    a = np.linalg.norm(x[:, 1:], axis=1)
    return np.sqrt(np.maximum(x[:, 0] - a, 1e-300)) * np.sqrt(x[:, 0] + a)


def _update_scaling(sc: _Scaling, stl: np.ndarray, ztl: np.ndarray, stq: np.ndarray,
                    ztq: np.ndarray) -> _Scaling:
    """The NT scaling of the new iterates given in the current scaling (st = lam + a ds~,
    zt = lam + a dz~): CVXOPT's ``misc.update_scaling`` vectorised over the cones. Updating
    in the scaled space keeps the scaling accurate near the optimum, where recomputing it
    from (s, z) loses the digits that the method needs past a relative gap of ~1e-6."""
    rs, rz = np.sqrt(stl), np.sqrt(ztl)
    wl, lam_l = sc.wl * rs / rz, rs * rz
    aa, bb = _jnrm(stq), _jnrm(ztq)
    sn, zn = stq / aa[:, None], ztq / bb[:, None]
    cc = np.sqrt(0.5 * (1.0 + np.einsum("ij,ij->i", sn, zn)))
    v = sc.v
    vs = np.einsum("ij,ij->i", v, sn)
    vz = np.einsum("ij,ij->i", v, zn * _J)
    vq = (vs + vz) / (2.0 * cc)
    vu = vs - vz
    wk0 = 2.0 * v[:, 0] * vq - (sn[:, 0] + zn[:, 0]) / (2.0 * cc)
    dd = (v[:, 0] * vu - 0.5 * sn[:, 0] + 0.5 * zn[:, 0]) / (wk0 + 1.0)
    lam = np.empty_like(stq)
    lam[:, 0] = cc
    lam[:, 1:] = (v[:, 1:] * (2.0 * (-dd * vq + 0.5 * vu))[:, None]
                  + (0.5 * (1.0 - dd / cc))[:, None] * sn[:, 1:]
                  + (0.5 * (1.0 + dd / cc))[:, None] * zn[:, 1:])
    lam *= np.sqrt(aa * bb)[:, None]
    vn = v * (2.0 * vq)[:, None]
    vn[:, 0] -= sn[:, 0] / (2.0 * cc)
    vn[:, 1:] += (0.5 / cc)[:, None] * sn[:, 1:]
    vn -= (0.5 / cc)[:, None] * zn
    vn[:, 0] += 1.0
    vn /= np.sqrt(2.0 * vn[:, 0])[:, None]
    return _Scaling(wl, sc.beta * np.sqrt(aa / bb), vn, lam_l, lam)


# --- the Newton system ---------------------------------------------------------------------

def _gram(A: np.ndarray) -> np.ndarray:
    """A'A (lower triangle) by BLAS syrk, without copying a C-ordered A."""
    return sla.blas.dsyrk(1.0, np.ascontiguousarray(A).T, trans=0, lower=1)


class _HSolver:
    """Solves H u = r for H = diag(D) + Qa Qa' (Qa = [Q sqrt(w), QF]), densely in m or split."""

    def __init__(self, D: np.ndarray, Qa: np.ndarray) -> None:
        m, pa = Qa.shape
        self.dense = m <= MSPACE_MAX or m <= 1.5 * pa
        if self.dense:
            H = _gram(Qa.T)
            H[np.diag_indices(m)] += D
            self.L = sla.cho_factor(H, lower=True, check_finite=False)
            return
        rowsq = np.einsum("ij,ij->i", Qa, Qa)
        F = rowsq * SPLIT_RATIO > D
        self.F, self.B = np.flatnonzero(F), np.flatnonzero(~F)
        self.DF, self.sdb = D[self.F], 1.0 / np.sqrt(D[self.B])
        self.QF = Qa[self.F]
        self.QB = Qa[self.B]                       # scaled in place: D_B^-1/2 Q_B
        self.QB *= self.sdb[:, None]
        M = _gram(self.QB)
        M[np.diag_indices(pa)] += 1.0
        self.LM = sla.cho_factor(M, lower=True, check_finite=False)
        self.LS = None
        if self.F.size:
            Z = sla.solve_triangular(self.LM[0], self.QF.T, lower=True, check_finite=False)
            S = _gram(Z)
            S[np.diag_indices(self.F.size)] += self.DF
            self.LS = sla.cho_factor(S, lower=True, check_finite=False)
        self.m = m

    def solve(self, r: np.ndarray) -> np.ndarray:
        if self.dense:
            return sla.cho_solve(self.L, r, check_finite=False)
        one = r.ndim == 1
        R = r[:, None] if one else r
        rF, rB = R[self.F], R[self.B]
        sdb = self.sdb[:, None]                    # D_B^-1/2; QB holds D_B^-1/2 Q_B
        u = self.QB.T @ (rB * sdb)
        xF = np.zeros((self.F.size, R.shape[1]))
        if self.F.size:
            xF = sla.cho_solve(self.LS, rF - self.QF @ sla.cho_solve(self.LM, u,
                               check_finite=False), check_finite=False)
        w = rB * sdb - self.QB @ (self.QF.T @ xF)
        xB = sdb * (w - self.QB @ sla.cho_solve(self.LM, self.QB.T @ w, check_finite=False))
        out = np.empty_like(R)
        out[self.F], out[self.B] = xF, xB
        return out[:, 0] if one else out


class _KKT:
    """[[P, A', G'], [A, 0, 0], [G, 0, -W'W]] (dx, dy, dz) = (bx, by, bz) for one scaling."""

    def __init__(self, d: _Data, sc: _Scaling, refine: int = REFINE) -> None:
        m = d.m
        self.refine = refine
        self.d, self.sc = d, sc
        self.il = 1.0 / sc.wl ** 2                                  # (W'W)^{-1}, linear part
        # W_j^-1 of the cone columns of G, (1/2, 1/2, 0) (zeta) and (0, 0, 1) (eta), in the
        # eigenbasis of W_j (orthonormal: inner products are those of the vectors)
        n1, n2 = sc.E[:, 2, 2], -sc.E[:, 2, 1]
        one_m = np.where(n1 >= 0, n2 * n2 / (1.0 + np.abs(n1)), 1.0 - n1)   # 1 - n1
        one_p = np.where(n1 < 0, n2 * n2 / (1.0 + np.abs(n1)), 1.0 + n1)    # 1 + n1
        h = np.sqrt(0.5)
        sinv = sc.eig_scale(-1)
        f = sinv * np.column_stack([0.5 * h * one_p, 0.5 * h * one_m, -0.5 * n2])
        g = sinv * np.column_stack([h * n2, -h * n2, n1])
        self.ca = np.einsum("ij,ij->i", f, f)
        self.cb = np.einsum("ij,ij->i", f, g)
        delta = self.il[2 * m + 1:]
        self.e = delta + self.ca
        gp = g - (self.cb / self.ca)[:, None] * f
        w = np.einsum("ij,ij->i", gp, gp) + self.cb ** 2 * delta / (self.ca * self.e)
        D = self.il[:m] + self.il[m:2 * m]
        # tau joins as row m + 1 of the low-rank form: its coupling h = Q (b delta / e) is
        # Q sqrt(w) phi with phi = b delta / (e sqrt(w)), and its diagonal keeps
        # kappa = delta_tau + sum a delta / e * |g_perp|^2 / w >= delta_tau (no cancellation)
        u = self.cb * delta / self.e
        pos = w > 0
        phi = np.where(pos, u / np.sqrt(np.where(pos, w, 1.0)), 0.0)
        gpp = np.einsum("ij,ij->i", gp, gp)
        rest = np.where(pos, self.ca * delta / self.e * gpp / np.where(pos, w, 1.0),
                        self.ca * delta / self.e)
        kappa = self.il[2 * m] + float(rest.sum())
        Qa = np.empty((m + 1, d.p + d.QF.shape[1]))       # [Q sqrt(w), QF; phi', 0]: one pass
        np.multiply(d.Q, np.sqrt(w), out=Qa[:m, :d.p])
        Qa[:m, d.p:] = d.QF
        Qa[m, :d.p], Qa[m, d.p:] = phi, 0.0
        self.H = _HSolver(np.append(D, kappa), Qa)
        self.yext = np.append(d.y, 0.0)
        self.uy = self.H.solve(self.yext)
        self.syy = float(self.yext @ self.uy)

    def solve(self, bx: tuple[np.ndarray, float, np.ndarray], by: float, bzl: np.ndarray,
              bzq: np.ndarray) -> tuple[tuple[np.ndarray, float, np.ndarray], float,
                                        np.ndarray, np.ndarray]:
        """The reduced solve plus ``refine`` steps of iterative refinement on the full
        (unreduced) system, as CVXOPT's coneqp does with second-order cones."""
        dx, dy, dzl, dzq = self._solve(bx, by, bzl, bzq)
        for _ in range(self.refine):
            rx, ry, rzl, rzq = self._residual(bx, by, bzl, bzq, dx, dy, dzl, dzq)
            ex, ey, ezl, ezq = self._solve(rx, ry, rzl, rzq)
            dx = (dx[0] + ex[0], dx[1] + ex[1], dx[2] + ex[2])
            dy, dzl, dzq = dy + ey, dzl + ezl, dzq + ezq
        return dx, dy, dzl, dzq

    def _residual(self, bx: tuple[np.ndarray, float, np.ndarray], by: float, bzl: np.ndarray,
                  bzq: np.ndarray, dx: tuple[np.ndarray, float, np.ndarray], dy: float,
                  dzl: np.ndarray, dzq: np.ndarray,
                  ) -> tuple[tuple[np.ndarray, float, np.ndarray], float, np.ndarray,
                             np.ndarray]:
        """b - K (dx, dy, dz) for the full KKT matrix K of this scaling."""
        d, sc = self.d, self.sc
        ga, gt, gtt = _gtz(d, dzl, dzq)
        Pa = d.QF @ (dx[0] @ d.QF) if d.QF.shape[1] else 0.0
        rx = (bx[0] - Pa - dy * d.y - ga, bx[1] - gt, bx[2] - gtt)
        gl, gq = _gx(d, *dx)
        rzl = bzl - gl + sc.wl ** 2 * dzl
        rzq = bzq - gq + sc.power(dzq, 2)
        return rx, by - float(d.y @ dx[0]), rzl, rzq

    def _solve(self, bx: tuple[np.ndarray, float, np.ndarray], by: float, bzl: np.ndarray,
               bzq: np.ndarray) -> tuple[tuple[np.ndarray, float, np.ndarray], float,
                                         np.ndarray, np.ndarray]:
        d = self.d
        ul = self.il * bzl
        uq = self.sc.power(bzq, -2)
        ga, gt, gtt = _gtz(d, ul, uq)
        ra, rt, rtt = bx[0] + ga, bx[1] + gt, bx[2] + gtt
        ra2 = ra - d.Q @ (self.cb * rtt / self.e)
        rt2 = rt - float(np.sum(self.ca * rtt / self.e))
        u0 = self.H.solve(np.append(ra2, rt2))
        dyy = (float(self.yext @ u0) - by) / self.syy
        sol = u0 - self.uy * dyy
        da, dtau = sol[:-1], float(sol[-1])
        dt = (rtt - self.ca * dtau - self.cb * (da @ d.Q)) / self.e
        gl, gq = _gx(d, da, dtau, dt)
        dzl = self.il * (gl - bzl)
        dzq = self.sc.power(gq - bzq, -2)
        return (da, float(dtau), dt), float(dyy), dzl, dzq


# --- the algorithm -------------------------------------------------------------------------

def _shift(sl: np.ndarray, sq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """s + (1 + a) e with a the largest eigenvalue of -s, when s is not well inside the cone."""
    a = max(float((-sl).max(initial=-np.inf)),
            float((-sq[:, 0] + np.linalg.norm(sq[:, 1:], axis=1)).max(initial=-np.inf)))
    nrm = max(float(np.sqrt(sl @ sl + np.sum(sq * sq))), 1.0)
    sl, sq = sl.copy(), sq.copy()
    if a >= -1e-8 * nrm:
        sl += 1 + a
        sq[:, 0] += 1 + a
    return sl, sq


def _start(d: _Data) -> _Point:
    """CVXOPT's starting point: the KKT solution with W = I for (-q, 0, h), s = h - G x and
    z = G x - h, each shifted inside its cone."""
    m, p = d.m, d.p
    e3 = np.tile([1.0, 0.0, 0.0], (p, 1))
    one = _Scaling(np.ones(2 * m + 1 + p), np.ones(p), e3, np.ones(2 * m + 1 + p), e3)
    hl, hq = _h(d)
    x, yy, zl, zq = _KKT(d, one).solve((np.ones(m), -0.5 * d.k, np.full(p, -0.5)), 0.0, hl, hq)
    sl, sq = _shift(-zl, -zq)
    zl, zq = _shift(zl, zq)
    return _Point(x[0], x[1], x[2], yy, sl, zl, sq, zq)


def _residuals(d: _Data, pt: _Point) -> tuple[tuple[np.ndarray, float, np.ndarray], float,
                                              np.ndarray, np.ndarray, float]:
    """(rx, ry, rz linear, rz cones, primal objective)."""
    Pa = d.QF @ (pt.a @ d.QF) if d.QF.shape[1] else np.zeros(d.m)
    ga, gt, gtt = _gtz(d, pt.zl, pt.zq)
    rx = (Pa - 1.0 + pt.yy * d.y + ga, 0.5 * d.k + gt, 0.5 + gtt)
    hl, hq = _h(d)
    gl, gq = _gx(d, pt.a, pt.tau, pt.t)
    pcost = 0.5 * float(pt.a @ Pa) - float(pt.a.sum()) + 0.5 * d.k * pt.tau + 0.5 * float(
        pt.t.sum())
    return rx, float(d.y @ pt.a), gl + pt.sl - hl, gq + pt.sq - hq, pcost


def _direction(d: _Data, kkt: _KKT, res: tuple, rcl: np.ndarray, rcq: np.ndarray,
               ) -> tuple[tuple[np.ndarray, float, np.ndarray], float, np.ndarray, np.ndarray,
                          np.ndarray, np.ndarray]:
    """The Newton step for the complementarity target lam o (W^-T ds + W dz) = rc."""
    rx, ry, rzl, rzq = res[:4]
    sc = kkt.sc
    bzl = -rzl - sc.wl * (rcl / sc.lam_l)
    bzq = -rzq - sc.apply(_jdiv(sc.lam_q, rcq))
    dx, dy, dzl, dzq = kkt.solve((-rx[0], -rx[1], -rx[2]), -ry, bzl, bzq)
    gl, gq = _gx(d, *dx)
    return dx, dy, -rzl - gl, -rzq - gq, dzl, dzq


def solve_perspective_dual(Q: np.ndarray, y: np.ndarray, C: float, k: int, *,
                           QF: np.ndarray | None = None, tol: float = 1e-10,
                           max_iter: int = 80) -> PerspectiveDualSolution:
    """Solve the problem of the module docstring; ``Q`` = Y X_W (m x p), ``QF`` = Y X_F1.

    Stops when the relative gap and the relative residuals are below ``tol`` ("optimal"), or
    when the steps stall or ``max_iter`` is reached ("inaccurate": the iterate is still a
    valid multiplier for the caller's certificate after clipping to the box).
    """
    Q, y = np.asarray(Q, float), np.asarray(y, float)
    QF = np.zeros((Q.shape[0], 0)) if QF is None else np.asarray(QF, float)
    # scale alpha = gamma * alpha^ so that the optimum is O(1): gamma maximises g along the
    # balanced ray (y'a = 0); the problem in alpha^ has Q sqrt(gamma), C / gamma
    a0 = np.where(y > 0, 0.5 / max((y > 0).sum(), 1), 0.5 / max((y < 0).sum(), 1))
    s0 = a0 @ Q
    top = float(np.sort(s0 * s0)[-k:].sum()) + float(np.sum((a0 @ QF) ** 2))
    gamma = min(float(a0.sum()) / top, C) if top > 0 else C
    rg = np.sqrt(gamma)
    d = _Data(Q * rg, QF * rg, y, float(C) / gamma, int(k))
    m, p = d.m, d.p
    theta = 2 * m + 1 + 2 * p
    pt = _start(d)
    sc = _scaling(pt.sl, pt.zl, pt.sq, pt.zq)
    hl, hq = _h(d)
    resx0 = max(1.0, np.sqrt(m + 0.25 * d.k ** 2 + 0.25 * p))
    resz0 = max(1.0, float(np.sqrt(hl @ hl + np.sum(hq * hq))))
    status, it, relgap = "inaccurate", 0, np.inf
    best: tuple[float, np.ndarray, float, np.ndarray, float] | None = None
    stall = 0
    while it < max_iter:
        it += 1
        pt.sl, pt.sq = sc.wl * sc.lam_l, sc.apply(sc.lam_q)             # s = W' lam
        pt.zl, pt.zq = sc.lam_l / sc.wl, sc.apply(sc.lam_q, inverse=True)   # z = W^-1 lam
        res = _residuals(d, pt)
        rx, ry, rzl, rzq, pcost = res
        gap = float(sc.lam_l @ sc.lam_l + np.sum(sc.lam_q * sc.lam_q))
        relgap = gap / max(abs(pcost), 1e-300)
        pres = max(abs(ry), float(np.sqrt(rzl @ rzl + np.sum(rzq * rzq)))) / resz0
        dres = float(np.sqrt(rx[0] @ rx[0] + rx[1] ** 2 + rx[2] @ rx[2])) / resx0
        if pres <= tol and dres <= tol and relgap <= tol:
            status = "optimal"
            best = None
            break
        merit = max(relgap, pres, dres)
        if best is None or merit < best[0]:
            best, stall = (merit, pt.a.copy(), pt.tau, pt.zq.copy(), pt.yy), 0
        elif merit < 1e-5:    # past the attainable accuracy (relative gap ~1e-7 .. 1e-9)
            stall += 1
            if stall >= STALL:
                break
        try:
            kkt = _KKT(d, sc, REFINE if relgap < REFINE_BELOW else 0)
        except (np.linalg.LinAlgError, ValueError):
            break
        mu = gap / theta
        lsq_l, lsq_q = sc.lam_l ** 2, _jprod(sc.lam_q, sc.lam_q)
        sigma, cl, cq = 0.0, 0.0, 0.0
        for corrector in (False, True):
            rcl, rcq = -lsq_l - cl + sigma * mu, -lsq_q - cq
            rcq[:, 0] += sigma * mu
            dx, dy, dsl, dsq, dzl, dzq = _direction(d, kkt, res, rcl, rcq)
            dsl_, dzl_ = dsl / sc.wl, dzl * sc.wl                 # scaled: W^-T ds, W dz
            dsq_, dzq_ = sc.apply(dsq, inverse=True), sc.apply(dzq)
            tmax = min(_max_step(sc.lam_l, dsl_, sc.lam_q, dsq_),
                       _max_step(sc.lam_l, dzl_, sc.lam_q, dzq_))
            step = min(1.0, (STEP if corrector else 1.0) * tmax)
            if not corrector:
                dsdz = float(dsl_ @ dzl_ + np.sum(dsq_ * dzq_))
                sigma = min(1.0, max(0.0, 1.0 - step + dsdz / gap * step ** 2)) ** 3
                cl, cq = dsl_ * dzl_, _jprod(dsq_, dzq_)
        if not np.isfinite(step) or step < 1e-10:
            break
        pt.a, pt.tau, pt.t = pt.a + step * dx[0], pt.tau + step * dx[1], pt.t + step * dx[2]
        pt.yy += step * dy
        sc = _update_scaling(sc, sc.lam_l + step * dsl_, sc.lam_l + step * dzl_,
                             sc.lam_q + step * dsq_, sc.lam_q + step * dzq_)
    if best is not None:
        relgap, a, tau, zq, yy = best
    else:
        a, tau, zq, yy = pt.a, pt.tau, pt.zq, pt.yy
    v = np.clip(zq[:, 0] + zq[:, 1], 0.0, 1.0)
    return PerspectiveDualSolution(gamma * a, gamma * float(tau), v, it, status, float(relgap),
                                   -rg * zq[:, 2], float(yy))
