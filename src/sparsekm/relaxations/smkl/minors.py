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

import numpy as np

from sparsekm.models.smkl.misdp import conic_model
from sparsekm.models.smkl.problem import SMKLProblem
from sparsekm.registry import register
from sparsekm.solvers import Result, SolverPlan, Termination

from .conic import MINOR_LIMIT, relaxation_result

__all__ = ["minor_violations", "sdp_3x3", "sdp_full_cp"]


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


@register("smkl", "relaxation", "sdp-3x3", paper="B", ref="eq. (18)", problem_class="SDP")
def sdp_3x3(problem: SMKLProblem, plan: SolverPlan | None = None, *, batch: int = 200,
            max_rounds: int = 30, tol: float = 1e-6) -> Result:
    """3x3-minor SDP (18) by minor generation (exact value when no minor is left violated)."""
    import cvxpy as cp

    from sparsekm.solvers import solve

    plan = (plan or SolverPlan()).start()
    t0 = time.perf_counter()
    solver = (plan.relax_solver or plan.solver or "clarabel").lower()
    K, q = problem.K, problem.q
    pairs: list[tuple[int, int]] = []
    term, res, h, rounds, viol_max = Termination.ITERATION_LIMIT, None, None, 0, np.inf
    for rounds in range(1, max_rounds + 1):
        prob, h = conic_model(problem, integer=False, cone="soc-basis")
        beta, gamma, theta = h["beta"], h["gamma"], h["theta"]
        extra = []
        for j, k in pairs:
            kjj, kjk, kkk = K[:, j, j] @ beta, K[:, j, k] @ beta, K[:, k, k] @ beta
            extra.append(cp.bmat([[theta, gamma[j], gamma[k]], [gamma[j], kjj, kjk],
                                  [gamma[k], kjk, kkk]]) >> 0)
        prob = cp.Problem(prob.objective, prob.constraints + extra)
        res = solve(prob, solver=solver, time_limit=plan.clock.cap(plan.subproblem_time_limit))
        if beta.value is None:
            term = res.termination
            break
        b = np.clip(beta.value, 0, None)
        Kb = problem.dictionary.combine(b)
        jj, kk, vv = minor_violations(Kb, np.asarray(gamma.value), float(theta.value))
        viol_max = float(vv.max()) if vv.size else 0.0
        if viol_max <= tol * max(1.0, abs(float(theta.value))):
            term = Termination.CONVERGED
            break
        if plan.clock.expired():
            term = Termination.TIME_LIMIT
            break
        if len(pairs) + batch > MINOR_LIMIT:
            break
        top = np.argsort(-vv)[:batch]
        pairs += list(zip(jj[top].tolist(), kk[top].tolist()))
    alpha = None if h is None or h["margin"].dual_value is None else \
        np.asarray(h["margin"].dual_value, dtype=float)
    beta_v = None if h is None or h["beta"].value is None else np.asarray(h["beta"].value)
    z_v = None if h is None or h["z"].value is None else np.asarray(h["z"].value)
    return relaxation_result(problem, alpha, objective=None if res is None else res.objective,
                             beta=beta_v, z=z_v, method="sdp-3x3", t0=t0,
                             solver="" if res is None else res.solver, termination=term,
                             minors=len(pairs), rounds=rounds, max_violation=viol_max,
                             all_minors=problem.m * (problem.m - 1) // 2)


@register("smkl", "relaxation", "sdp-full-cp", paper="B", ref="eq. (14), Proposition 4",
          problem_class="SOCP")
def sdp_full_cp(problem: SMKLProblem, plan: SolverPlan | None = None, *, tol: float = 1e-4,
                max_iter: int = 200) -> Result:
    """(14) by cutting planes in beta-space: no PSD block, only SVM solves (any m)."""
    from .cutting_plane import kelley

    plan = (plan or SolverPlan()).start()
    t0 = time.perf_counter()
    r = kelley(problem, tol=tol, max_iter=max_iter, deadline=plan.clock,
               solver=plan.relax_solver)
    term = {"converged": Termination.CONVERGED, "time_limit": Termination.TIME_LIMIT}.get(
        r["termination"], Termination.ITERATION_LIMIT)
    res = relaxation_result(problem, None, objective=r["upper"], beta=r["beta"], z=None,
                            method="sdp-full-cp", t0=t0, solver="libsvm+cutting planes",
                            termination=term, iterations=r["iterations"],
                            relaxation_bound=r["bound"])
    res.bound = r["bound4"]
    res.values["alphas"] = r["alphas"]
    return res
