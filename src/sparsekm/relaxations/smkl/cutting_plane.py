"""Kelley's cutting planes in beta-space for the convex pieces of paper B.

F(beta) = max_alpha f(alpha, beta) (the SVM dual (7) on K(beta)) is convex in beta; every
SVM solution alpha_k gives the cut F(beta) >= sum(alpha_k) - d_k'beta / 2 (exact at the beta it
was solved for). Two problems are solved this way, each master through the solver layer:

* ``mode="support"``: min over the simplex face Delta_S of F(beta) + lam ||beta||^2 -- (4) with
  the support fixed to S (a leaf of the exact method);
* ``mode="perspective"``: min over beta in the simplex, z in [0,1]^q, sum z <= k0,
  beta_i^2 <= z_i omega_i of F(beta) + lam sum omega -- relaxation (14). By Proposition 4
  the PSD block of (14) is exactly F(beta) for fixed beta, so (14) is this q-dimensional convex
  problem: no (m+1) x (m+1) PSD matrix, only SVM solves (it scales like ABR).

Certificate: the master's cut multipliers mu (a point of the simplex) combine the alphas into
alpha_mu = sum mu_k alpha_k, a feasible SVM dual point; d is convex in alpha, so the weak-duality
bound at alpha_mu (``lagrangian_bound`` / ``perspective_bound``) is at least the master's value
and is certified by a proof, whatever the master solver's accuracy.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from sparsekm.models.smkl.objective import evaluate
from sparsekm.models.smkl.problem import SMKLProblem
from sparsekm.models.smkl.subproblems import lagrangian_bound, perspective_bound
from sparsekm.solvers import SolverError, SolverPlan

__all__ = ["kelley"]


def _master(problem: SMKLProblem, S: np.ndarray | None, cuts: list[tuple[float, np.ndarray]],
            solver: str | None) -> tuple[np.ndarray, np.ndarray, float]:
    """Solve the cutting-plane master; returns (beta, mu, value)."""
    import cvxpy as cp

    from sparsekm.solvers import solve

    q, lam = problem.q, problem.lam
    t = cp.Variable(name="t")
    beta = cp.Variable(q, nonneg=True, name="beta")
    s = np.array([c[0] for c in cuts])
    D = np.array([c[1] for c in cuts])
    scale = max(1.0, float(np.abs(D).max()))  # cut coefficients can reach 1e4: rescale rows
    cut = (t - s + 0.5 * (D @ beta)) / scale >= 0
    cons = [cut, cp.sum(beta) == 1]
    if S is not None:
        mask = np.ones(q, bool)
        mask[S] = False
        if mask.any():
            cons.append(beta[np.flatnonzero(mask)] == 0)
        obj = t + lam * cp.sum_squares(beta)
    else:
        z = cp.Variable(q, name="z")
        omega = cp.Variable(q, nonneg=True, name="omega")
        cons += [z >= 0, z <= 1, cp.sum(z) <= problem.k0,
                 cp.SOC(z + omega, cp.vstack([2 * beta, z - omega]), axis=0)]
        obj = t + lam * cp.sum(omega)
    prob = cp.Problem(cp.Minimize(obj), cons)
    res = solve(prob, solver=solver)
    if beta.value is None or cut.dual_value is None:
        raise RuntimeError(f"cutting-plane master failed: {res.message}")
    mu = np.clip(np.asarray(cut.dual_value, dtype=float).ravel() / scale, 0.0, None)
    mu = mu / mu.sum() if mu.sum() > 0 else np.full(len(cuts), 1.0 / len(cuts))
    b = np.clip(np.asarray(beta.value, dtype=float), 0.0, None)
    if S is not None:
        keep = np.zeros(q, bool)
        keep[S] = True
        b[~keep] = 0.0
    b /= b.sum()
    return b, mu, float(prob.value)


def kelley(problem: SMKLProblem, *, S: np.ndarray | None = None, alphas: list | None = None,
           beta0: np.ndarray | None = None, tol: float = 1e-4, max_iter: int = 100,
           cutoff: float = np.inf, plan: SolverPlan | None = None) -> dict[str, Any]:
    """Minimize F(beta) + penalty by cutting planes (``S`` given: support mode, else (14)).

    ``plan``: its running clock stops the iterations, its ``relax_solver`` (else its ``solver``)
    solves the masters.

    Returns ``upper`` (support mode: certified value of (4) at ``beta``; perspective mode: the
    relaxation's value at the master point), ``bound`` (certified lower bound on the
    problem), ``bound4`` (certified lower bound on (4), perspective mode), ``beta``,
    ``alphas`` (the SVM solutions met, (alpha, d) pairs: the given ``alphas`` first, in
    order, then the new ones), ``iterations``, ``termination``.
    """
    t0 = time.perf_counter()
    deadline = None if plan is None else plan.clock
    solver = None if plan is None else (plan.relax_solver or plan.solver)
    lam, k0, q = problem.lam, problem.k0, problem.q
    S = None if S is None else np.asarray(sorted(S), dtype=int)
    excluded = () if S is None else tuple(np.setdiff1d(np.arange(q), S))
    if beta0 is None:
        beta0 = np.zeros(q)
        beta0[S if S is not None else np.arange(q)] = 1.0
        beta0 /= beta0.sum()
    pool: list[tuple[np.ndarray, np.ndarray]] = list(alphas or [])
    e = evaluate(problem, beta0, deadline=deadline)
    pool.append((e.alpha, e.d))
    best_beta, upper = e.beta, (e.upper if S is not None else np.inf)
    bound, bound4, term, it = -np.inf, -np.inf, "iteration_limit", 0

    def certify(alpha: np.ndarray, d: np.ndarray) -> None:
        nonlocal bound, bound4
        sa = float(alpha.sum())
        if S is not None:
            kS = len(S)
            bound = max(bound, lagrangian_bound(d, sa, lam, kS, excluded)[0])
        else:
            bound = max(bound, perspective_bound(d, sa, lam, k0))
            bound4 = max(bound4, lagrangian_bound(d, sa, lam, k0)[0])

    for a, d in pool:
        certify(a, d)
    for it in range(1, max_iter + 1):  # noqa: B007 - reported after the loop
        if deadline is not None and deadline.expired():
            term = "time_limit"
            break
        cuts = [(float(a.sum()), d) for a, d in pool]
        try:
            beta, mu, _ = _master(problem, S, cuts, solver)
        except RuntimeError as exc:  # a failed master ends the run; bound, incumbent stay valid
            if isinstance(exc, SolverError):
                raise  # no solver for the masters (unknown, unlicensed, incapable): say so
            term = "error"
            break
        a_mu = sum(m * a for m, (a, _) in zip(mu, pool) if m > 0)
        d_mu = problem.dictionary.quad_forms(a_mu * problem.y)
        certify(a_mu, d_mu)
        e = evaluate(problem, beta, alpha0=pool[-1][0], deadline=deadline)
        pool.append((e.alpha, e.d))
        certify(e.alpha, e.d)
        if S is not None:
            if e.upper < upper:
                upper, best_beta = e.upper, e.beta
        else:
            z = _perspective_value(beta, k0)
            val = e.upper - lam * float(beta @ beta) + lam * z
            if val < upper:
                upper, best_beta = val, e.beta
        if bound >= cutoff:
            term = "cutoff"
            break
        if upper - bound <= tol * max(1.0, abs(upper)):
            term = "converged"
            break
    return {"upper": upper, "bound": bound, "bound4": bound4 if S is None else bound,
            "beta": best_beta, "alphas": pool, "iterations": it, "termination": term,
            "time_s": time.perf_counter() - t0}


def _perspective_value(beta: np.ndarray, k0: int) -> float:
    """P(beta) = min { sum beta_i^2 / z_i : z in [0,1]^q, sum z <= k0 } (closed form).

    z_i = min(1, beta_i / nu) with nu chosen so that sum z = k0 (or z = 1 on the support when
    it has at most k0 entries).
    """
    b = np.sort(np.asarray(beta, dtype=float)[beta > 0])[::-1]
    if b.size <= k0:
        return float((b ** 2).sum())
    # the r largest get z = 1, the rest z_i = beta_i / nu with nu = rest_sum / (k0 - r)
    for r in range(k0):
        rest = b[r:].sum()
        nu = rest / (k0 - r)
        if (r == 0 or b[r - 1] >= nu) and b[r] <= nu + 1e-15:
            return float((b[:r] ** 2).sum() + nu * rest)
    return float((b ** 2).sum())
