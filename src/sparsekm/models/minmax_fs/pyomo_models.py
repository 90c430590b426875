"""Paper E's models as declarative Pyomo models: (14), (15)/(19), (18) and (20).

Notation of Section 3.2: G_gamma = diag(y) K_gamma diag(y), e the vector of ones, and the
lower-level dual (18) has variables alpha, nu (for y'alpha = 0), lambda0 >= 0 (alpha >= 0) and
lambdaC >= 0 (alpha <= C).

* :func:`minmax_model` -- (14) at a fixed gamma: the inner max (12) plus the penalty, a concave
  QP in alpha whose optimal value is the objective of (14) at gamma. (The outer min over gamma
  of a max has no single-level form; methods ``fast`` minimizes this value function.)
* :func:`lower_dual_model` -- (18) at a fixed gamma (Wolfe dual of the SVM dual; equal optimal
  value by strong duality).
* :func:`epigraph_model` -- (15) with its lower level replaced by (18): the single-level
  epigraph (19), exact because "z >= min (18)" holds iff some (18)-feasible point has
  z >= (18a).
* :func:`single_level_model` -- (20), (19) with z eliminated; ``box=True`` keeps the redundant
  (20d) 0 <= alpha <= C, which the paper recommends.

Every kernel entry is ``exp(-sum_j gamma_j d_ilj)`` with d_ilj = (x_ij - x_lj)^2, so a model
holds m(m-1)/2 * n terms: :func:`check_model_size` refuses data sets past a solver's limit
with the size and the fast route as the fix.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sparsekm.declare import Annotated
from sparsekm.registry import NONLINEAR, QUADRATIC, Export, exportable, register
from sparsekm.solvers import ProblemClass, declare_class

from ..record import stamp
from .lower import check_gamma
from .problem import MinMaxFSProblem
from .specs import BOX, GAMMA, GAMMA0, OBJECTIVE, OBJECTIVES, START

__all__ = ["MODEL_TERM_LIMIT", "check_model_size", "epigraph_model", "kernel_terms",
           "lower_dual_model", "minmax_model", "single_level_model"]

# Largest number of kernel terms m(m-1)/2 * n a Pyomo model is built with. Measured on this
# machine (benchmarks/results/minmax_fs_routes.md): Ipopt through the solver layer's Pyomo
# compile differentiates every term in Python at each iteration, 250 s for (20) with m = 20,
# n = 30 (5,700 terms) against 0.8 s for the numpy callbacks; SCIP's expression graph and
# relaxations grow with the terms as well.
MODEL_TERM_LIMIT = {"ipopt": 20_000, "scip": 20_000, "default": 200_000}


def kernel_terms(problem: MinMaxFSProblem) -> int:
    """Number of exponent terms of the dense kernel in the Pyomo models: m(m-1)/2 * n."""
    return problem.m * (problem.m - 1) // 2 * problem.n


def check_model_size(problem: MinMaxFSProblem, solver: str | None = None,
                     limit: int | None = None) -> None:
    """Raise ValueError when the dense (20) model of ``problem`` is too large for ``solver``."""
    key = (solver or "default").lower()
    cap = limit if limit is not None else MODEL_TERM_LIMIT.get(key, MODEL_TERM_LIMIT["default"])
    terms = kernel_terms(problem)
    if terms > cap:
        raise ValueError(
            f"minmax-fs: the dense Pyomo model (20) of this data set (m={problem.m} rows, "
            f"n={problem.n} features) has m(m-1)/2*n = {terms:,} kernel terms, more than the "
            f"{cap:,} allowed for solver {solver or 'default'}; use method='fast' (the value-"
            "function route, any size) or method='ipopt' (numpy callbacks of (20)), or fewer "
            "rows (--rows)")


def _pairs(X: np.ndarray) -> list[tuple[int, int, np.ndarray]]:
    m = X.shape[0]
    return [(i, h, (X[i] - X[h]) ** 2) for i in range(m) for h in range(i + 1, m)]


def _penalty(mdl: Any, p: float) -> Any:
    import pyomo.environ as pyo

    if p == 1.0:
        return pyo.quicksum(mdl.gamma[j] for j in mdl.J)
    return pyo.quicksum(mdl.gamma[j] ** p for j in mdl.J)


def _add_gamma_kernel(mdl: Any, problem: MinMaxFSProblem, gamma0: np.ndarray) -> None:
    """gamma >= 0 (20c) and the named kernel expressions K[i,h] = exp(-sum_j gamma_j d_ihj)."""
    import pyomo.environ as pyo

    X = problem.X
    mdl.J = pyo.RangeSet(0, problem.n - 1)
    mdl.gamma = pyo.Var(mdl.J, domain=pyo.NonNegativeReals,
                        initialize=lambda _, j: float(gamma0[j]))
    pairs = _pairs(X)
    mdl.P = pyo.Set(initialize=[(i, h) for i, h, _ in pairs], dimen=2, ordered=True)
    d = {(i, h): g for i, h, g in pairs}

    def rule(mdl: Any, i: int, h: int) -> Any:
        g = d[i, h]
        nz = np.flatnonzero(g)
        if not nz.size:
            return 1.0
        return pyo.exp(-pyo.quicksum(float(g[j]) * mdl.gamma[j] for j in nz))

    mdl.K = pyo.Expression(mdl.P, rule=rule)


def _kernel_entry(mdl: Any, i: int, h: int) -> Any:
    if i == h:
        return 1.0
    return mdl.K[min(i, h), max(i, h)]


def _add_dual_vars(mdl: Any, problem: MinMaxFSProblem, box: bool, start: dict | None) -> None:
    """alpha, nu, lambda0, lambdaC of (18) with (18c) and, when ``box``, (20d)."""
    import pyomo.environ as pyo

    st = start or {}
    mdl.I = pyo.RangeSet(0, problem.m - 1)
    C = problem.C

    def init(name: str) -> Any:
        v = st.get(name)
        return None if v is None else (lambda _, i: float(v[i]))

    mdl.alpha = pyo.Var(mdl.I, bounds=(0.0, C) if box else (None, None),
                        initialize=init("alpha"))
    mdl.nu = pyo.Var(initialize=float(st.get("nu", 0.0)))
    mdl.lambda0 = pyo.Var(mdl.I, domain=pyo.NonNegativeReals, initialize=init("lambda0"))
    mdl.lambdaC = pyo.Var(mdl.I, domain=pyo.NonNegativeReals, initialize=init("lambdaC"))


def _G_alpha(mdl: Any, problem: MinMaxFSProblem, i: int, K: Any) -> Any:
    """(G_gamma alpha)_i = y_i sum_h K_ih y_h alpha_h."""
    import pyomo.environ as pyo

    y = problem.y
    return float(y[i]) * pyo.quicksum(K(i, h) * float(y[h]) * mdl.alpha[h] for h in mdl.I)


def _quad(mdl: Any, problem: MinMaxFSProblem, K: Any) -> Any:
    """alpha' G_gamma alpha over the upper triangle (K symmetric, K_ii = 1)."""
    import pyomo.environ as pyo

    y, a = problem.y, mdl.alpha
    diag = pyo.quicksum(a[i] * a[i] for i in mdl.I)
    off = pyo.quicksum(2.0 * float(y[i] * y[h]) * K(i, h) * a[i] * a[h]
                       for i in mdl.I for h in mdl.I if h > i)
    return diag + off


