"""RFE1 and RFE2 baselines of Paper A, Section 5.2 (Guyon et al.'s recursive feature elimination).

Starting from all ``n`` features, one feature is removed per step until ``B`` remain.

* RFE1 (standard): ``alpha`` is the SVM solution on the current set ``S`` and stays fixed while
  every candidate ``S - {i}`` is scored by ``f(alpha, S - {i}) = 1/2 F(S - {i}) - 1'alpha``
  (Section 4.2's F); the SVM is retrained only after the removal.
* RFE2: every candidate ``S - {i}`` is scored by the retrained value ``min_alpha f`` of (3).

The chosen removal is the best candidate in the problem's sense: the smallest value for
``sense="paper"`` (the paper's description, consistent with (4)), the largest for
``sense="margin"`` -- Guyon's criterion (remove the feature whose removal changes the margin
least). Ties go to the smaller feature index. Neither needs a start mask.
"""

from __future__ import annotations

import numpy as np

from sparsekm.models.fs_kernel import FSKernelProblem, SetFunctions
from sparsekm.registry import register, uses_solvers
from sparsekm.solvers import Result, SolverPlan, Termination

from .evaluator import Evaluator, mask_result, single_blas
from .specs import SVM_DUALS

__all__ = ["rfe", "rfe1", "rfe2"]


RFE1_CHUNK = 16   # candidates scored between two looks at the clock


@single_blas
def rfe(problem: FSKernelProblem, plan: SolverPlan, variant: int = 2) -> Result:
    """RFE1 (``variant=1``) or RFE2 (``variant=2``) of Paper A, Section 5.2.

    ``extra["eliminated"]`` lists the removed features in order. On the time limit the
    remaining features are removed by the last ranking (a candidate not scored yet is kept
    before the scored ones).
    """
    if variant not in (1, 2):
        raise ValueError(f"variant must be 1 (RFE1) or 2 (RFE2), got {variant!r}")
    p = problem
    ev = Evaluator(p, plan)
    beta = np.ones(p.n, dtype=bool)
    eliminated: list[int] = []
    timed_out = False
    while beta.sum() > p.B:
        S = np.flatnonzero(beta)
        if variant == 1:   # the set function F at the SVM's alpha, by chunks of candidates
            _, alpha = ev.evaluate(beta)
            sf = SetFunctions(p.X, p.y, alpha, p.kernel, p.gamma, p.degree, p.coef0)
            vals = np.full(S.size, np.inf * p.sign)
            for k in range(0, S.size, RFE1_CHUNK):
                if ev.out_of_time():
                    break
                part = S[k:k + RFE1_CHUNK]
                vals[k:k + part.size] = 0.5 * sf.F_minus_each(S, part) - alpha.sum()
        else:   # retrain per candidate, looking at the clock between SVMs (a step of n
            vals = np.full(S.size, np.inf * p.sign)  # solves took 12 s past a 5 s limit)
            for k, i in enumerate(S):
                if ev.out_of_time():
                    break
                nb = beta.copy()
                nb[i] = False
                vals[k] = ev.eval_mask(nb)
        order = np.argsort(p.sign * vals, kind="stable")
        if ev.out_of_time():
            timed_out = True
            drop = S[order[: beta.sum() - p.B]]
            beta[drop] = False
            eliminated += [int(i) for i in drop]
            break
        beta[S[order[0]]] = False
        eliminated.append(int(S[order[0]]))
    alpha, b, obj = ev.solve_mask(beta)
    res = mask_result(p, beta, obj, alpha, b, f"rfe{variant}", ev.plan.clock)
    res.termination = Termination.TIME_LIMIT if timed_out else Termination.CONVERGED
    res.time_s = ev.plan.clock.elapsed()
    res.extra = {"eliminated": eliminated, "n_evals": ev.n_evals}
    return res


@register("fs-kernel", "method", "rfe1", paper="A", ref="Section 5.2 (Guyon et al.)")
@uses_solvers(svm=SVM_DUALS)
def rfe1(problem: FSKernelProblem, plan: SolverPlan) -> Result:
    """RFE1: remove one feature at a time, scored by f(alpha, S - {i}) with alpha fixed."""
    return rfe(problem, plan, 1)


@register("fs-kernel", "method", "rfe2", paper="A", ref="Section 5.2 (Guyon et al.)")
@uses_solvers(svm=SVM_DUALS)
def rfe2(problem: FSKernelProblem, plan: SolverPlan) -> Result:
    """RFE2: remove one feature at a time, scored by the retrained min_alpha f(alpha, S - {i})."""
    return rfe(problem, plan, 2)
