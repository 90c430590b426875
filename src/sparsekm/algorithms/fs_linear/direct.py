"""The MIQPs of paper D solved directly: BigMP (6) and CoP (7), warm-started as CoP* (Table 5)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from sparsekm.declare import Annotated, Spec
from sparsekm.models.fs_linear import (
    FSLinearProblem,
    bigm_model,
    cop_model,
    estimate_big_m,
    label_big_m,
)
from sparsekm.models.fs_linear.specs import BIG_M
from sparsekm.registry import Part, register, uses_solvers
from sparsekm.solvers import Result, SolveFailedError, SolverPlan
from sparsekm.solvers.result import Termination

from ..formulation import solve_formulation
from .specs import COP_FORM, SVM_QP, cop_classes

WARM_STARTS = ("kernel-search", "local-search", "heuristic", "fast")
WARM = Spec("Heuristic whose incumbent starts the MIQP: fast (the native swap search, about "
            "a second), kernel-search (paper D's H-KS: CoP* / BigMP* of Table 5), "
            "local-search, heuristic, or none.", choices=(*WARM_STARTS, "none"))
# Seconds per nonzero of the margin constraints to hand a Pyomo model to the solver (measured:
# 35-50 us for SCIP's Pyomo interface on colorectal / lymphoma, machine under load): the
# solver's own time limit starts only after this, so the budget must leave room for it.
LOAD_S_PER_NNZ = 50e-6


def _incumbent(problem: FSLinearProblem, plan: SolverPlan, how: str) -> Result:
    """The heuristic incumbent (paper D's CoP* uses H-KS; ``fast`` takes about a second and
    leaves the rest to the MIQP), on at most half the remaining budget."""
    from sparsekm import registry

    sub = replace(plan, deadline=plan.clock.part(share=0.5))
    return registry.get("fs-linear", "method", how).func(problem, sub)


def _set_start(model: Any, problem: FSLinearProblem, start: Result) -> None:
    """Load a point of (2) into a BigMP / CoP model as the solver's starting incumbent."""
    w, b = start.values["w"], float(start.values["b"])
    model.b.set_value(b)
    xi = np.maximum(0.0, 1.0 - problem.y * (problem.X @ w + b))
    for i in model.I:
        model.xi[i].set_value(float(xi[i]))
    sel = set(start.selected)
    for j in model.K:
        model.w[j].set_value(float(w[j]))
        if hasattr(model, "v"):
            model.v[j].set_value(1.0 if j in sel else 0.0)
        if hasattr(model, "u"):
            model.u[j].set_value(0.0 if j in sel else 1.0)
        if hasattr(model, "W"):
            model.W[j].set_value(float(w[j]) ** 2)
            model.s[j].set_value(1.0 if j in sel else 0.0)


def _solve_miqp(problem: FSLinearProblem, plan: SolverPlan,
                build: Callable[[Result | None], Any], method: str, warm: str) -> Result:
    """Warm start, then the MIQP ``build(start)`` on what remains of ``plan``'s clock
    (started by the caller). The model is built only when the time left can hold its loading
    (about LOAD_S_PER_NNZ per margin nonzero, before the solver's own clock starts); otherwise
    the warm start is the answer."""
    start = None
    if plan.warm_start and warm != "none":
        start = _incumbent(problem, plan, warm)
    load = LOAD_S_PER_NNZ * problem.m * problem.n
    if start is not None and plan.clock.remaining() < load + 1.0:
        return _heuristic_only(start, method, plan, load)
    model = build(start)
    if start is not None:
        _set_start(model, problem, start)
    res = solve_formulation(problem, model, plan, time_limit=plan.clock.cap(None) and max(
        plan.clock.cap(None) - load, 0.5))
    if start is not None and (not res.has_solution or start.objective < res.objective):
        res.objective, res.values, res.selected = start.objective, start.values, start.selected
        res.extra["incumbent_from"] = warm
    if start is not None and start.bound is not None:  # the heuristic's DSCoP bound
        res.certify(start.bound)   # the stronger of it and the solver's bound is kept
    if not res.has_solution:
        raise SolveFailedError(f"{method}: no feasible point found (status {res.status.value}: "
                               f"{res.message}); raise the time limit or use kernel-search")
    res.method, res.time_s = method, plan.clock.elapsed()
    res.extra["warm_start"] = None if start is None else {"method": warm,
                                                          "objective": start.objective}
    return res


