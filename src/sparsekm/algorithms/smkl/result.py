"""Turning a kernel weighting beta into the one Result of a paper-B method."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from sparsekm.models.smkl.objective import FINAL_GAP, Evaluation, evaluate
from sparsekm.models.smkl.problem import SMKLProblem
from sparsekm.solvers import Result, Termination

__all__ = ["method_result"]


def method_result(problem: SMKLProblem, method: str, t0: float, *,
                  evaluation: Evaluation | np.ndarray,
                  bound: float | None = None, termination: Termination = Termination.CONVERGED,
                  deadline: Any = None, **extra: Any) -> Result:
    """Result with objective = certified value of (4) at beta (P(alpha, b*) + lam||beta||^2),
    the classifier (alpha, b) on K(beta), and ``bound`` when the method certified one.
    ``evaluation``: the method's Evaluation at its beta, or that beta (evaluated here).

    The value reported is the upper side of the SVM's duality interval at beta: a loose SVM
    (an iteration cap at a large C) overstates it, so an evaluation wider than ``FINAL_GAP``
    is solved on, warm-started, until both sides agree (within ``deadline``)."""
    e = evaluation if isinstance(evaluation, Evaluation) else \
        evaluate(problem, evaluation, deadline=deadline)
    if e.upper - e.value > FINAL_GAP * max(1.0, abs(e.upper)) and not (
            deadline is not None and deadline.expired()):
        fine = evaluate(problem, e.beta, e.alpha, accurate=True, deadline=deadline)
        e = fine if fine.upper < e.upper else e
    res = Result(objective=e.upper, termination=termination, time_s=time.perf_counter() - t0,
                 solver="libsvm", method=method, problem="smkl",
                 selected=[int(i) for i in np.flatnonzero(e.beta > 0)],
                 values={"beta": e.beta, "alpha": e.alpha, "b": e.b},
                 extra={"objective_dual": e.value, **extra})
    if bound is not None:
        res.certify(bound)
    return res
