"""Relaxation (18) of paper B (every 3x3 principal minor through row 0 PSD) by minor generation,
and relaxation (14) by cutting planes in beta-space.

The paper builds all m(m-1)/2 minors at once and runs out of memory near m = 1000. Here the
minors are generated: start from (16) (the 2x2 minors), solve, add the ``batch`` most violated
3x3 minors, repeat. Each intermediate model keeps a subset of (18)'s constraints, so it is a
relaxation of (18) and its value a lower bound; when no minor is violated (within ``tol``), the
point is feasible for (18) and optimal for it, so the value *is* (18)'s. A minor
[[theta, g'], [g, B]] (B = the 2x2 block of K(beta), PSD for beta >= 0) is PSD iff
theta >= g' B^+ g; the violation is computed for all pairs at once, in chunks (O(m^2) time,
O(chunk) memory).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from sparsekm.declare import Annotated, Spec
from sparsekm.models.smkl.misdp import conic_export
from sparsekm.models.smkl.problem import SMKLProblem
from sparsekm.models.smkl.specs import BATCH, MAX_ITER, TOL
from sparsekm.registry import CONIC_PSD, Export, exportable, register
from sparsekm.solvers import Result, SolverPlan, Termination
from sparsekm.specs import GAP_TOL

from .conic import SolverReport, relaxation_result

__all__ = ["minor_violations", "sdp_3x3", "sdp_full_cp"]

MAX_ROUNDS = Spec("Rounds of minor generation at most (each solves the model with the minors "
                  "held so far: a relaxation of (18)).", ge=1)
MAX_MINORS = Spec("3x3 minors of (18) held at most (of m(m-1)/2); the rounds stop there.", ge=0)


def minor_violations(Kb: np.ndarray, gamma: np.ndarray, theta: float, chunk: int = 512
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(j, k, violation) of the 3x3 minors with g'B^{-1}g - theta > 0, all pairs j < k."""
    m = gamma.size
    diag = np.diag(Kb).copy()
    out_j, out_k, out_v = [], [], []
    for j0 in range(0, m, chunk):
        J = np.arange(j0, min(m, j0 + chunk))
        a, c = diag[J][:, None], diag[None, :]
        b = Kb[J]
        det = a * c - b * b
        gj, gk = gamma[J][:, None], gamma[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            quad = (c * gj ** 2 - 2 * b * gj * gk + a * gk ** 2) / det
        quad[~np.isfinite(quad)] = 0.0
        viol = quad - theta
        mask = (viol > 0) & (J[:, None] < np.arange(m)[None, :])
        jj, kk = np.nonzero(mask)
        out_j.append(J[jj])
        out_k.append(kk)
        out_v.append(viol[jj, kk])
    return np.concatenate(out_j), np.concatenate(out_k), np.concatenate(out_v)


def minor_model(problem: SMKLProblem, pairs: list[tuple[int, int]]) -> Any:
    """(16) plus the 3x3 minors ``pairs`` of (18) as a :class:`ConicQP` (built with sparse
    matrices: CVXPY spends ~25 ms compiling each minor, this costs microseconds).

    x = [eta, theta, sigma (m), gamma (m), beta (q), omega (q), z (q)].
    """
    import scipy.sparse as sp

    from sparsekm.solvers import ConicQP

    m, q, K, y, k0 = problem.m, problem.q, problem.K, problem.y, problem.k0
    ETA, TH = 0, 1
    SG, GM, BT = 2, 2 + m, 2 + 2 * m
    OM, Z = BT + q, BT + 2 * q
    n = Z + q
    rows, cols, vals, b, cones = [], [], [], [], []
    r = 0

    def add(entries: list[tuple[np.ndarray, np.ndarray, np.ndarray]], rhs: np.ndarray,
            kind: str, size: int, count: int) -> None:
        nonlocal r
        for rr, cc, vv in entries:
            rows.append(r + np.asarray(rr))
            cols.append(np.asarray(cc))
            vals.append(np.asarray(vv, dtype=float))
        b.append(np.asarray(rhs, dtype=float))
        cones.extend([(kind, size)] * count if kind in ("soc", "psd") else [(kind, size)])
        r += size * count if kind in ("soc", "psd") else size

    I, Iq = np.arange(m), np.arange(q)
    add([(np.zeros(q, int), BT + Iq, np.ones(q))], [1.0], "zero", 1, 1)  # sum beta = 1
    # nonneg rows (A x + s = b, s >= 0): margin, sigma, beta, omega, z >= 0, z <= 1, sum z
    add([(I, np.full(m, ETA), -y), (I, GM + I, -y), (I, SG + I, -np.ones(m))],
        -np.ones(m), "nonneg", m, 1)
    for base in (SG, ):
        add([(I, base + I, -np.ones(m))], np.zeros(m), "nonneg", m, 1)
    for base in (BT, OM, Z):
        add([(Iq, base + Iq, -np.ones(q))], np.zeros(q), "nonneg", q, 1)
    add([(Iq, Z + Iq, np.ones(q))], np.ones(q), "nonneg", q, 1)
    add([(np.zeros(q, int), Z + Iq, np.ones(q))], [float(k0)], "nonneg", 1, 1)
    # beta_i^2 <= z_i omega_i: SOC (z + omega, 2 beta, z - omega)
    t = 3 * Iq
    add([(t, Z + Iq, -np.ones(q)), (t, OM + Iq, -np.ones(q)), (t + 1, BT + Iq, -2 * np.ones(q)),
         (t + 2, Z + Iq, -np.ones(q)), (t + 2, OM + Iq, np.ones(q))],
        np.zeros(3 * q), "soc", 3, q)
    # 2x2 minors (16): theta s_j >= gamma_j^2, s_j = sum_i beta_i K_i[j, j]
    dg = np.einsum("qjj->jq", K)  # (m, q)
    t = 3 * I
    jr, ic = np.repeat(t, q), np.tile(BT + Iq, m)
    add([(t, np.full(m, TH), -np.ones(m)), (jr, ic, -dg.ravel()), (t + 1, GM + I, -2 * np.ones(m)),
         (t + 2, np.full(m, TH), -np.ones(m)), (jr + 2, ic, dg.ravel())],
        np.zeros(3 * m), "soc", 3, m)
    if pairs:  # 3x3 minors (18): svec [theta, r2 g_j, a, r2 g_k, r2 b, c]
        P = np.asarray(pairs, dtype=int)
        npair, r2 = len(P), np.sqrt(2.0)
        j, k = P[:, 0], P[:, 1]
        t = 6 * np.arange(npair)
        a, bb, c = K[:, j, j].T, K[:, j, k].T, K[:, k, k].T  # (npair, q)
        rep = lambda off: np.repeat(t + off, q)  # noqa: E731
        bcols = np.tile(BT + Iq, npair)
        add([(t, np.full(npair, TH), -np.ones(npair)), (t + 1, GM + j, -r2 * np.ones(npair)),
             (rep(2), bcols, -a.ravel()), (t + 3, GM + k, -r2 * np.ones(npair)),
             (rep(4), bcols, -r2 * bb.ravel()), (rep(5), bcols, -c.ravel())],
            np.zeros(6 * npair), "psd", 6, npair)
    A = sp.csc_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                      shape=(r, n))
    qv = np.zeros(n)
    qv[TH], qv[SG:SG + m], qv[OM:OM + q] = 0.5, problem.C, problem.lam
    names = {"eta": slice(ETA, ETA + 1), "theta": slice(TH, TH + 1), "gamma": slice(GM, GM + m),
             "beta": slice(BT, BT + q), "z": slice(Z, Z + q)}
    return ConicQP(sp.csc_matrix((n, n)), qv, A, np.concatenate(b), cones, names,
                   name="relaxation (18), generated minors")


