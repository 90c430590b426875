"""Paper C Section 3.2 and Section 5.1 as code: Observation 1, Proposition 1, (3), sparsity.

* :func:`kkt_rho_b` -- Observation 1: rho and b solve the KKT system (20) (least squares over
  the points strictly inside the auxiliary box); at the optimum rho = lam.
* :func:`proposition1_lambda` -- the threshold (21) above which Proposition 1 says every
  point of the minority class has a >= C - gamma (no sparsity there).
* :func:`predict_proba` -- P(y = +1 | x) of eq. (3).
* :func:`selected` -- the points used by the model: a above the lower bound gamma
  (Section 5.1: points at the bound count as zero).

Lemma 1 (0 < a < C at the optimum of (18)) is checked in the tests on the conic model with
``gamma_bound = 0``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .problem import SKLRProblem

__all__ = ["decision_values", "kkt_rho_b", "predict_proba", "proposition1_lambda", "selected"]


def selected(problem: SKLRProblem, alpha: Any, rtol: float = 1e-9) -> np.ndarray:
    """Indices i with a_i above the lower bound gamma (Section 5.1's selected points)."""
    a = np.asarray(alpha, dtype=float)
    return np.flatnonzero(a > problem.lower * (1.0 + rtol))


def kkt_rho_b(problem: SKLRProblem, alpha: Any, K: np.ndarray | None = None
              ) -> tuple[float | None, float]:
    """Observation 1: (rho, b) from eq. (20), rho - y_i (Qa-term) + y_i b = log(a_i/(C - a_i)).

    Least squares over the points strictly inside [gamma, C - gamma] (the equations of points
    at a bound hold with a multiplier); ``b`` is returned in the decision-function convention
    f(x) = sum_j a_j y_j k(x_j, x) + b (the paper's ``omega . z - b``, so b = -b_paper).
    rho is None when a class has no point strictly inside the box.
    """
    a = np.asarray(alpha, dtype=float)
    Kmat = problem.K if K is None else K
    y = problem.y
    r = y * (Kmat @ (a * y)) + np.log(a) - np.log(problem.C - a)  # (Qa)_i + xi_i
    free = (a > problem.lower * (1 + 1e-9)) & (a < problem.upper * (1 - 1e-12))
    pos, neg = free & (y > 0), free & (y < 0)
    if not (np.any(pos) and np.any(neg)):
        return None, float("nan")
    # rho + y_i b_paper = r_i  ->  rho + b_p = mean_+ r, rho - b_p = mean_- r
    rp, rn = float(r[pos].mean()), float(r[neg].mean())
    return 0.5 * (rp + rn), -0.5 * (rp - rn)


def proposition1_lambda(problem: SKLRProblem, alpha0: Any, K: np.ndarray | None = None
                        ) -> float:
    """The threshold (21): max over the minority class I_- of sum_j (C-bar - a_j(0)) y_j K_ji.

    ``alpha0`` is the optimal a of (18) at lam = 0. Labels are flipped first when the
    minority class is +1 (the paper assumes w.l.o.g. that it is -1). Proposition 1 claims
    a_i(lam) >= C-bar for every minority point once lam reaches this value; the paper's proof
    drops the intercept, see docs/guides/sklr.md for what the measurements say.
    """
    a0 = np.asarray(alpha0, dtype=float)
    y = problem.y
    if (y > 0).sum() < (y < 0).sum():
        y = -y
    Kmat = problem.K if K is None else K
    minority = np.flatnonzero(y < 0)
    if not problem.gamma_bound < problem.C - a0[minority].max():
        raise ValueError("Proposition 1 needs gamma < C - max_{I_-} a_i(0); lower gamma_bound")
    s = Kmat[minority] @ ((problem.upper - a0) * y)
    return float(s.max())


def decision_values(K_test_train: np.ndarray, dual_coef: np.ndarray, b: float) -> np.ndarray:
    """f(x) = omega . phi(x) - b_paper = K(x, X) (a * y) + b."""
    return np.asarray(K_test_train) @ dual_coef + b


def predict_proba(K_test_train: np.ndarray, dual_coef: np.ndarray, b: float) -> np.ndarray:
    """P(y = +1 | x) = 1 / (1 + exp(-f(x))) (eq. (3)), computed without overflow."""
    from scipy.special import expit

    return expit(decision_values(K_test_train, dual_coef, b))
