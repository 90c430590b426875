"""The SVM (1) of paper D (= paper A's (2)) on a fixed support, solved through the solver layer:
the hot subproblem of paper D's algorithms when a QP solver is named (``--qp-solver``), and
the reference value of the tests. (The native interior point on a support is
:func:`sparsekm.engines.linear_svm.solve_linear_svm`.)"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sparsekm.models.svm import svm_objective, svm_qp
from sparsekm.solvers import SolveFailedError, solve

__all__ = ["solve_svm"]


def solve_svm(X: np.ndarray, y: np.ndarray, C: float, features: Sequence[int] | None = None,
              l1: float = 0.0, solver: str | None = None) -> tuple[np.ndarray, float, float]:
    """Solve the SVM (1) (or EN-SVM with ``l1 > 0``) restricted to ``features``.

    Through the solver layer: Clarabel natively by default (tolerance 1e-10), or ``solver``.

    Returns
    -------
    w : (n,) array, zero outside ``features``; b : float; objective : float
        ``objective`` = 1/2||w||^2 + C sum xi (+ l1 ||w||_1), recomputed from (w, b).
    """
    n = X.shape[1]
    F = np.arange(n) if features is None else np.asarray(sorted(set(features)), dtype=int)
    res = solve(svm_qp(X, y, C, F, l1), solver=solver)
    if not res.has_solution:
        raise SolveFailedError(f"the SVM (1) on {F.size} features ended with status "
                               f"{res.status.value} ({res.message}) on {res.solver}")
    w = np.zeros(n)
    w[F] = res.values["w"]
    b = float(res.values["b"][0])
    return w, b, svm_objective(X, y, C, w, b) + l1 * float(np.abs(w).sum())