@register("smkl", "relaxation", "sdp-3x3", paper="B", ref="eq. (18)", problem_class="SDP")
@exportable(Export("sdp-3x3", conic_export("3x3"), CONIC_PSD,
                   note="all m(m-1)/2 minors of (18) at once"))
def sdp_3x3(problem: SMKLProblem, plan: SolverPlan | None = None, *,
            batch: Annotated[int, BATCH] = 500, max_rounds: Annotated[int, MAX_ROUNDS] = 40,
            tol: Annotated[float, TOL] = 1e-6,
            max_minors: Annotated[int, MAX_MINORS] = 20000) -> Result:
    """3x3-minor SDP (18) by minor generation (exact value when no minor is left violated)."""
    from sparsekm.solvers import solve

    plan = (plan or SolverPlan()).start()
    t0 = time.perf_counter()
    solver = (plan.relax_solver or plan.solver or "clarabel").lower()
    opts = {"tol_gap_abs": 1e-8, "tol_gap_rel": 1e-8, "tol_feas": 1e-8} \
        if solver == "clarabel" else {}
    pairs: list[tuple[int, int]] = []
    term, res, rounds, viol_max = Termination.ITERATION_LIMIT, None, 0, np.inf
    alpha = beta_v = z_v = last_ok = None
    failed = ""
    for rounds in range(1, max_rounds + 1):  # noqa: B007 - reported after the loop
        qp = minor_model(problem, pairs)
        res = solve(qp, solver=solver, time_limit=plan.clock.cap(plan.subproblem_time_limit),
                    **opts)
        if not res.has_solution:  # keep the last solved round: a valid relaxation of (18)
            term, failed = res.termination, res.message
            res = last_ok
            break
        last_ok = res
        v = res.values
        beta_v, z_v = np.clip(v["beta"], 0, None), v["z"]
        if res.raw is not None and hasattr(res.raw, "z"):
            alpha = np.asarray(res.raw.z, dtype=float)[1:1 + problem.m]
        Kb = problem.dictionary.combine(beta_v)
        theta = float(v["theta"][0])
        jj, kk, vv = minor_violations(Kb, v["gamma"], theta)
        viol_max = float(vv.max()) if vv.size else 0.0
        if viol_max <= tol * max(1.0, abs(theta)):
            term = Termination.CONVERGED
            break
        if plan.clock.expired():
            term = Termination.TIME_LIMIT
            break
        if len(pairs) >= max_minors:
            break
        top = np.argsort(-vv)[:batch]
        pairs += list(zip(jj[top].tolist(), kk[top].tolist()))
    reported = SolverReport(None, "", term) if res is None else SolverReport(
        res.objective, res.solver, term, res.bound)
    return relaxation_result(problem, alpha, reported=reported, point=(beta_v, z_v),
                             method="sdp-3x3", t0=t0, minors=len(pairs), rounds=rounds,
                             max_violation=viol_max, all_minors=problem.m * (problem.m - 1) // 2,
                             failed_round=failed)


