"""The continuous relaxation of Paper A's MINLP (4): beta in [0, 1]^n (an NLP).

Two equal forms go through the solver layer: the Pyomo model
(:func:`sparsekm.models.fs_kernel.fs_kernel_minlp` with ``relax=True``, for any NLP solver) and
:func:`relaxation_nlp`, a :class:`~sparsekm.solvers.CallbackNLP` with exact vectorised numpy
gradients, O(m^2 n) per evaluation, for Ipopt (m = 30, n = 13, d = 3: 0.75 s against 73 s for
the Pyomo form, same mask, measured under load). The objective is not convex in (alpha, beta),
so a local solver's value is no bound.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sparsekm.declare import Annotated, Spec
from sparsekm.kernels import feature_terms
from sparsekm.models.fs_kernel import FSKernelProblem, fs_kernel_minlp
from sparsekm.models.fs_kernel.specs import BETA_IN
from sparsekm.registry import register
from sparsekm.solvers import CallbackNLP, Result, SolverPlan, solve, supports

__all__ = ["NLP_FORM", "NLP_FORMS", "relaxation_model", "relaxation_nlp"]

NLP_FORMS = ("auto", "callbacks", "pyomo")
NLP_FORM = Spec("Form of the relaxation of (4): callbacks (exact numpy gradients, for Ipopt), "
                "pyomo (the declarative model, any NLP solver) or auto (callbacks when the "
                "solver takes them).", choices=NLP_FORMS)


def relaxation_nlp(problem: FSKernelProblem, beta0: np.ndarray) -> CallbackNLP:
    """The relaxation of (4) as callbacks: x = (alpha, beta), exact gradients.

    ``f = 1/2 sum_{ih} a_i a_h k_beta(x^i, x^h) - 1'alpha`` with ``a = alpha * y``;
    ``d f / d alpha = y * (K a) - 1``; ``d f / d beta_j = 1/2 a' (dK/dbeta_j) a`` with
    ``dK/dbeta_j = d gamma x_j x_j' (gamma S + c)^(d-1)`` (poly) or ``-gamma D_j * K`` (rbf).
    """
    p = problem
    m, n = p.m, p.n
    G = feature_terms(p.X, p.kernel)

    def parts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        S = np.tensordot(x[m:], G, axes=1)
        if p.kernel == "poly":
            base = p.gamma * S + p.coef0
            return x[:m] * p.y, base ** p.degree, base
        return x[:m] * p.y, np.exp(-p.gamma * S), None

    def objective(x: np.ndarray) -> float:
        a, K, _ = parts(x)
        return float(0.5 * a @ K @ a - x[:m].sum())

    def gradient(x: np.ndarray) -> np.ndarray:
        a, K, base = parts(x)
        if p.kernel == "poly":
            W = p.degree * p.gamma * base ** (p.degree - 1) * np.outer(a, a)
        else:
            W = -p.gamma * K * np.outer(a, a)
        g_beta = 0.5 * np.tensordot(G, W, axes=([1, 2], [0, 1]))
        return np.concatenate([p.y * (K @ a) - 1.0, g_beta])

    jac = np.vstack([np.concatenate([p.y, np.zeros(n)]), np.concatenate([np.zeros(m),
                                                                          np.ones(n)])])
    return CallbackNLP(
        n=m + n, x0=np.concatenate([np.zeros(m), beta0]), lb=np.zeros(m + n),
        ub=np.concatenate([np.full(m, p.C), np.ones(n)]), objective=objective,
        gradient=gradient, constraints=lambda x: jac @ x, jacobian=lambda x: jac,
        cl=np.array([0.0, p.B]), cu=np.array([0.0, p.B]),
        names={"alpha": slice(0, m), "beta": slice(m, m + n)},
        name="Paper A (4), beta in [0,1]")


def relaxation_model(problem: FSKernelProblem, beta0: np.ndarray, solver: str | None) -> Any:
    """The callback form for solvers that take it (Ipopt), else the Pyomo model."""
    if solver in (None, "ipopt") or supports(solver, "NLP", "callbacks"):
        return relaxation_nlp(problem, beta0)
    return fs_kernel_minlp(problem, relax=True, beta_start=beta0, aux=False)


@register("fs-kernel", "relaxation", "continuous", paper="A", ref="(4) with beta in [0,1]",
          problem_class="NLP")
def continuous(problem: FSKernelProblem, plan: SolverPlan, *,
               beta_in: Annotated[Any, BETA_IN] = None,
               form: Annotated[str, NLP_FORM] = "auto") -> Result:
    """Relaxation of (4) with beta in [0, 1], solved locally (Ipopt; no certified bound).

    ``form``: ``"callbacks"`` (numpy gradients), ``"pyomo"`` (the declarative model, any NLP
    solver) or ``"auto"`` (callbacks when the solver takes them). Start: ``beta_in`` or
    beta_j = B / n.
    """
    plan = plan.start()
    p = problem
    beta0 = np.full(p.n, p.B / p.n) if beta_in is None else np.asarray(beta_in, dtype=float)
    if form == "pyomo":
        model = fs_kernel_minlp(p, relax=True, beta_start=beta0, aux=False)
    elif form == "callbacks":
        model = relaxation_nlp(p, beta0)
    else:
        model = relaxation_model(p, beta0, plan.solver)
    res = solve(model, solver=plan.solver, time_limit=plan.clock.cap(None),
                **({"max_iter": 3000} if isinstance(model, CallbackNLP) else {}))
    res.bound, res.method, res.problem = None, "continuous", "fs-kernel"
    res.extra["form"] = "callbacks" if isinstance(model, CallbackNLP) else "pyomo"
    return res
