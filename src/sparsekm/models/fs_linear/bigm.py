"""BigMP (6) of paper D and the choice of its big-M (Remark 3.2)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from sparsekm.registry import QUADRATIC, Export, exportable, register
from sparsekm.solvers import ProblemClass, declare_class

from ..record import stamp
from ..svm import margin_block, svm_objective
from .problem import FSLinearProblem

__all__ = ["bigm_model", "estimate_big_m", "label_big_m", "link_bound", "svm_weights"]


def _export(problem: FSLinearProblem, options: dict[str, Any]) -> Any:
    """BigMP (6) for ``sparsekm export``: the given M, or the valid sqrt(2 UB) (written back
    into ``options`` for the sidecar)."""
    M = options.get("M")
    options["M"] = estimate_big_m(problem) if M is None else float(M)
    return bigm_model(problem, options["M"])


@register("fs-linear", "formulation", "bigm", paper="D", ref="eq. (6)", problem_class="MIQP")
@exportable(Export("bigm", _export, QUADRATIC))
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
    whole = len(Kl) == p.n
    stamp(mdl, "fs-linear", "bigm", ref="paper D, eq. (6)", role="exact" if whole else
          "restriction", note="" if whole else f"BigMP on {len(Kl)} of {p.n} features")
    return declare_class(mdl, ProblemClass.MIQP)


def estimate_big_m(problem: FSLinearProblem, ub: float | None = None, method: str = "norm"
                   ) -> float:
    """A big-M value M for BigMP (6) / SCoMP (12) / SR-DLMP (21) (Remark 3.2).

    ``method="norm"``: M = sqrt(2 UB) (always valid: 1/2 w_j^2 <= 1/2||w||^2 <= UB for every
    point with objective <= UB, in particular any optimum); UB defaults to the objective of
    the SVM restricted to the B features of largest |w_j| in the plain SVM (1).
    ``method="svm"``: M = ||w*||_inf of (1), the common heuristic choice (NOT guaranteed valid).
    Proposition 4.1's tighter valid M: :func:`sparsekm.relaxations.fs_linear.bigm_tightening`.
    The SVMs are solved by the native interior point (:func:`svm_weights`).
    """
    p = problem
    if method not in ("norm", "svm"):
        raise ValueError(f"method={method!r}: use 'norm' (valid) or 'svm' (heuristic)")
    if method == "norm" and ub is not None:  # any feasible point's value: no SVM to solve
        return float(math.sqrt(2.0 * ub))
    w_svm = _svm(p, None)[0]
    if method == "svm":
        return float(max(np.abs(w_svm).max(), 1e-6))
    if ub is None:
        top = np.argsort(-np.abs(w_svm), kind="stable")[:p.B]
        ub = _svm(p, top)[1]
    return float(math.sqrt(2.0 * ub))


def link_bound(problem: FSLinearProblem, K: Iterable[int] | None = None,
               ub: float | None = None) -> float:
    """A valid M for |w_j| <= M on the models restricted to K (Remark 3.2): sqrt(2 UB) with
    UB = ``ub`` when given (only points better than it matter, as under the objective cut
    (17)), else the value of a feasible support inside K: the SVM (1) on the min(B, |K|)
    features of K most correlated with the labels (largest |X_j'y|, the gradient of the loss
    at w = 0). One SVM on B columns: on colorectal (62 x 2000) the full SVM of
    :func:`estimate_big_m` took 52 s, this one milliseconds."""
    if ub is not None and math.isfinite(ub):
        return float(math.sqrt(2.0 * max(ub, 0.0)))
    Kl = np.asarray(problem.subset(K))
    score = np.abs(problem.X[:, Kl].T @ problem.y)
    top = Kl[np.argsort(-score, kind="stable")[:min(problem.B, Kl.size)]]
    return float(math.sqrt(2.0 * _svm(problem, np.sort(top))[1]))


def label_big_m(problem: FSLinearProblem, M: float | None, res: Any,
                ub: float | None = None) -> Any:
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
    proven = estimate_big_m(problem, ub=ub)
    res.extra["M_proven_valid_from"] = proven
    if proven <= M:
        return res
    res.extra["bound_under_M"] = res.bound
    return res.withhold(
        f"M = {M:g} is below sqrt(2 UB) = {proven:.6g}, the smallest big-M proven valid "
        f"(Remark 3.2): the bound {res.bound:.10g} (bound_under_M) holds for (2) restricted to "
        "|w_j| <= M only, not for (2); give no M (the valid default) or one >= "
        f"{proven:.6g}")


def svm_weights(problem: FSLinearProblem) -> np.ndarray:
    """w of the plain SVM (1) on every feature (the native interior-point method)."""
    return _svm(problem, None)[0]


def _svm(p: FSLinearProblem, features: np.ndarray | None) -> tuple[np.ndarray, float]:
    """(w, objective of (w, b)) of the SVM (1) on ``features`` by the native interior-point
    method (madelon, 2000 x 500: 1.9 s against Clarabel's 9 s). The objective is recomputed
    from (w, b), so it is a feasible point's value whatever the engine's accuracy."""
    from sparsekm.engines.linear_svm import solve_linear_svm

    F = np.arange(p.n) if features is None else np.asarray(features, dtype=int)
    fit = solve_linear_svm(p.X[:, F], p.y, p.C)
    w = np.zeros(p.n)
    w[F] = fit.w
    return w, float(svm_objective(p.X, p.y, p.C, w, fit.b))