def _wolfe_terms(mdl: Any, problem: MinMaxFSProblem, K: Any,
                 objective: str = "printed") -> tuple[Any, Any]:
    """(18a) and the rows of (18b) as expressions in the model's variables.

    ``objective="printed"``: (18a) as printed, -1/2 a'Ga + (e - nu y + lambda0 - lambdaC)'a
    + C e'lambdaC (bilinear in nu, lambda and alpha). ``"reduced"``: 1/2 a'Ga + C e'lambdaC,
    equal to (18a) wherever (18b) holds (substitute (18b) into the linear term), so both
    models have the same feasible set, optimal value and local optima; without the unbounded
    bilinear products a global solver's relaxations are far tighter (SCIP: (18) at m = 12 in
    well under a second instead of no answer in 90 s).
    """
    import pyomo.environ as pyo

    if objective not in OBJECTIVES:
        raise ValueError(f"objective={objective!r}: choose one of {', '.join(OBJECTIVES)}")
    y, C = problem.y, problem.C
    hinge = C * pyo.quicksum(mdl.lambdaC[i] for i in mdl.I)
    if objective == "reduced":
        obj18 = 0.5 * _quad(mdl, problem, K) + hinge
    else:
        lin = pyo.quicksum((1.0 - float(y[i]) * mdl.nu + mdl.lambda0[i] - mdl.lambdaC[i])
                           * mdl.alpha[i] for i in mdl.I)
        obj18 = -0.5 * _quad(mdl, problem, K) + lin + hinge

    def row(mdl: Any, i: int) -> Any:
        return _G_alpha(mdl, problem, i, K) - (1.0 - float(y[i]) * mdl.nu + mdl.lambda0[i]
                                               - mdl.lambdaC[i]) == 0

    return obj18, row


