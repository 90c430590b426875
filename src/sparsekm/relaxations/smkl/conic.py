"""The convex relaxations (14)-(18) of paper B's MISDP (13), solved through the solver layer.

Every relaxation returns a :class:`~sparsekm.solvers.Result` with ``objective`` = the
relaxation's optimal value as the solver reports it and ``bound`` = that same relaxation's
certified value (never above ``objective`` beyond round-off). For (14) and its equal forms
(``sdp-full``, ``soc-diag`` under Theorem 6, ``sdp-full-cp``) the certificate is (14)'s dual
function: weak duality of the min-max (4) at the relaxation's margin multipliers alpha (made
exactly feasible), min over the k0-sparse simplex solved exactly by GSSP
(``lagrangian_bound``), valid whatever the solver's accuracy (SCS's primal value, for one, is
not a bound). The weaker (16)-(18) are certified by the solver's own duality gap (an
interior-point solver; none from SCS); for them the Lagrangian bound at their alpha, a valid
bound on (4) by another argument that may exceed their value, is reported apart as
``extra["lagrangian_bound"]``. Values: ``beta``, ``z`` (warm starts: the k0 largest
weights), ``alpha``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from sparsekm.declare import Annotated, Spec
from sparsekm.models.smkl.misdp import conic_export, conic_model
from sparsekm.models.smkl.problem import SMKLProblem
from sparsekm.models.smkl.subproblems import feasible_alpha, lagrangian_bound
from sparsekm.registry import CONIC_PSD, CONIC_SOC, Export, exportable, register
from sparsekm.solvers import Result, SolverPlan, Termination
from sparsekm.specs import SEED

__all__ = ["SolverReport", "relaxation_result", "solve_conic"]

# Largest model each solver takes in reasonable time/memory (measured on 2 cores, 24 GB):
# the PSD block is (m+1) x (m+1); Clarabel's dense PSD cone is slow (m = 60: 20 s).
PSD_LIMITS = {"clarabel": 80, "scs": 600}


def _solver_for(plan: SolverPlan, cone: str, m: int) -> str:
    solver = (plan.relax_solver or plan.solver or "").lower() or None
    if cone != "psd":
        return solver or "clarabel"
    if solver is None:
        solver = "clarabel" if m <= 40 else "scs"
    limit = PSD_LIMITS.get(solver)
    if limit is not None and m > limit:
        able = [s for s, lim in PSD_LIMITS.items() if m <= lim]
        raise ValueError(
            f"relaxation (14) has a {m + 1} x {m + 1} PSD block ({m} training rows), too large "
            f"for {solver} (up to m = {limit}); "
            + (f"use --solver {able[0]}, " if able else "")
            + "or the cutting-plane form sdp-full-cp, which solves (14) with SVM solves only")
    return solver


# Relaxations whose value is (14)'s: the Lagrangian bound at their alpha is their certificate.
DUAL_OF_14 = ("sdp-full", "soc-diag", "sdp-full-cp")


@dataclass(frozen=True)
class SolverReport:
    """What solving a relaxation (14)-(18) reported: its value (``objective``), the solver's
    name, why it stopped, and the solver's own certified ``bound`` (an interior-point duality
    gap; None from a first-order solver)."""

    objective: float | None
    solver: str = ""
    termination: Termination = Termination.CONVERGED
    bound: float | None = None


def relaxation_result(problem: SMKLProblem, alpha: np.ndarray | None, *, reported: SolverReport,
                      point: tuple[np.ndarray | None, np.ndarray | None], method: str,
                      t0: float, **extra: Any) -> Result:
    """A relaxation's Result (``point = (beta, z)``): ``bound`` its own certified value (see
    the module docstring): the Lagrangian bound at ``alpha`` for (14) and its equal forms, else
    ``reported.bound`` with the Lagrangian bound in ``extra``."""
    beta, z = point
    lagrangian = None
    if alpha is not None:
        a = feasible_alpha(alpha, problem.y, problem.C)
        d = problem.dictionary.quad_forms(a * problem.y)
        lagrangian = float(lagrangian_bound(d, float(a.sum()), problem.lam, problem.k0)[0])
    own = lagrangian if method in DUAL_OF_14 else reported.bound
    value, message = reported.objective, None
    if method not in DUAL_OF_14:
        extra["lagrangian_bound"] = lagrangian
        bad = problem.dictionary.indefinite()
        if bad and own is not None:   # (13)'s PSD block represents (4) only for PSD kernels
            own, message = None, (f"{bad[0]}: MISDP (13) and its relaxations (16)-(18) "
                                  "represent (4) only for PSD kernels, so this relaxation "
                                  "certifies no bound (the Lagrangian bound in "
                                  "lagrangian_bound holds whatever the kernels)")
    if reported.termination is Termination.TIME_LIMIT:   # stopped by the clock: not the
        extra["solver_objective"], value = value, None    # relaxation's value (see fs-linear)
    elif reported.bound is None and own is not None and value is not None and own > value:
        # a first-order solver's value below a certificate valid at any alpha: the value is
        # the inaccurate one (SCS on (14), ionosphere), so the bound is kept and it is dropped
        message = (f"{reported.solver}'s value {value:.10g} lies below the certified bound "
                   f"{own:.10g}: its solution is inaccurate, so only the bound is reported")
        value = None
    res = Result(objective=value, termination=reported.termination,
                 time_s=time.perf_counter() - t0, solver=reported.solver,
                 method=method, problem="smkl", message=message or "",
                 values={"beta": beta, "z": z, "alpha": alpha}, extra=extra)
    res.certify(own)
    if beta is not None:
        res.selected = [int(i) for i in np.argsort(-beta, kind="stable")[:problem.k0]]
    return res


def solve_conic(problem: SMKLProblem, plan: SolverPlan, cone: str, method: str,
                **model_options: Any) -> Result:
    """Build the relaxation with ``cone``, solve it through the solver layer, certify it."""
    from sparsekm.solvers import solve

    t0 = time.perf_counter()
    solver = _solver_for(plan, cone, problem.m)
    prob, h = conic_model(problem, integer=False, cone=cone, **model_options)
    plan = plan.start()
    res = solve(prob, solver=solver, time_limit=plan.clock.cap(plan.subproblem_time_limit),
                verbose=plan.verbose)
    alpha = h["margin"].dual_value
    beta = h["beta"].value
    return relaxation_result(
        problem, None if alpha is None else np.asarray(alpha, dtype=float),
        reported=SolverReport(res.objective, res.solver, res.termination, res.bound),
        point=(None if beta is None else np.asarray(beta, dtype=float),
               None if h["z"].value is None else np.asarray(h["z"].value, dtype=float)),
        method=method, t0=t0, solver_status=res.message)


@register("smkl", "relaxation", "sdp-full", paper="B", ref="eq. (14)", problem_class="SDP")
@exportable(Export("sdp-full", conic_export("psd"), CONIC_PSD))
def sdp_full(problem: SMKLProblem, plan: SolverPlan | None = None) -> Result:
    """Full SDP relaxation (14): z in [0, 1]^q, the (m+1) x (m+1) PSD block."""
    return solve_conic(problem, plan or SolverPlan(), "psd", "sdp-full")


@register("smkl", "relaxation", "soc-diag", paper="B", ref="eq. (15)", problem_class="SOCP")
@exportable(Export("soc-diag", conic_export("diag"), CONIC_SOC))
def soc_diag(problem: SMKLProblem, plan: SolverPlan | None = None) -> Result:
    """SOC form (15) of (14) for simultaneously diagonalizable kernels (Theorem 6)."""
    return solve_conic(problem, plan or SolverPlan(), "diag", "soc-diag")


@register("smkl", "relaxation", "soc-basis", paper="B", ref="eq. (16)", problem_class="SOCP")
@exportable(Export("soc-basis", conic_export("soc-basis"), CONIC_SOC))
def soc_basis(problem: SMKLProblem, plan: SolverPlan | None = None) -> Result:
    """SOC relaxation (16): the 2x2 minors of the PSD block through its first row."""
    return solve_conic(problem, plan or SolverPlan(), "soc-basis", "soc-basis")


@register("smkl", "relaxation", "soc-random", paper="B", ref="eq. (17)", problem_class="SOCP")
@exportable(Export("soc-random", conic_export("soc-random"), CONIC_SOC))
def soc_random(problem: SMKLProblem, plan: SolverPlan | None = None, *,
               n_vectors: Annotated[int, Spec("Random unit vectors x of (17), each adding "
                                              "theta x'K(beta)x >= (x'gamma)^2 to (16).",
                                              ge=1)] = 100,
               seed: Annotated[int, SEED] = 0) -> Result:
    """SOC relaxation (17): (16) plus theta x'K(beta)x >= (x'gamma)^2 for random unit x."""
    return solve_conic(problem, plan or SolverPlan(), "soc-random", "soc-random",
                       n_vectors=n_vectors, seed=seed)
