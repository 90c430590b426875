"""BigMP (6) of paper D and the choice of its big-M (Remark 3.2)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from sparsekm.registry import register
from sparsekm.solvers import ProblemClass, declare_class

from ..svm import margin_block, solve_svm, svm_objective
from .problem import FSLinearProblem

__all__ = ["bigm_model", "estimate_big_m", "label_big_m", "svm_weights"]


@register("fs-linear", "formulation", "bigm", paper="D", ref="eq. (6)", problem_class="MIQP")
def bigm_model(problem: FSLinearProblem, M: float, K: Iterable[int] | None = None) -> Any:
    """Pyomo MIQP BigMP (6): min 1/2||w||^2 + C sum xi over Xi (3) and Omega_M (4).

    -M v_j <= w_j <= M v_j, e'v = B (``cardinality="eq"``) or <= B (``"le"``, Remark 2.1),
    v in {0,1}^n. ``K`` restricts the model to a feature subset (w_j = 0 outside K; the budget
    becomes min(B, |K|)). ``M`` must be >= the largest |w_j| of an optimum (see (9)).
    """
    import pyomo.environ as pyo

    if not (M > 0 and math.isfinite(M)):
        raise ValueError(f"big-M M={M} must be a finite number > 0 (or estimate it)")
    p = problem
    Kl = p.subset(K)
    Beff = min(p.B, len(Kl))
    mdl = pyo.ConcreteModel(name="BigMP (6)")
    margin_block(mdl, p.X, p.y, Kl)
    mdl.v = pyo.Var(mdl.K, within=pyo.Binary)
    mdl.bigm_hi = pyo.Constraint(mdl.K, rule=lambda md, j: md.w[j] <= M * md.v[j])
    mdl.bigm_lo = pyo.Constraint(mdl.K, rule=lambda md, j: -M * md.v[j] <= md.w[j])
    card = pyo.quicksum(mdl.v[j] for j in mdl.K)
    mdl.card = pyo.Constraint(expr=(card == Beff) if p.cardinality == "eq" else (card <= Beff))
    mdl.obj = pyo.Objective(expr=0.5 * pyo.quicksum(mdl.w[j] ** 2 for j in mdl.K)
                            + p.C * pyo.quicksum(mdl.xi[i] for i in mdl.I))
    mdl.fs_data = {"name": "bigm", "K": Kl, "M": M, "selector": "v"}
    return declare_class(mdl, ProblemClass.MIQP)


def estimate_big_m(problem: FSLinearProblem, ub: float | None = None, method: str = "norm",
                   qp_solver: str | None = None) -> float:
    """A big-M value M for BigMP (6) / SCoMP (12) / SR-DLMP (21) (Remark 3.2).

    ``method="norm"``: M = sqrt(2 UB) (always valid: 1/2 w_j^2 <= 1/2||w||^2 <= UB for every
    point with objective <= UB, in particular any optimum); UB defaults to the objective of
    the SVM restricted to the B features of largest |w_j| in the plain SVM (1).
    ``method="svm"``: M = ||w*||_inf of (1), the common heuristic choice (NOT guaranteed valid).
    Proposition 4.1's tighter valid M: :func:`sparsekm.relaxations.fs_linear.bigm_tightening`.
    """
    p = problem
    if method not in ("norm", "svm"):
        raise ValueError(f"method={method!r}: use 'norm' (valid) or 'svm' (heuristic)")
    if method == "norm" and ub is not None:  # any feasible point's value: no SVM to solve
        return float(math.sqrt(2.0 * ub))
    w_svm = _svm(p, None, qp_solver)[0]
    if method == "svm":
        return float(max(np.abs(w_svm).max(), 1e-6))
    if ub is None:
        top = np.argsort(-np.abs(w_svm), kind="stable")[:p.B]
        ub = _svm(p, top, qp_solver)[1]
    return float(math.sqrt(2.0 * ub))


def label_big_m(problem: FSLinearProblem, M: float | None, res: Any,
                ub: float | None = None, qp_solver: str | None = None) -> Any:
    """``res`` (a :class:`~sparsekm.solvers.Result` computed with the big-M rows at a given
    ``M``) with its bound kept only when M is proven valid for (2).

    A big-M below ``||w*||_inf`` cuts every optimum of (2) off: the bound is then one on (2)
    restricted to ``|w_j| <= M`` (``relax box --M 0.01`` on wholesale gave 2797.33 where the
    optimum is 968.56). ``M`` is proven valid when ``M >= sqrt(2 UB)`` (Remark 3.2; UB the
    value of a feasible point: ``ub`` when the caller has one, else the top-B SVM's, the
    default M). Otherwise the bound moves to ``extra["bound_under_M"]``, the result holds no
    bound on (2) and its message says why. ``M = None`` (the default, valid) changes nothing.
    """
    if M is None or res.bound is None:
        return res
    proven = estimate_big_m(problem, ub=ub, qp_solver=qp_solver)
    res.extra["M_proven_valid_from"] = proven
    if proven <= M:
        return res
    res.extra["bound_under_M"] = res.bound
    return res.withhold(
        f"M = {M:g} is below sqrt(2 UB) = {proven:.6g}, the smallest big-M proven valid "
        f"(Remark 3.2): the bound {res.bound:.10g} (bound_under_M) holds for (2) restricted to "
        "|w_j| <= M only, not for (2); give no M (the valid default) or one >= "
        f"{proven:.6g}")


def svm_weights(problem: FSLinearProblem, qp_solver: str | None = None) -> np.ndarray:
    """w of the plain SVM (1) on every feature (native interior-point method by default)."""
    return _svm(problem, None, qp_solver)[0]


def _svm(p: FSLinearProblem, features: np.ndarray | None, qp_solver: str | None
         ) -> tuple[np.ndarray, float]:
    """(w, objective of (w, b)) of the SVM (1) on ``features``: the native interior-point
    method by default (madelon, 2000 x 500: 1.9 s against Clarabel's 9 s), else ``qp_solver``
    through the solver layer. The objective is recomputed from (w, b), so it is a feasible
    point's value whatever the solver's accuracy."""
    if qp_solver is not None:
        w, _, obj = solve_svm(p.X, p.y, p.C, features=features, solver=qp_solver)
        return w, obj
    from sparsekm.engines.linear_svm import solve_linear_svm

    F = np.arange(p.n) if features is None else np.asarray(features, dtype=int)
    fit = solve_linear_svm(p.X[:, F], p.y, p.C)
    w = np.zeros(p.n)
    w[F] = fit.w
    return w, float(svm_objective(p.X, p.y, p.C, w, fit.b))