@register("smkl", "relaxation", "sdp-full-cp", paper="B", ref="eq. (14), Proposition 4",
          problem_class="SOCP")
def sdp_full_cp(problem: SMKLProblem, plan: SolverPlan | None = None, *,
                gap_tol: Annotated[float, GAP_TOL] = 1e-4,
                max_iter: Annotated[int, MAX_ITER] = 200) -> Result:
    """(14) by cutting planes in beta-space: no PSD block, only SVM solves (any m).

    The rounds stop when the master point's value and the certified bound are within
    ``gap_tol`` (relative to max(1, |value|)), the result's tolerance.
    """
    from .cutting_plane import kelley

    plan = (plan or SolverPlan()).start()
    t0 = time.perf_counter()
    r = kelley(problem, tol=gap_tol, max_iter=max_iter, plan=plan)
    term = {"converged": Termination.CONVERGED, "time_limit": Termination.TIME_LIMIT}.get(
        r["termination"], Termination.ITERATION_LIMIT)
    res = relaxation_result(problem, None,
                            reported=SolverReport(r["upper"], "libsvm+cutting planes", term),
                            point=(r["beta"], None), method="sdp-full-cp", t0=t0,
                            iterations=r["iterations"], lagrangian_bound=r["bound4"])
    res.certify(r["bound"])  # (14)'s certified value: its cutting-plane bound
    res.gap_tol = gap_tol
    res.values["alphas"] = r["alphas"]
    return res
