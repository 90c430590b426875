"""The SMKL objective (4) at a given beta: one SVM dual (7) on K(beta), with its certificate.

G(beta) = max_alpha f(alpha, beta) + lam ||beta||^2, where the max is the SVM dual (7) on
K(beta) = sum_i beta_i K_i. The SVM is solved natively (below); weak duality brackets
its value: -D(alpha) <= max <= P(alpha, b*) (``sparsekm.engines.smo.svm_duality``), so
:class:`Evaluation` carries a certified upper value of (4) at beta as well as the dual value.

Warm starts: with ``alpha0`` the SVM is solved by the compiled SMO engine warm-started from it
(``backend="auto"``), else by cold libsvm. Measured in ABR (paper10, k0 = 2, C = 10, lam = 0.1,
same process, ``benchmarks/results/smo_warm.md``), engine / cold libsvm: banknote 0.74x,
ionosphere 1.50x, heart 0.10x (libsvm stops at its 1e6-iteration cap), breast_cancer_diagnostic
1.42x (77 vs 109 ms), spambase[:1500] 0.75x; 0.43x in total, same objectives to 1e-9.
Kelley's cutting planes (14), which also pass ``alpha0``: 0.98-1.15x (their master problems
dominate). Before the engine shrank its working set, ABR took 1.0-5.7x libsvm's time with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np


class KernelProblem(Protocol):
    """What (4) is evaluated on: an :class:`~.problem.SMKLProblem` (its dictionary of base
    kernels, labels, C, lambda, q and k0)."""

    dictionary: Any
    y: np.ndarray
    C: float
    lam: float
    k0: int

    @property
    def q(self) -> int: ...

__all__ = ["Evaluation", "evaluate", "smkl_objective", "solve_alpha"]

SVM_TOL = 1e-6
SVM_MAX_ITER = 1_000_000
FINAL_GAP = 1e-8   # relative duality gap of the SVM behind a result's value of (4)
REFINE_ITER = 100_000   # engine iterations per refinement round (C = 1e6 on wine took 689)


def solve_alpha(K: np.ndarray, y: np.ndarray, C: float, alpha0: np.ndarray | None = None,
                accurate: bool = False, deadline: Any = None
                ) -> tuple[np.ndarray, float, float, float]:
    """The alpha-subproblem (7): SVM dual on a precomputed kernel.

    Returns (alpha, b, dual value, primal value P(alpha, b*)): max of (7) lies between the two
    (weak duality). ``alpha0``: warm start of the SMO engine (see the module docstring).
    ``accurate``: the solve goes on, tolerance by tolerance, until the two values agree to
    ``FINAL_GAP`` relative (a result's value: at C = 1e6 the iteration cap left 3.568 against
    a dual value of 2.2917, wine, linear kernel). ``deadline`` caps the solve (libsvm's
    iterations by the time left, the engine by its clock); either way the pair brackets (7).
    """
    import warnings

    from sparsekm.engines.smo import SVMDualOptions, solve_svm_dual

    limit = None if deadline is None else deadline.cap(None)
    opts = SVMDualOptions(tol=SVM_TOL, check_input=False, max_iter=SVM_MAX_ITER,
                          time_limit=limit)
    if accurate:
        opts = SVMDualOptions(tol=SVM_TOL, check_input=False, gap_tol=FINAL_GAP, refine=8,
                              max_iter=REFINE_ITER, time_limit=limit)
    with warnings.catch_warnings():  # an ill-conditioned K (huge unscaled polynomials) may
        warnings.simplefilter("ignore")  # hit the cap; the duality certificate still holds
        res = solve_svm_dual(K, y, C, alpha0=alpha0, options=opts)
    # solve_svm_dual minimizes D = 1/2 a'Qa - 1'a: (7) = -D, and its bound is -P
    return res.values["alpha"], float(res.values["b"]), -float(res.objective), \
        -float(res.bound)


@dataclass
class Evaluation:
    """(4) at ``beta``: ``value`` = dual value f(alpha, beta), ``upper`` = primal value
    P(alpha, b*) + lam||beta||^2 >= G(beta) (certified); ``d`` = (y o alpha)' K_i (y o alpha)."""

    beta: np.ndarray
    alpha: np.ndarray
    b: float
    value: float
    upper: float
    d: np.ndarray

    @property
    def support(self) -> list[int]:
        return [int(i) for i in np.flatnonzero(self.beta > 0)]


def evaluate(problem: KernelProblem, beta: np.ndarray, alpha0: np.ndarray | None = None,
             accurate: bool = False, deadline: Any = None) -> Evaluation:
    """Solve the SVM (7) on K(beta) and evaluate (4) and its certified upper value
    (``accurate``, ``deadline``: see :func:`solve_alpha`)."""
    beta = np.asarray(beta, dtype=float)
    K = problem.dictionary.combine(beta)
    alpha, b, dual, primal = solve_alpha(K, problem.y, problem.C, alpha0, accurate, deadline)
    ridge = problem.lam * float(beta @ beta)
    d = problem.dictionary.quad_forms(alpha * problem.y)
    return Evaluation(beta, alpha, b, dual + ridge, max(primal, dual) + ridge, d)


def smkl_objective(problem: KernelProblem, beta: np.ndarray) -> float:
    """Paper B, eq. (4) at ``beta``: max over alpha of the SVM dual on K(beta) + lam||beta||^2.

    ``beta`` must lie in the k0-sparse simplex (checked).
    """
    beta = np.asarray(beta, dtype=float)
    if beta.shape != (problem.q,):
        raise ValueError(f"beta must have q={problem.q} weights, got shape {beta.shape}")
    if beta.min() < -1e-12 or abs(beta.sum() - 1) > 1e-8:
        raise ValueError("beta must be nonnegative and sum to 1")
    if int((beta > 0).sum()) > problem.k0:
        raise ValueError(f"beta has {(beta > 0).sum()} nonzeros > k0={problem.k0}")
    return evaluate(problem, beta).value
