"""Paper C's dual (22) as a declarative convex model (CVXPY, exponential cone).

    min_a  1/2 a'Qa + C sum_i G(a_i / C) - lam sum_i a_i                      (22a)
    s.t.   y'a = 0,   gamma <= a_i <= C - gamma                         (22b), (22c)

with ``Q = (yy') * K`` and ``C G(a/C) = -C (entr(a/C) + entr(1 - a/C))`` (entr(x) = -x log x),
so the model is an exponential-cone program (class EXP; Clarabel, SCS, MOSEK). It is the
cross-check of the SMO engine; ``gamma_bound=0`` gives the unbounded dual (18) of Lemma 1.
:func:`dual_objective` evaluates (22a) at any point (what the CLI reports).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sparsekm.declare import Annotated, ParamError, Spec
from sparsekm.registry import register
from sparsekm.solvers import ProblemClass, declare_class

from .problem import SKLRProblem

__all__ = ["dual_model", "dual_objective", "entropy_term"]

GAMMA_BOUND = Spec("The auxiliary bound gamma of (22c) for this model, instead of the "
                   "problem's (none); 0 gives the unbounded dual (18) of Lemma 1.", ge=0, lt=1)


def entropy_term(alpha: np.ndarray, C: float) -> float:
    """C sum_i G(alpha_i / C), G(t) = t log t + (1 - t) log(1 - t) (eq. (16)), 0 log 0 = 0."""
    t = np.clip(np.asarray(alpha, dtype=float) / C, 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        g = np.where(t > 0, t * np.log(t), 0.0) + np.where(t < 1, (1 - t) * np.log1p(-t), 0.0)
    return float(C * g.sum())


def dual_objective(problem: SKLRProblem, alpha: Any, K: np.ndarray | None = None) -> float:
    """The value of (22a) (= (23)) at ``alpha``; ``K`` defaults to ``problem.K``."""
    a = np.asarray(alpha, dtype=float)
    Kmat = problem.K if K is None else K
    v = a * problem.y
    return float(0.5 * v @ (Kmat @ v) + entropy_term(a, problem.C) - problem.lam * a.sum())


@register("sklr", "formulation", "dual", paper="C", ref="eq. (22)", problem_class="EXP")
def dual_model(problem: SKLRProblem, *,
               gamma_bound: Annotated[float | None, GAMMA_BOUND] = None) -> Any:
    """Paper C eq. (22): the bounded regularised KLR dual as a CVXPY exponential-cone program.

    ``gamma_bound`` overrides the problem's auxiliary bound (0 gives the dual (18)).
    """
    import cvxpy as cp

    g = problem.gamma_bound if gamma_bound is None else float(gamma_bound)
    C, y = problem.C, problem.y
    if not 2 * g < C:
        raise ParamError("gamma_bound", gamma_bound, f"must be < C/2 = {C / 2:g} (box "
                         "[gamma, C - gamma] of eq. (22c))")
    Q = (y[:, None] * y[None, :]) * problem.K
    a = cp.Variable(problem.m, name="alpha")
    entropy = -C * cp.sum(cp.entr(a / C) + cp.entr(1 - a / C))
    obj = 0.5 * cp.quad_form(a, cp.psd_wrap(0.5 * (Q + Q.T))) + entropy - problem.lam * cp.sum(a)
    cons = [y @ a == 0, a >= g, a <= C - g]
    return declare_class(cp.Problem(cp.Minimize(obj), cons), ProblemClass.EXP)
