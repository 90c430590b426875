"""Second-order cone algebra and Nesterov-Todd scaling for the perspective dual's p cones.

Every operation is vectorised over the rows of a p x 3 array (one 3-dimensional cone per
feature of the working set): the Jordan product and division, the largest step to the cones'
boundary, and the NT scaling W with its update in the scaled space (CVXOPT's formulas,
Vandenberghe, "The CVXOPT linear and quadratic cone program solvers", 2010, Sections 4 and 7).
Used by :mod:`.ipm` and its Newton system :mod:`.kkt`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["NTScaling", "cone_norm", "cone_norm_factored", "jordan_divide", "jordan_product",
           "max_step", "max_step_cones", "nt_scaling", "update_nt_scaling"]

_J = np.array([1.0, -1.0, -1.0])


def jordan_product(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Jordan product x o y per cone: (x'y, x0 y1 + y0 x1)."""
    out = x[:, 0:1] * y + y[:, 0:1] * x
    out[:, 0] = np.einsum("ij,ij->i", x, y)
    return out


def jordan_divide(lam: np.ndarray, r: np.ndarray) -> np.ndarray:
    """u with lam o u = r."""
    det = lam[:, 0] ** 2 - np.einsum("ij,ij->i", lam[:, 1:], lam[:, 1:])
    u0 = (lam[:, 0] * r[:, 0] - np.einsum("ij,ij->i", lam[:, 1:], r[:, 1:])) / det
    u = np.empty_like(r)
    u[:, 0] = u0
    u[:, 1:] = (r[:, 1:] - u0[:, None] * lam[:, 1:]) / lam[:, 0:1]
    return u


def cone_norm(x: np.ndarray) -> np.ndarray:
    """sqrt(x0^2 - ||x1||^2) per cone."""
    det = (x[:, 0] - x[:, 1]) * (x[:, 0] + x[:, 1]) - x[:, 2] ** 2
    return np.sqrt(np.maximum(det, 1e-300))


def max_step_cones(x: np.ndarray, dx: np.ndarray) -> float:
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


def max_step(pt_l: np.ndarray, dl: np.ndarray, pt_q: np.ndarray, dq: np.ndarray) -> float:
    """Largest a with (pt_l + a dl, pt_q + a dq) in the linear cone and the cones."""
    neg = dl < 0
    st = float((-pt_l[neg] / dl[neg]).min()) if neg.any() else np.inf
    return min(st, max_step_cones(pt_q, dq))


@dataclass
class NTScaling:
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


def nt_scaling(sl: np.ndarray, zl: np.ndarray, sq: np.ndarray, zq: np.ndarray) -> NTScaling:
    """NT scaling point of (s, z) (CVXOPT's formulas, Vandenberghe 2010, Section 4.4)."""
    wl = np.sqrt(sl / zl)
    ns, nz = cone_norm(sq), cone_norm(zq)
    sb, zb = sq / ns[:, None], zq / nz[:, None]
    gam = np.sqrt(0.5 * (1.0 + np.einsum("ij,ij->i", sb, zb)))
    wb = (sb + zb * _J) / (2 * gam[:, None])
    v = wb.copy()
    v[:, 0] += 1.0
    v /= np.sqrt(2.0 * (wb[:, 0] + 1.0))[:, None]
    sc = NTScaling(wl, np.sqrt(ns / nz), v, np.sqrt(sl * zl), np.empty_like(sq))
    sc.lam_q = sc.apply(zq)
    return sc


def cone_norm_factored(x: np.ndarray) -> np.ndarray:
    """sqrt(x' J x) per cone, as sqrt(x0 - ||x1||) sqrt(x0 + ||x1||)."""
    a = np.linalg.norm(x[:, 1:], axis=1)
    return np.sqrt(np.maximum(x[:, 0] - a, 1e-300)) * np.sqrt(x[:, 0] + a)


def update_nt_scaling(sc: NTScaling, stl: np.ndarray, ztl: np.ndarray, stq: np.ndarray,
                      ztq: np.ndarray) -> NTScaling:
    """The NT scaling of the new iterates given in the current scaling (st = lam + a ds~,
    zt = lam + a dz~): CVXOPT's ``misc.update_scaling`` vectorised over the cones. Updating
    in the scaled space keeps the scaling accurate near the optimum, where recomputing it
    from (s, z) loses the digits that the method needs past a relative gap of ~1e-6."""
    rs, rz = np.sqrt(stl), np.sqrt(ztl)
    wl, lam_l = sc.wl * rs / rz, rs * rz
    aa, bb = cone_norm_factored(stq), cone_norm_factored(ztq)
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
    return NTScaling(wl, sc.beta * np.sqrt(aa / bb), vn, lam_l, lam)

