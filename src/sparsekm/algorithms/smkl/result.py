"""Turning a kernel weighting beta into the one Result of a paper-B method."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from sparsekm.models.smkl.objective import Evaluation, evaluate
from sparsekm.models.smkl.problem import SMKLProblem
from sparsekm.solvers import Result, Termination

__all__ = ["method_result"]


def method_result(problem: SMKLProblem, method: str, t0: float, *,
                  evaluation: Evaluation | None = None, beta: np.ndarray | None = None,
                  bound: float | None = None, termination: Termination = Termination.CONVERGED,
                  **extra: Any) -> Result:
    """Result with objective = certified value of (4) at beta (P(alpha, b*) + lam||beta||^2),
    the classifier (alpha, b) on K(beta), and ``bound`` when the method certified one."""
    e = evaluation if evaluation is not None else evaluate(problem, beta)
    res = Result(objective=e.upper, termination=termination, time_s=time.perf_counter() - t0,
                 solver="libsvm", method=method, problem="smkl",
                 selected=[int(i) for i in np.flatnonzero(e.beta > 0)],
                 values={"beta": e.beta, "alpha": e.alpha, "b": e.b},
                 extra={"objective_dual": e.value, **extra})
    if bound is not None:
        res.certify(bound)
    return res
