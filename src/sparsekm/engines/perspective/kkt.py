"""The Newton (KKT) system of the perspective dual's interior-point method (paper D, DSCoP (13)).

For one Nesterov-Todd scaling W, solves [[P, A', G'], [A, 0, 0], [G, 0, -W'W]] (dx, dy, dz) =
(bx, by, bz) by eliminating the t_j per feature, which leaves the m x m system
H = D + Q diag(w) Q' + QF QF' bordered by tau and y'alpha (:class:`KKTSystem`). H is
factorised densely in m or split into a dense block of the free samples and a
Sherman-Morrison-Woodbury block in feature space (:class:`HSolver`; see
:mod:`.ipm` for when and why).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from .cones import NTScaling
from .form import PerspectiveData, apply_g, apply_g_transpose

__all__ = ["SPLIT_RATIO", "HSolver", "KKTSystem", "gram_lower"]

SPLIT_RATIO = 1e-4    # sample i stays in the dense block when D_i < SPLIT_RATIO * (Q w Q')_ii


def gram_lower(A: np.ndarray) -> np.ndarray:
    """A'A (lower triangle) by BLAS syrk, without copying a C-ordered A."""
    return sla.blas.dsyrk(1.0, np.ascontiguousarray(A).T, trans=0, lower=1)


class HSolver:
    """Solves H u = r for H = diag(D) + Qa Qa' (Qa = [Q sqrt(w), QF]), densely in m (when
    m <= ``dense_max`` or m <= 1.5 columns of Qa) or split."""

    def __init__(self, D: np.ndarray, Qa: np.ndarray, dense_max: int) -> None:
        m, pa = Qa.shape
        self.dense = m <= dense_max or m <= 1.5 * pa
        if self.dense:
            H = gram_lower(Qa.T)
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
        M = gram_lower(self.QB)
        M[np.diag_indices(pa)] += 1.0
        self.LM = sla.cho_factor(M, lower=True, check_finite=False)
        self.LS = None
        if self.F.size:
            Z = sla.solve_triangular(self.LM[0], self.QF.T, lower=True, check_finite=False)
            S = gram_lower(Z)
            S[np.diag_indices(self.F.size)] += self.DF
            self.LS = sla.cho_factor(S, lower=True, check_finite=False)
        self.m = m

    def solve(self, r: np.ndarray) -> np.ndarray:
        """u = H^-1 r (r a vector or a matrix of right-hand sides)."""
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


class KKTSystem:
    """[[P, A', G'], [A, 0, 0], [G, 0, -W'W]] (dx, dy, dz) = (bx, by, bz) for one scaling;
    ``refine`` steps of iterative refinement per solve, H dense up to ``dense_max`` samples."""

    def __init__(self, d: PerspectiveData, sc: NTScaling, refine: int, dense_max: int) -> None:
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
        self.H = HSolver(np.append(D, kappa), Qa, dense_max)
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
        ga, gt, gtt = apply_g_transpose(d, dzl, dzq)
        Pa = d.QF @ (dx[0] @ d.QF) if d.QF.shape[1] else 0.0
        rx = (bx[0] - Pa - dy * d.y - ga, bx[1] - gt, bx[2] - gtt)
        gl, gq = apply_g(d, *dx)
        rzl = bzl - gl + sc.wl ** 2 * dzl
        rzq = bzq - gq + sc.power(dzq, 2)
        return rx, by - float(d.y @ dx[0]), rzl, rzq

    def _solve(self, bx: tuple[np.ndarray, float, np.ndarray], by: float, bzl: np.ndarray,
               bzq: np.ndarray) -> tuple[tuple[np.ndarray, float, np.ndarray], float,
                                         np.ndarray, np.ndarray]:
        """The reduced solve: t eliminated per feature, then H and the y'alpha border."""
        d = self.d
        ul = self.il * bzl
        uq = self.sc.power(bzq, -2)
        ga, gt, gtt = apply_g_transpose(d, ul, uq)
        ra, rt, rtt = bx[0] + ga, bx[1] + gt, bx[2] + gtt
        ra2 = ra - d.Q @ (self.cb * rtt / self.e)
        rt2 = rt - float(np.sum(self.ca * rtt / self.e))
        u0 = self.H.solve(np.append(ra2, rt2))
        dyy = (float(self.yext @ u0) - by) / self.syy
        sol = u0 - self.uy * dyy
        da, dtau = sol[:-1], float(sol[-1])
        dt = (rtt - self.ca * dtau - self.cb * (da @ d.Q)) / self.e
        gl, gq = apply_g(d, da, dtau, dt)
        dzl = self.il * (gl - bzl)
        dzq = self.sc.power(gq - bzq, -2)
        return (da, float(dtau), dt), float(dyy), dzl, dzq