def _heuristic_only(start: Result, method: str, plan: SolverPlan, load: float) -> Result:
    """No time left to load and solve the MIQP: the warm start is the answer."""
    res = Result(objective=start.objective, values=start.values, selected=start.selected,
                 termination=Termination.TIME_LIMIT, method=method,
                 problem="fs-linear", time_s=plan.clock.elapsed(),
                 message=f"the time limit leaves no room for the MIQP (loading it alone takes "
                         f"about {load:.0f} s): the warm start's point; raise --time-limit")
    if start.bound is not None:
        res.certify(start.bound)
    res.extra["warm_start"] = {"method": start.method, "objective": start.objective}
    return res


@register("fs-linear", "method", "bigm", paper="D", ref="eq. (6); warm start: Table 5")
@uses_solvers(miqp=Part("BigMP (6)", ("solver",), classes=("MIQP",)), svm=SVM_QP)
def bigm(problem: FSLinearProblem, plan: SolverPlan, *,
         M: Annotated[float | None, BIG_M] = None,
         warm: Annotated[str, WARM] = "fast") -> Result:
    """BigMP (6) by the plan's MIQP solver, started from a heuristic incumbent (``warm``).

    M defaults to sqrt(2 UB) (always valid, Remark 3.2) with UB the warm start's objective
    (no SVM solve), or without a warm start a top-B SVM's. The solver's bound is certified;
    the returned point is the better of the solver's and the heuristic's.
    ``warm="fast"`` (default) starts from the native swap search (about a second, leaving the
    MIQP the rest of the budget; its objective was at or below Kernel Search's after 60 s on
    all 18 set/B instances of ``benchmarks/results/fs_linear_fast.md``); ``"kernel-search"``
    is paper D's H-KS (Table 5's BigMP*, as the paper configs run it).
    """
    plan = plan.start()
    chosen: dict[str, float] = {}

    def build(start: Result | None) -> Any:
        ub = None if start is None else start.objective  # any feasible UB gives a valid M
        chosen["M"] = M if M is not None else estimate_big_m(problem, ub=ub)
        return bigm_model(problem, chosen["M"])

    res = _solve_miqp(problem, plan, build, "bigm", warm)
    res.extra["M"] = chosen.get("M")
    return label_big_m(problem, M, res, ub=res.objective)   # a given M: proven valid?


@register("fs-linear", "method", "cop", paper="D", ref="eq. (7); CoP* of Table 5")
@uses_solvers(miqp=Part("CoP (7)", ("solver",), classes=cop_classes), svm=SVM_QP)
def cop(problem: FSLinearProblem, plan: SolverPlan, *,
        cop_form: Annotated[str, COP_FORM] = "bilinear",
        warm: Annotated[str, WARM] = "fast") -> Result:
    """CoP (7) by the plan's solver, started from a heuristic incumbent (paper D's CoP*).

    ``cop_form="perspective"`` solves the same set as a MISOCP (see
    :func:`~sparsekm.models.fs_linear.cop_model`). Without warm start (``plan.warm_start``
    False, CLI ``--no-warm-start``) it reproduces the cold runs of Table 3. The warm start is
    the native swap search ``fast`` by default (its objective was at or below Kernel Search's
    after 60 s on all 18 set/B instances of ``benchmarks/results/fs_linear_fast.md``, in
    about a second); ``warm="kernel-search"`` is paper D's CoP* of Table 5 (H-KS), as the
    paper configs run it.
    """
    plan = plan.start()
    def build(start: Result | None) -> Any:   # the links' UB: the warm start's value, if any
        return cop_model(problem, form=cop_form, ub=None if start is None else start.objective)

    return _solve_miqp(problem, plan, build, "cop", warm)