def _export(name: str) -> Any:
    def build(problem: MinMaxFSProblem, options: dict[str, Any]) -> Any:
        if name == "minmax":
            return minmax_model(problem)
        fn = epigraph_model if name == "epigraph" else single_level_model
        return fn(problem, box=options.get("box", True),
                  objective=options.get("objective", "printed"))

    return build


@register("minmax-fs", "formulation", "minmax", paper="E", ref="eq. (14)",
          problem_class="QP")
@exportable(Export("minmax", _export("minmax"), QUADRATIC, role="restriction",
                   note="(14) at gamma = 1/n (the start), a concave QP"))
def minmax_model(problem: MinMaxFSProblem, *, gamma: Annotated[Any, GAMMA] = None) -> Any:
    """(14) at a fixed gamma: max over alpha of C2||gamma||_p^p + (1-C2)(e'a - 1/2 a'G a).

    A concave QP in alpha (maximized); its optimal value is the objective of (14) at gamma.
    """
    import pyomo.environ as pyo

    from sparsekm.kernels import anisotropic_rbf_kernel

    g = problem.start(gamma)
    K = anisotropic_rbf_kernel(problem.X, weights=g)
    y, C2 = problem.y, problem.C2
    mdl = pyo.ConcreteModel(name="minmax-fs (14) at fixed gamma")
    mdl.I = pyo.RangeSet(0, problem.m - 1)
    mdl.alpha = pyo.Var(mdl.I, bounds=(0.0, problem.C), initialize=0.0)
    quad = _quad(mdl, problem, lambda i, h: float(K[i, h]))
    mdl.obj = pyo.Objective(expr=C2 * problem.penalty(g) + (1.0 - C2) * (
        pyo.quicksum(mdl.alpha[i] for i in mdl.I) - 0.5 * quad), sense=pyo.maximize)
    mdl.balance = pyo.Constraint(expr=pyo.quicksum(float(y[i]) * mdl.alpha[i]
                                                   for i in mdl.I) == 0)  # (14b)
    stamp(mdl, "minmax-fs", "minmax", ref="paper E, eq. (14)", role="restriction",
          note="gamma fixed")
    return declare_class(mdl, ProblemClass.QP)


@register("minmax-fs", "formulation", "lower-dual", paper="E", ref="eq. (18)",
          problem_class="NLP")
