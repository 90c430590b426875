"""What paper D's relaxations share: the margin block Xi (3), the budget row, the big-M, and
solving a built relaxation into a :class:`~sparsekm.solvers.Result` with a certified bound."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sparsekm.models.fs_linear import FSLinearProblem, estimate_big_m
from sparsekm.solvers import Result, SolverPlan, Termination, solve

__all__ = ["Relaxed", "budget", "by_conic", "need_big_m", "relaxed_export", "solve_relaxed",
           "xi_block"]


@dataclass
class Relaxed:
    """A built relaxation: its CVXPY problem and the expressions a caller reads back.

    ``u`` (CoP family, relaxed zero-indicators) or ``v = 1 - u`` (BigMP family, relaxed
    selection); ``W`` the diagonal of the lifted W. ``certify(alpha)`` (optional) turns the
    margin constraints' multipliers into a bound valid for any feasible alpha.
    """

    problem: Any
    name: str
    w: Any
    b: Any
    objective: Any
    u: Any = None
    v: Any = None
    W: Any = None
    margins: Any = None
    M: float | None = None
    certify: Callable[[np.ndarray], float] | None = field(default=None, repr=False)


def xi_block(problem: FSLinearProblem) -> tuple[Any, Any, Any, Any, list[Any]]:
    """w, b, xi, C sum xi and the constraints Xi (3) of paper D, in CVXPY."""
    import cvxpy as cp

    p = problem
    w, b, xi = cp.Variable(p.n, name="w"), cp.Variable(name="b"), cp.Variable(p.m, name="xi")
    cons = [cp.multiply(p.y, p.X @ w + b) >= 1 - xi, xi >= 0]     # Xi (3); cons[0]: margins
    return w, b, xi, p.C * cp.sum(xi), cons


def budget(problem: FSLinearProblem, expr: Any, rhs: float, sense: str) -> Any:
    """The budget row: ``expr == rhs`` (cardinality "eq") or ``<=``/``>=`` (sense)."""
    if problem.cardinality == "eq":
        return expr == rhs
    return expr <= rhs if sense == "le" else expr >= rhs


def need_big_m(problem: FSLinearProblem, M: float | None) -> float:
    """M as given (its range is declared: :data:`~sparsekm.models.fs_linear.specs.BIG_M`) or
    the always-valid sqrt(2 UB) of Remark 3.2."""
    return estimate_big_m(problem) if M is None else float(M)


def relaxed_export(build: Callable[..., Relaxed], big_m: bool = False, conic: bool = False
                   ) -> Callable[[FSLinearProblem, dict[str, Any]], Any]:
    """The builder ``sparsekm export`` calls for a relaxation: ``build(problem, M=, conic=)``'s
    CVXPY problem, with the export's ``M`` (none: the valid sqrt(2 UB), written back into
    the options for the sidecar) and ``conic`` when the relaxation takes them."""

    def export(problem: FSLinearProblem, options: dict[str, Any]) -> Any:
        kwargs: dict[str, Any] = {}
        if big_m:
            options["M"] = kwargs["M"] = need_big_m(problem, options.get("M"))
        if conic:
            kwargs["conic"] = options.get("conic", "soc")
        return build(problem, **kwargs).problem

    return export


def by_conic(options: dict[str, Any]) -> tuple[str, ...]:
    """The formats of a relaxation written with ``--conic sdp`` (PSD blocks: CBF only) or
    soc (cones as quadratic rows too)."""
    from sparsekm.registry import CONIC_PSD, CONIC_SOC

    return CONIC_PSD if options.get("conic") == "sdp" else CONIC_SOC


def _values(x: Any) -> np.ndarray | None:
    if x is None or x.value is None:
        return None
    return np.asarray(x.value, dtype=float).ravel()


def solve_relaxed(problem: FSLinearProblem, rel: Relaxed, plan: SolverPlan, ref: str) -> Result:
    """Solve ``rel`` with the plan's relaxation solver; read back w, b, u, v, W.

    ``objective`` is the relaxation's value and ``bound`` its certified value: the solver's
    dual bound (the primal value of a first-order solver is not one) and, when the relaxation
    has a closed-form certificate, its value at the solver's multipliers; the best of the two
    (None without either: the message then names the solvers that certify). A time-limited or
    inaccurate solve gives only the closed-form certificate.
    """
    res = solve(rel.problem, solver=plan.relax_solver, time_limit=plan.clock.cap(None))
    # no relaxation value from a solve stopped by the clock: HiGHS stopped on BoxMP
    # (madelon) reported 0.0, no feasible point's value, and with the certificate 0 the
    # result read "optimal"; the solver's number stays in extra. An inaccurate finish
    # (iteration_limit) keeps its point's value: Clarabel on arrhythmia, within 5e-8 of
    # the certified bound
    stopped = res.termination is Termination.TIME_LIMIT
    out = Result(objective=None if stopped else res.objective,
                 termination=res.termination, time_s=res.time_s, solver=res.solver,
                 version=res.version, method=rel.name, problem="fs-linear",
                 problem_class=res.problem_class, message=res.message,
                 extra={"equation": ref, "M": rel.M, "solver_bound": res.bound,
                        "solver_objective": res.objective})
    bounds = [res.bound] if res.bound is not None else []
    if res.has_solution:
        u = _values(rel.u)
        v = _values(rel.v)
        u = np.clip(1.0 - v if u is None else u, 0.0, 1.0)
        out.values = {"w": _values(rel.w), "b": float(rel.b.value), "u": u, "v": 1.0 - u,
                      "W": _values(rel.W)}
        if rel.certify is not None and rel.margins is not None and \
                rel.margins.dual_value is not None:
            out.extra["dual_certificate"] = rel.certify(np.asarray(rel.margins.dual_value))
            bounds.append(out.extra["dual_certificate"])
    if bounds:  # the solver's certified bound and/or a closed-form certificate (a proof)
        out.certify(float(max(bounds)))
        if res.bound is None:
            out.message = (f"{res.solver}'s value is not a certified bound; the bound is "
                           "certified at its multipliers by the closed-form dual")
    elif res.has_solution and rel.certify is None:
        out.message = (f"{rel.name} has no closed-form dual to certify the solver's "
                       f"multipliers: {res.message}")
    return out
