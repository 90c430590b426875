"""Paper A's exact formulations for kernel-SVM feature selection with binary masks.

* :func:`fs_kernel_minlp` -- the MINLP (4): ``min_{alpha, beta} 1/2 sum_{i,h} y^i y^h alpha_i
  alpha_h k_beta(x^i, x^h) - sum_i alpha_i`` s.t. ``y'alpha = 0``, ``sum_j beta_j = B``,
  ``0 <= alpha <= C``, ``beta in {0,1}^n``, for the polynomial kernel
  ``k_beta = (gamma sum_j beta_j x_j^i x_j^h + c)^d`` and the Gaussian kernel
  ``k_beta = exp(-gamma sum_j beta_j (x_j^i - x_j^h)^2)`` (Section 2.2). A global MINLP solver
  (SCIP by default) plays the role of the paper's Baron runs.
* ``fs_kernel_minlp(..., relax=True)`` -- its continuous relaxation ``beta in [0,1]^n``, an
  NLP for Ipopt (the paper's Ipopt baseline, Section 5.2, rounds the B largest ``beta_j``).
* :func:`fs_kernel_beta_subproblem` -- the beta-subproblem (5) for a fixed ``alpha``.

These models are for small instances (m up to a few dozen); the heuristics in
:mod:`sparsekm.algorithms.fs_kernel` handle full datasets.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sparsekm.registry import NONLINEAR, Export, exportable, register
from sparsekm.solvers import ProblemClass, declare_class

from ..record import stamp
from .problem import FSKernelProblem

__all__ = ["fs_kernel_beta_subproblem", "fs_kernel_minlp"]


def _kernel_terms(X: np.ndarray, kernel: str, gamma: float) -> list[tuple[int, int, np.ndarray]]:
    """Upper-triangle pairs ``(i, h, g)`` with ``g_j = gamma x_j^i x_j^h`` (poly) or
    ``(x_j^i - x_j^h)^2`` (rbf), from :func:`sparsekm.kernels.feature_terms`."""
    from sparsekm.kernels import feature_terms

    iu, hu = np.triu_indices(X.shape[0])
    G = feature_terms(X, kernel)[:, iu, hu].T * (gamma if kernel == "poly" else 1.0)
    return list(zip(iu.tolist(), hu.tolist(), G))


def _weighted_kernel_sum(mdl: Any, X: np.ndarray, w: Any, kernel: str, gamma: float,
                         degree: int, coef0: float, aux: bool) -> Any:
    """``sum_{i,h} w(i, h) k_beta(x^i, x^h)`` using symmetry (i <= h).

    With ``aux=True`` every pair gets a variable ``s[i,h] = sum_j g_j beta_j`` (a linear
    equality) and the kernel is ``(s + c)^d`` or ``exp(-gamma s)``; without it the sum sits
    inside the power, which Pyomo's SCIP writer expands term by term (for n = 30, d = 5 it
    used more than 6 GB before SCIP started).
    """
    import pyomo.environ as pyo

    pairs = _kernel_terms(X, kernel, gamma)
    if aux:
        mdl.P = pyo.Set(initialize=[(i, h) for i, h, _ in pairs], dimen=2)
        mdl.s = pyo.Var(mdl.P, domain=pyo.NonNegativeReals if kernel == "rbf" else pyo.Reals)
        mdl.s_def = pyo.ConstraintList()
    terms = []
    for i, h, g in pairs:
        nz = np.flatnonzero(g)
        lin = pyo.quicksum(float(g[j]) * mdl.beta[j] for j in nz) if nz.size else 0.0
        if aux:
            mdl.s_def.add(mdl.s[i, h] == lin)
            lin = mdl.s[i, h]
        if kernel == "poly":
            k = (lin + coef0) ** degree
        else:
            k = pyo.exp(-gamma * lin) if nz.size else 1.0
        terms.append((1.0 if i == h else 2.0) * w(i, h) * k)
    return pyo.quicksum(terms)


def _export(relax: bool) -> Any:
    def build(problem: FSKernelProblem, options: dict[str, Any]) -> Any:
        return fs_kernel_minlp(problem, relax=relax, aux=options.get("aux", True))

    return build


@register("fs-kernel", "formulation", "minlp", paper="A", ref="eq. (4)", problem_class="MINLP")
@exportable(Export("minlp", _export(False), NONLINEAR, role="exact"),
            Export("minlp-relaxed", _export(True), NONLINEAR, role="relaxation",
                   note="beta in [0, 1] (the Ipopt baseline)"))
def fs_kernel_minlp(problem: FSKernelProblem, relax: bool = False, beta_start: Any = None,
                    aux: bool = True) -> Any:
    """Pyomo model of Paper A's MINLP (4) (or its relaxation with ``relax=True``).

    Parameters
    ----------
    problem : FSKernelProblem
        Samples, labels, kernel (``poly``/``rbf``, ``gamma``, ``d``, ``c``), ``B``, ``C``.
    relax : bool
        ``beta_j in [0, 1]`` instead of binary (declared NLP; default solver Ipopt).
    beta_start : array (n,), optional
        Initial values for ``beta`` (Ipopt's start point; a hint for MINLP solvers).
    aux : bool
        One auxiliary variable ``s[i,h] = sum_j g_j^{ih} beta_j`` per pair (default; keeps
        the solver's expression small). ``False`` writes the sums inside the kernel.

    Returns
    -------
    pyomo.environ.ConcreteModel
        Variables ``alpha[i]``, ``beta[j]``; declared MINLP (or NLP when relaxed). The
        objective sense is Paper A's (minimization over alpha *and* beta).
    """
    import pyomo.environ as pyo

    p = problem
    X, y, kernel, B, C = p.X, p.y, p.kernel, p.B, p.C
    gamma, degree, coef0 = p.gamma, p.degree, p.coef0
    m, n = X.shape
    mdl = pyo.ConcreteModel(name="Paper A MINLP (4)" + (" relaxation" if relax else ""))
    mdl.I = pyo.RangeSet(0, m - 1)
    mdl.J = pyo.RangeSet(0, n - 1)
    mdl.alpha = pyo.Var(mdl.I, bounds=(0.0, float(C)), initialize=0.0)
    dom = pyo.UnitInterval if relax else pyo.Binary
    if beta_start is not None:
        init = np.asarray(beta_start, dtype=float)
        if init.shape != (n,):
            raise ValueError(f"beta_start must have length n={n}, got shape {init.shape}")
        if not relax:
            init = (init > 0.5).astype(float)
    elif relax:
        init = np.full(n, B / n)
    else:
        init = None
    mdl.beta = pyo.Var(mdl.J, domain=dom,
                       initialize=None if init is None else (lambda _, j: float(init[j])))
    mdl.balance = pyo.Constraint(expr=pyo.quicksum(float(y[i]) * mdl.alpha[i] for i in mdl.I)
                                 == 0)
    mdl.cardinality = pyo.Constraint(expr=pyo.quicksum(mdl.beta[j] for j in mdl.J) == B)
    quad = _weighted_kernel_sum(
        mdl, X, lambda i, h: float(y[i] * y[h]) * mdl.alpha[i] * mdl.alpha[h], kernel, gamma,
        degree, coef0, aux)
    mdl.obj = pyo.Objective(expr=0.5 * quad - pyo.quicksum(mdl.alpha[i] for i in mdl.I),
                            sense=pyo.minimize)
    stamp(mdl, "fs-kernel", "minlp", ref="paper A, eq. (4)",
          role="relaxation" if relax else "exact", form="beta in [0, 1]" if relax else "")
    return declare_class(mdl, ProblemClass.NLP if relax else ProblemClass.MINLP)


@register("fs-kernel", "formulation", "beta-subproblem", paper="A", ref="eq. (5)",
          problem_class="MINLP")
def fs_kernel_beta_subproblem(problem: FSKernelProblem, alpha: Any) -> Any:
    """Pyomo model of Paper A's beta-subproblem (5) for fixed ``alpha`` (bar-alpha).

    ``min_beta 1/2 sum_{i,h} alpha_i alpha_h y^i y^h k_beta(x^i, x^h)`` s.t.
    ``sum_j beta_j = B``, ``beta in {0,1}^n`` -- i.e. ``min 1/2 F(S)``, ``|S| = B`` (10).
    Only samples with ``alpha_i > 0`` enter. Declared MINLP.
    """
    import pyomo.environ as pyo

    alpha = np.asarray(alpha, dtype=float)
    p = problem
    X, y, kernel, B, gamma, degree, coef0 = p.X, p.y, p.kernel, p.B, p.gamma, p.degree, p.coef0
    sv = np.flatnonzero(alpha > 0)
    Xs, a = X[sv], (alpha * y)[sv]
    n = X.shape[1]
    mdl = pyo.ConcreteModel(name="Paper A beta-subproblem (5)")
    mdl.J = pyo.RangeSet(0, n - 1)
    mdl.beta = pyo.Var(mdl.J, domain=pyo.Binary, initialize=lambda _, j: float(j < B))
    mdl.cardinality = pyo.Constraint(expr=pyo.quicksum(mdl.beta[j] for j in mdl.J) == B)
    quad = _weighted_kernel_sum(mdl, Xs, lambda i, h: float(a[i] * a[h]), kernel, gamma, degree,
                                coef0, aux=True)
    mdl.obj = pyo.Objective(expr=0.5 * quad, sense=pyo.minimize)
    stamp(mdl, "fs-kernel", "beta-subproblem", ref="paper A, eq. (5)", role="restriction",
          note="alpha fixed")
    return declare_class(mdl, ProblemClass.MINLP)