def lower_dual_model(problem: MinMaxFSProblem, *, gamma: Annotated[Any, GAMMA] = None,
                     box: Annotated[bool, BOX] = True,
                     start: Annotated[dict | None, START] = None,
                     objective: Annotated[str, OBJECTIVE] = "printed") -> Any:
    """(18) at a fixed gamma: the dual of the lower level (12), optimal value V(gamma).

    Bilinear in (alpha, nu, lambda) as printed (class NLP); ``box`` adds 0 <= alpha <= C;
    ``objective="reduced"`` makes it the convex QP 1/2 a'Ga + C e'lambdaC on the same set.
    """
    import pyomo.environ as pyo

    from sparsekm.kernels import anisotropic_rbf_kernel

    g = problem.start(gamma)
    Kn = anisotropic_rbf_kernel(problem.X, weights=g)
    mdl = pyo.ConcreteModel(name="minmax-fs (18) lower-level dual")
    _add_dual_vars(mdl, problem, box, start)
    obj18, row = _wolfe_terms(mdl, problem, lambda i, h: float(Kn[i, h]), objective)
    mdl.obj = pyo.Objective(expr=obj18)                     # (18a)
    mdl.stationarity = pyo.Constraint(mdl.I, rule=row)      # (18b)
    stamp(mdl, "minmax-fs", "lower-dual", ref="paper E, eq. (18)", role="restriction",
          note="gamma fixed")
    return declare_class(mdl, ProblemClass.NLP)


def _single_level(problem: MinMaxFSProblem, gamma0: Any, box: bool, start: dict | None,
                  epigraph: bool, objective: str) -> Any:
    import pyomo.environ as pyo

    g0 = check_gamma(problem.start(gamma0), problem.n)
    mdl = pyo.ConcreteModel(name="minmax-fs " + ("(19) epigraph" if epigraph else "(20)"))
    _add_gamma_kernel(mdl, problem, g0)
    _add_dual_vars(mdl, problem, box, start)
    obj18, row = _wolfe_terms(mdl, problem, lambda i, h: _kernel_entry(mdl, i, h), objective)
    C2 = problem.C2
    if epigraph:
        mdl.z = pyo.Var(initialize=float((start or {}).get("z", 0.0)))
        mdl.obj = pyo.Objective(expr=C2 * _penalty(mdl, problem.p) + (1.0 - C2) * mdl.z)
        mdl.epi = pyo.Constraint(expr=mdl.z >= obj18)      # (19b)
    else:
        mdl.obj = pyo.Objective(expr=C2 * _penalty(mdl, problem.p) + (1.0 - C2) * obj18)
    mdl.stationarity = pyo.Constraint(mdl.I, rule=row)      # (18b) / (20b)
    stamp(mdl, "minmax-fs", "epigraph" if epigraph else "single-level",
          ref="paper E, eq. (19)" if epigraph else "paper E, eq. (20)", role="exact")
    return declare_class(mdl, ProblemClass.NLP)


@register("minmax-fs", "formulation", "epigraph", paper="E", ref="eq. (15), (19)",
          problem_class="NLP")
@exportable(Export("epigraph", _export("epigraph"), NONLINEAR))
def epigraph_model(problem: MinMaxFSProblem, *, gamma0: Annotated[Any, GAMMA0] = None,
                   box: Annotated[bool, BOX] = True, start: Annotated[dict | None, START] = None,
                   objective: Annotated[str, OBJECTIVE] = "printed") -> Any:
    """The epigraph (15) with the lower level replaced by its dual (18): model (19)."""
    return _single_level(problem, gamma0, box, start, True, objective)


@register("minmax-fs", "formulation", "single-level", paper="E", ref="eq. (20)",
          problem_class="NLP")
@exportable(Export("single-level", _export("single"), NONLINEAR))
def single_level_model(problem: MinMaxFSProblem, *, gamma0: Annotated[Any, GAMMA0] = None,
                       box: Annotated[bool, BOX] = True,
                       start: Annotated[dict | None, START] = None,
                       objective: Annotated[str, OBJECTIVE] = "printed") -> Any:
    """The single-level reformulation (20) (with the redundant (20d) when ``box``).

    ``start`` holds initial values (``alpha``, ``nu``, ``lambda0``, ``lambdaC``), e.g. from
    :func:`sparsekm.models.minmax_fs.lower_level` at ``gamma0`` (Algorithm 1).
    ``objective="reduced"`` replaces (20a) by C2||gamma||_p^p + (1 - C2)(1/2 a'Ga +
    C e'lambdaC), equal on the set (20b) (see :func:`_wolfe_terms`).
    """
    return _single_level(problem, gamma0, box, start, False, objective)
