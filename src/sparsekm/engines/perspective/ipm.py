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

This module is the path-following loop; the standard form G x + s = h is in
:mod:`.form`, the cone algebra and the NT scaling in :mod:`.cones`,
the Newton system in :mod:`.kkt`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .cones import (
    NTScaling,
    jordan_divide,
    jordan_product,
    max_step,
    nt_scaling,
    update_nt_scaling,
)
from .form import PerspectiveData, apply_g, apply_g_transpose, right_hand_side
from .kkt import SPLIT_RATIO, KKTSystem  # noqa: F401  (SPLIT_RATIO: re-exported)

__all__ = ["PerspectiveDualSolution", "solve_perspective_dual"]

MSPACE_MAX = 400      # factorise H densely in m up to this many samples (read at every solve)
STALL = 2             # iterations without progress before stopping
STEP = 0.99          # fraction of the step to the boundary (CVXOPT's)
REFINE = 1           # iterative-refinement steps per KKT solve ...
REFINE_BELOW = 1e-4  # ... once the relative gap is below this (measured: without refinement
                     # mfeat stalls at 3e-7; it changes nothing earlier)


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


def _start(d: PerspectiveData, dense_max: int) -> _Point:
    """CVXOPT's starting point: the KKT solution with W = I for (-q, 0, h), s = h - G x and
    z = G x - h, each shifted inside its cone (H dense up to ``dense_max`` samples)."""
    m, p = d.m, d.p
    e3 = np.tile([1.0, 0.0, 0.0], (p, 1))
    one = NTScaling(np.ones(2 * m + 1 + p), np.ones(p), e3, np.ones(2 * m + 1 + p), e3)
    hl, hq = right_hand_side(d)
    kkt = KKTSystem(d, one, REFINE, dense_max)
    x, yy, zl, zq = kkt.solve((np.ones(m), -0.5 * d.k, np.full(p, -0.5)), 0.0, hl, hq)
    sl, sq = _shift(-zl, -zq)
    zl, zq = _shift(zl, zq)
    return _Point(x[0], x[1], x[2], yy, sl, zl, sq, zq)


def _residuals(d: PerspectiveData, pt: _Point,
               ) -> tuple[tuple[np.ndarray, float, np.ndarray], float, np.ndarray, np.ndarray,
                          float]:
    """(rx, ry, rz linear, rz cones, primal objective)."""
    Pa = d.QF @ (pt.a @ d.QF) if d.QF.shape[1] else np.zeros(d.m)
    ga, gt, gtt = apply_g_transpose(d, pt.zl, pt.zq)
    rx = (Pa - 1.0 + pt.yy * d.y + ga, 0.5 * d.k + gt, 0.5 + gtt)
    hl, hq = right_hand_side(d)
    gl, gq = apply_g(d, pt.a, pt.tau, pt.t)
    pcost = 0.5 * float(pt.a @ Pa) - float(pt.a.sum()) + 0.5 * d.k * pt.tau + 0.5 * float(
        pt.t.sum())
    return rx, float(d.y @ pt.a), gl + pt.sl - hl, gq + pt.sq - hq, pcost


def _direction(d: PerspectiveData, kkt: KKTSystem, res: tuple, rcl: np.ndarray, rcq: np.ndarray,
               ) -> tuple[tuple[np.ndarray, float, np.ndarray], float, np.ndarray, np.ndarray,
                          np.ndarray, np.ndarray]:
    """The Newton step for the complementarity target lam o (W^-T ds + W dz) = rc."""
    rx, ry, rzl, rzq = res[:4]
    sc = kkt.sc
    bzl = -rzl - sc.wl * (rcl / sc.lam_l)
    bzq = -rzq - sc.apply(jordan_divide(sc.lam_q, rcq))
    dx, dy, dzl, dzq = kkt.solve((-rx[0], -rx[1], -rx[2]), -ry, bzl, bzq)
    gl, gq = apply_g(d, *dx)
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
    d = PerspectiveData(Q * rg, QF * rg, y, float(C) / gamma, int(k))
    m, p = d.m, d.p
    theta = 2 * m + 1 + 2 * p
    pt = _start(d, MSPACE_MAX)
    sc = nt_scaling(pt.sl, pt.zl, pt.sq, pt.zq)
    hl, hq = right_hand_side(d)
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
            kkt = KKTSystem(d, sc, REFINE if relgap < REFINE_BELOW else 0, MSPACE_MAX)
        except (np.linalg.LinAlgError, ValueError):
            break
        mu = gap / theta
        lsq_l, lsq_q = sc.lam_l ** 2, jordan_product(sc.lam_q, sc.lam_q)
        sigma, cl, cq = 0.0, 0.0, 0.0
        for corrector in (False, True):
            rcl, rcq = -lsq_l - cl + sigma * mu, -lsq_q - cq
            rcq[:, 0] += sigma * mu
            dx, dy, dsl, dsq, dzl, dzq = _direction(d, kkt, res, rcl, rcq)
            dsl_, dzl_ = dsl / sc.wl, dzl * sc.wl                 # scaled: W^-T ds, W dz
            dsq_, dzq_ = sc.apply(dsq, inverse=True), sc.apply(dzq)
            tmax = min(max_step(sc.lam_l, dsl_, sc.lam_q, dsq_),
                       max_step(sc.lam_l, dzl_, sc.lam_q, dzq_))
            step = min(1.0, (STEP if corrector else 1.0) * tmax)
            if not corrector:
                dsdz = float(dsl_ @ dzl_ + np.sum(dsq_ * dzq_))
                sigma = min(1.0, max(0.0, 1.0 - step + dsdz / gap * step ** 2)) ** 3
                cl, cq = dsl_ * dzl_, jordan_product(dsq_, dzq_)
        if not np.isfinite(step) or step < 1e-10:
            break
        pt.a, pt.tau, pt.t = pt.a + step * dx[0], pt.tau + step * dx[1], pt.t + step * dx[2]
        pt.yy += step * dy
        sc = update_nt_scaling(sc, sc.lam_l + step * dsl_, sc.lam_l + step * dzl_,
                             sc.lam_q + step * dsq_, sc.lam_q + step * dzq_)
    if best is not None:
        relgap, a, tau, zq, yy = best
    else:
        a, tau, zq, yy = pt.a, pt.tau, pt.zq, pt.yy
    v = np.clip(zq[:, 0] + zq[:, 1], 0.0, 1.0)
    return PerspectiveDualSolution(gamma * a, gamma * float(tau), v, it, status, float(relgap),
                                   -rg * zq[:, 2], float(yy))
