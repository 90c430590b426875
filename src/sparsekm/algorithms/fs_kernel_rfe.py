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

import time

import numpy as np

from .fs_kernel_core import Evaluator, FSKernelProblem, FSKernelResult, single_blas
from .fs_kernel_setfun import SetFunctions

__all__ = ["rfe"]


@single_blas
def rfe(problem: FSKernelProblem, variant: int = 2, *,
        time_limit: float | None = None) -> FSKernelResult:
    """RFE1 (``variant=1``) or RFE2 (``variant=2``) of Paper A, Section 5.2.

    Returns an :class:`FSKernelResult` whose ``extra["eliminated"]`` lists the removed features
    in order. On the time limit the remaining features are removed by the last ranking.
    """
    if variant not in (1, 2):
        raise ValueError(f"variant must be 1 (RFE1) or 2 (RFE2), got {variant!r}")
    t0 = time.perf_counter()
    p = problem
    ev = Evaluator(p, time_limit)
    beta = np.ones(p.n, dtype=bool)
    eliminated: list[int] = []
    status = "heuristic"
    while beta.sum() > p.B:
        S = np.flatnonzero(beta)
        if variant == 1:
            _, alpha = ev.evaluate(beta)
            sf = SetFunctions(p.X, p.y, alpha, p.kernel, p.gamma, p.degree, p.coef0)
            vals = 0.5 * sf.F_minus_each(S, S) - alpha.sum()
        else:
            vals = np.empty(S.size)
            for k, i in enumerate(S):
                nb = beta.copy()
                nb[i] = False
                vals[k] = ev.eval_mask(nb)
        order = np.argsort(p.sign * vals, kind="stable")
        if ev.out_of_time():
            status = "time_limit"
            drop = S[order[: beta.sum() - p.B]]
            beta[drop] = False
            eliminated += [int(i) for i in drop]
            break
        beta[S[order[0]]] = False
        eliminated.append(int(S[order[0]]))
    alpha, b, obj = ev.solve_mask(beta)
    return FSKernelResult(beta=beta, objective=obj, alpha=alpha, b=b, method=f"rfe{variant}",
                          sense=p.sense, status=status, time_s=time.perf_counter() - t0,
                          n_evals=ev.n_evals, extra={"eliminated": eliminated})
