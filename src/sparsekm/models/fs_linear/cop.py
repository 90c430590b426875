"""CoP (7) of paper D, and its restriction CoP(K) (16) to a feature subset K."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sparsekm.registry import QUADRATIC, Export, exportable, register
from sparsekm.solvers import ProblemClass, declare_class

from ..record import stamp
from ..svm import margin_block
from .bigm import link_bound
from .problem import FSLinearProblem

__all__ = ["COP_FORMS", "cop_model"]

COP_FORMS = ("bilinear", "perspective")


def _export(form: str) -> Any:
    def build(problem: FSLinearProblem, options: dict[str, Any]) -> Any:
        model = cop_model(problem, form, K=options.get("K"))
        options["M_links"] = model.fs_data["M"]
        return model

    return build


@register("fs-linear", "formulation", "cop", paper="D", ref="eq. (7); CoP(K) eq. (16)",
          problem_class="MINLP")
@exportable(Export("cop", _export("bilinear"), QUADRATIC,
                   note="u_j w_j = 0 as printed (a nonconvex MIQCQP), with the linking rows "
                        "|w_j| <= M (1 - u_j), M = sqrt(2 UB)"),
            Export("cop-perspective", _export("perspective"), QUADRATIC,
                   note="w_j^2 <= W_j s_j, s_j = 1 - u_j (an MISOCP; same set), with the "
                        "linking rows |w_j| <= M s_j, M = sqrt(2 UB)"))
def cop_model(problem: FSLinearProblem, form: str = "bilinear",
              K: Iterable[int] | None = None, ub: float | None = None) -> Any:
    """Pyomo model of CoP (7), or of the restricted CoP(K) (16) when ``K`` is given.

    u_j w_j = 0 (complementarity), sum_{j in K} u_j = |K| - B (``"eq"``) or >= |K| - B
    (``"le"``, Remark 2.2), u binary. Features outside K have w_j = 0.

    Every form carries the linking rows -M_j (1 - u_j) <= w_j <= M_j (1 - u_j) with the valid
    M_j = sqrt(2 UB) of Remark 3.2 (every point of objective <= UB has 1/2 w_j^2 <= UB, an
    optimum among them), UB = ``ub`` (an incumbent's value, as the objective cut (17) uses)
    or the value of a feasible support inside K (:func:`~.bigm.link_bound`). They change no
    optimum; they keep a solver's feasibility tolerance from letting a dropped feature keep
    weight: SCIP on the cones alone left |w_j| ~ 3e-5 where u_j = 1 and an optimum 2.3e-4
    below the certified one (measured on a 50 x 18 instance, B = 4, C = 10).

    ``form="bilinear"`` is the paper's complementarity u_j w_j = 0 (nonconvex MIQCQP, class
    MINLP: SCIP, Gurobi). ``form="perspective"`` writes the same set as the rotated cones
    w_j^2 <= W_j s_j, s_j = 1 - u_j, objective 1/2 sum W_j + C sum xi (MISOCP; exact because
    u is binary: u_j = 1 forces w_j = 0, u_j = 0 gives W_j >= w_j^2). Kernel Search's cuts
    (17) and (18) are in :mod:`sparsekm.models.fs_linear.cuts`.
    """
    import pyomo.environ as pyo

    if form not in COP_FORMS:
        raise ValueError(f"form={form!r}: use one of {COP_FORMS}")
    p = problem
    Kl = p.subset(K)
    whole = len(Kl) == p.n
    mdl = pyo.ConcreteModel(name="CoP (7)" if whole else "CoP(K) (16)")
    margin_block(mdl, p.X, p.y, Kl)
    mdl.u = pyo.Var(mdl.K, within=pyo.Binary)
    M = link_bound(p, Kl, ub)
    zeros = len(Kl) - p.B
    card = pyo.quicksum(mdl.u[j] for j in mdl.K)
    if p.cardinality == "eq" and zeros >= 0:
        mdl.card = pyo.Constraint(expr=card == zeros)
    elif zeros > 0:
        mdl.card = pyo.Constraint(expr=card >= zeros)
    loss = p.C * pyo.quicksum(mdl.xi[i] for i in mdl.I)
    if form == "bilinear":
        mdl.comp = pyo.Constraint(mdl.K, rule=lambda md, j: md.u[j] * md.w[j] == 0)
        reg = 0.5 * pyo.quicksum(mdl.w[j] ** 2 for j in mdl.K)
        declare_class(mdl, ProblemClass.MINLP)  # read off the syntax it is the same, slowly
        on = {j: 1 - mdl.u[j] for j in Kl}
    else:
        mdl.W = pyo.Var(mdl.K, within=pyo.NonNegativeReals)
        mdl.s = pyo.Var(mdl.K, bounds=(0, 1))
        mdl.s_def = pyo.Constraint(mdl.K, rule=lambda md, j: md.s[j] + md.u[j] == 1)
        mdl.cone = pyo.Constraint(mdl.K, rule=lambda md, j: md.w[j] ** 2 <= md.W[j] * md.s[j])
        reg = 0.5 * pyo.quicksum(mdl.W[j] for j in mdl.K)
        declare_class(mdl, ProblemClass.MISOCP)
        on = {j: mdl.s[j] for j in Kl}
    mdl.link_hi = pyo.Constraint(mdl.K, rule=lambda md, j: md.w[j] <= M * on[j])
    mdl.link_lo = pyo.Constraint(mdl.K, rule=lambda md, j: -M * on[j] <= md.w[j])
    mdl.obj = pyo.Objective(expr=reg + loss)
    mdl.fs_data = {"name": "cop", "K": Kl, "form": form, "selector": "u", "M": M}
    return stamp(mdl, "fs-linear", "cop", ref="paper D, eq. (7)" if whole else
                 "paper D, eq. (16)", role="exact" if whole else "restriction", form=form,
                 note="" if whole else f"CoP(K) (16) on {len(Kl)} of {p.n} features")
