"""SR-DSCoP(K) (20) of paper D, written as the MISOCP SR-DLMP(K) (21)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sparsekm.registry import QUADRATIC, Export, exportable, register
from sparsekm.solvers import ProblemClass, declare_class

from ..record import stamp
from ..svm import margin_block
from .problem import FSLinearProblem

__all__ = ["SR_FORMS", "sr_dlmp_model"]

SR_FORMS = ("paper", "perspective")


def _export(problem: FSLinearProblem, options: dict[str, Any]) -> Any:
    return sr_dlmp_model(problem, options.get("K") or [], M=options.get("M"))


@register("fs-linear", "formulation", "sr-dlmp", paper="D", ref="eq. (21) (of (20))",
          problem_class="MISOCP")
@exportable(Export("sr-dlmp", _export, QUADRATIC,
                   note="binary u_j for j in --K (none: the SOCP DSCoP (13))"))
def sr_dlmp_model(problem: FSLinearProblem, K: Iterable[int], M: float | None = None,
                  form: str = "perspective") -> Any:
    """Pyomo MISOCP SR-DLMP(K) (21) of paper D (the semi-relaxation SR-DSCoP(K) (20)).

    min 1/2 sum_j W_jj + C sum xi over Xi (3), e'u = n - B, u_j binary for j in K and
    u_j in [0,1] otherwise; for j not in K the 3x3 PSD block of (13) in its SOC form (Lemma 4.3):
    w_j^2 <= W_jj s_j, s_j = 1 - u_j (a rotated cone, same set as ||(W-s, 2w)|| <= W + s).

    For j in K, ``form="paper"`` uses (21) literally: -M(1-u_j) <= w_j <= M(1-u_j) and
    w_j^2 <= W_jj (needs a valid ``M``, see Proposition 4.1); ``form="perspective"`` uses the
    same rotated cone as outside K (u_j = 1 forces w_j = 0), needing no M; if ``M`` is also
    given, the big-M rows are added as valid cuts. Both give a lower bound on (2).
    """
    import pyomo.environ as pyo

    if form not in SR_FORMS:
        raise ValueError(f"form={form!r}: use one of {SR_FORMS}")
    p = problem
    n = p.n
    Kset = set(p.subset(K)) if K is not None and len(list(K)) else set()
    if form == "paper" and Kset and M is None:
        raise ValueError("form='paper' needs the big-M value M (estimate it with "
                         "estimate_big_m or use form='perspective')")
    mdl = pyo.ConcreteModel(name="SR-DLMP(K) (21)")
    margin_block(mdl, p.X, p.y, range(n))
    mdl.Kb = pyo.Set(initialize=sorted(Kset), ordered=True)
    mdl.u = pyo.Var(mdl.K, bounds=(0, 1), domain=pyo.Reals)
    for j in Kset:
        mdl.u[j].domain = pyo.Binary
    mdl.W = pyo.Var(mdl.K, within=pyo.NonNegativeReals)
    mdl.s = pyo.Var(mdl.K, bounds=(0, 1))
    mdl.s_def = pyo.Constraint(mdl.K, rule=lambda md, j: md.s[j] + md.u[j] == 1)
    card = pyo.quicksum(mdl.u[j] for j in mdl.K)
    mdl.card = pyo.Constraint(expr=(card == n - p.B) if p.cardinality == "eq"
                              else (card >= n - p.B))

    def cone(md: Any, j: int) -> Any:
        if form == "paper" and j in Kset:
            return md.w[j] ** 2 <= md.W[j]
        return md.w[j] ** 2 <= md.W[j] * md.s[j]

    mdl.cone = pyo.Constraint(mdl.K, rule=cone)
    if M is not None and Kset:
        mdl.bigm_hi = pyo.Constraint(mdl.Kb, rule=lambda md, j: md.w[j] <= M * md.s[j])
        mdl.bigm_lo = pyo.Constraint(mdl.Kb, rule=lambda md, j: -M * md.s[j] <= md.w[j])
    mdl.obj = pyo.Objective(expr=0.5 * pyo.quicksum(mdl.W[j] for j in mdl.K)
                            + p.C * pyo.quicksum(mdl.xi[i] for i in mdl.I))
    declare_class(mdl, ProblemClass.MISOCP if Kset else ProblemClass.SOCP)
    mdl.fs_data = {"name": "sr_dlmp", "K": list(range(n)), "form": form, "M": M,
                   "Kbin": sorted(Kset), "selector": None}
    exact = len(Kset) == n
    return stamp(mdl, "fs-linear", "sr-dlmp", ref="paper D, eq. (21)",
                 role="exact" if exact else "relaxation", form=form,
                 note=f"u binary on {len(Kset)} of {n} features")
