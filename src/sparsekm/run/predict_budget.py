"""Time for the predictions a run prints, taken from its method's budget.

A kernel machine's predictions on many new rows cost a kernel block per row against the
support vectors, after the method stopped: 11412 test rows of magic against 7608 training
rows took 1.2 s, printed after a 5 s limit. A runner measures that cost on a few rows before
the method starts and ends the method's clock that much earlier.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from sparsekm.kernels import kernel_decision
from sparsekm.solvers import SolverPlan

__all__ = ["SAMPLE_ROWS", "prediction_seconds", "reserve", "reserved_plan"]

SAMPLE_ROWS = 128   # rows timed to estimate the predictions' cost


def prediction_seconds(kernel: Callable[[np.ndarray, np.ndarray], np.ndarray],
                       X_train: np.ndarray, n_rows: int) -> float:
    """Seconds to predict ``n_rows`` new rows with every training row a support vector (an
    upper bound: only the support vectors are evaluated), timed on a sample of rows."""
    if n_rows <= 0:
        return 0.0
    sample = np.asarray(X_train[:min(SAMPLE_ROWS, n_rows)], dtype=np.float64)
    t0 = time.perf_counter()
    kernel_decision(kernel, sample, X_train, np.ones(len(X_train)))
    return (time.perf_counter() - t0) * n_rows / len(sample)


def reserve(plan: SolverPlan, seconds: float) -> SolverPlan:
    """``plan`` with its clock ending ``seconds`` earlier (at least 10 ms left; unchanged
    without a limit)."""
    if math.isinf(plan.clock.remaining()) or seconds <= 0:
        return plan
    return plan.with_(deadline=plan.clock.part(less=seconds))


def reserved_plan(plan: SolverPlan, kernel: Any, X_train: np.ndarray, *new: Any
                  ) -> SolverPlan:
    """``plan`` ended early by the predictions on the row sets ``new`` (None skipped)."""
    rows = sum(len(d) for d in new if d is not None)
    if math.isinf(plan.clock.remaining()) or not rows:
        return plan
    return reserve(plan, prediction_seconds(kernel, X_train, rows))
