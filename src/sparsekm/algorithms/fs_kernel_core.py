"""Shared core of kernel-SVM feature selection with binary masks (Paper A).

Paper A (D'Onofrio, Faenza, Palagi, "Combinatorial approaches for embedded feature selection in
nonlinear SVMs"), Section 2.2: the MINLP (4) is, for a fixed mask ``beta``, the dual SVM (3)
with the masked kernel ``k_beta``. This module holds the problem data (:class:`FSKernelProblem`),
the alpha-subproblem (3) and an :class:`Evaluator` that caches ``min_alpha f(alpha, beta)`` per
mask and evaluates 1-swap neighbours through :class:`sparsekm.kernels.MaskedKernel` in O(m^2).

Objective sense
---------------
``sense="paper"``: exactly (4), ``min_beta min_alpha f`` -- the mask with the most negative
dual optimum, i.e. the *worst* regularized fit (needed to reproduce Paper A's tables).
``sense="margin"``: ``max_beta min_alpha f`` -- the margin-maximizing direction of Guyon's RFE
and Papers B and E; it selects better masks (measured, see the estimator docstring).
Internally every algorithm minimizes ``score = sign * objective`` with ``sign = +1`` (paper)
or ``-1`` (margin).
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from sparsekm.kernels import mask_from_indices

__all__ = [
    "SENSES",
    "Evaluator",
    "FSKernelProblem",
    "FSKernelResult",
    "alpha_subproblem",
    "mask_from_indices",
    "random_masks",
]

SENSES = ("paper", "margin")
_T = TypeVar("_T", bound=Callable[..., Any])


def single_blas(fun: _T) -> _T:
    """Run ``fun`` with one BLAS thread.

    The hot loops do many small products (an m x B times B x m product in
    ``MaskedKernel.refresh``); with two OpenBLAS threads on a loaded 2-core machine such a
    product took 8 ms instead of 0.04 ms (measured, m = 297, B = 6).
    """

    @functools.wraps(fun)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1, user_api="blas"):
            return fun(*args, **kwargs)

    return wrapper  # type: ignore[return-value]

_KERNELS = ("poly", "rbf")


@dataclass
class FSKernelProblem:
    """Data and parameters of Paper A's problem (4).

    Parameters
    ----------
    X : array (m, n)
        Training samples ``x^i``.
    y : array (m,)
        Labels ``y^i`` in {-1, +1}.
    kernel : {"poly", "rbf"}
        Polynomial ``(gamma x'z + c)^d`` or Gaussian ``exp(-gamma ||x - z||^2)`` (Section 2.1).
    B : int or None
        Number of selected features ``sum_j beta_j = B``; ``None`` means ``floor(n / 2)``
        (Section 5).
    C, gamma, degree, coef0 : float, float, int, float
        ``C`` of (3) (default 10), ``gamma`` (0.1), ``d`` and ``c`` of the polynomial kernel.
    sense : {"paper", "margin"}
        See the module docstring.
    """

    X: np.ndarray
    y: np.ndarray
    kernel: str = "poly"
    B: int | None = None
    C: float = 10.0
    gamma: float = 0.1
    degree: int = 2
    coef0: float = 1.0
    sense: str = "paper"

    def __post_init__(self) -> None:
        X = np.asarray(self.X, dtype=float)
        if X.ndim != 2 or X.shape[0] < 2 or X.shape[1] < 1:
            raise ValueError(f"X must be a 2-D array with >= 2 rows and >= 1 column, got "
                             f"shape {X.shape}")
        if not np.all(np.isfinite(X)):
            raise ValueError("X contains NaN or infinite values; impute or drop them first")
        y = np.asarray(self.y, dtype=float).ravel()
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"y has {y.shape[0]} labels for {X.shape[0]} rows of X")
        if not np.all(np.isin(y, (-1.0, 1.0))):
            raise ValueError("y must take values in {-1, +1}; map your labels first "
                             "(sparsekm.data.as_dataset does this)")
        if np.unique(y).size < 2:
            raise ValueError("y has one class only; feature selection for an SVM needs both "
                             "classes in the training rows")
        n = X.shape[1]
        B = max(1, n // 2) if self.B is None else self.B
        if isinstance(B, bool) or int(B) != B:
            raise ValueError(f"B must be an integer, got {self.B!r}")
        B = int(B)
        if B < 1:
            raise ValueError(f"B={B} < 1: select at least one feature (B >= 1)")
        if n < B:
            raise ValueError(f"B={B} > n={n}: choose B <= n (the number of features)")
        kern = {"polynomial": "poly", "gaussian": "rbf"}.get(self.kernel, self.kernel)
        if kern not in _KERNELS:
            raise ValueError(f"kernel must be 'poly' or 'rbf' (Paper A), got {self.kernel!r}")
        if not self.C > 0:
            raise ValueError(f"C must be > 0, got {self.C}")
        if not self.gamma > 0:
            raise ValueError(f"gamma must be > 0, got {self.gamma}")
        if kern == "poly" and (int(self.degree) != self.degree or self.degree < 1):
            raise ValueError(f"degree must be an integer >= 1, got {self.degree}")
        if kern == "poly" and self.coef0 < 0:
            raise ValueError(f"coef0 must be >= 0 (Paper A: c >= 0), got {self.coef0}")
        if self.sense not in SENSES:
            raise ValueError(f"sense must be one of {SENSES}, got {self.sense!r}")
        self.X, self.y, self.B, self.kernel = X, y, B, kern
        self.degree = int(self.degree)
        self.C, self.gamma, self.coef0 = float(self.C), float(self.gamma), float(self.coef0)

    @property
    def m(self) -> int:
        """Number of samples."""
        return int(self.X.shape[0])

    @property
    def n(self) -> int:
        """Number of features."""
        return int(self.X.shape[1])

    @property
    def sign(self) -> float:
        """``+1`` for the paper sense (minimize), ``-1`` for the margin sense (maximize)."""
        return 1.0 if self.sense == "paper" else -1.0

    def masked_kernel(self, mask: Any = None) -> Any:
        """A :class:`sparsekm.kernels.MaskedKernel` ``K_beta`` for this problem."""
        from sparsekm.kernels import MaskedKernel

        return MaskedKernel(self.X, self.kernel, gamma=self.gamma, degree=self.degree,
                            coef0=self.coef0, mask=mask)

    def kernel_params(self) -> dict[str, Any]:
        """Kernel keyword arguments for :func:`sparsekm.kernels.kernel_matrix`."""
        return {"kernel": self.kernel, "gamma": self.gamma, "degree": self.degree,
                "coef0": self.coef0}


@dataclass
class FSKernelResult:
    """Outcome of a feature-selection method for Paper A's problem.

    ``objective`` is ``min_alpha`` of the dual (3) at ``beta`` (a negative number);
    ``alpha``, ``b`` the SVM at that mask; ``status`` one of "optimal", "local_optimum",
    "heuristic", "time_limit", "feasible".
    """

    beta: np.ndarray
    objective: float
    alpha: np.ndarray
    b: float
    method: str
    sense: str
    status: str = "heuristic"
    time_s: float = 0.0
    n_evals: int = 0
    lower_bound: float | None = None
    gap: float | None = None
    history: list[float] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def selected(self) -> np.ndarray:
        """Sorted indices ``S = {j : beta_j = 1}``."""
        return np.flatnonzero(self.beta)


# -------------------------------------------------------------------------------------------
# the alpha-subproblem (3)
# -------------------------------------------------------------------------------------------
_SVM_TOL = 1e-5


def alpha_subproblem(K: np.ndarray, y: np.ndarray, C: float, tol: float = _SVM_TOL
                     ) -> tuple[np.ndarray, float, float]:
    """Solve the dual SVM (3) for a fixed kernel ``K = K_beta`` (Paper A, alpha-subproblem).

    Returns ``(alpha, b, objective)`` with ``objective = 1/2 alpha'Q alpha - 1'alpha`` and
    ``Q = (y y') * K``, through :func:`sparsekm.solvers.smo.solve_svm_dual` (libsvm
    SMO, the solver Paper A uses). libsvm has no warm start, so none is used.
    """
    from sparsekm.solvers.smo import solve_svm_dual

    res = solve_svm_dual(K, y, C, tol=tol, check_input=False)
    return res.alpha, float(res.b), float(res.objective)


def mask_key(beta: np.ndarray) -> bytes:
    """Hashable key of a mask."""
    return np.packbits(beta).tobytes()


class Evaluator:
    """Cached ``UB(beta) = min_alpha f(alpha, beta)`` with O(m^2) masked-kernel neighbours.

    Holds one :class:`~sparsekm.kernels.MaskedKernel` at the current mask; ``eval_swap``
    evaluates ``beta - e_out + e_in`` with ``with_swap`` (one O(m^2) pass instead of an
    O(m^2 n) rebuild), ``move``/``eval_mask`` move the state incrementally.

    Parameters
    ----------
    problem : FSKernelProblem
    time_limit : float or None
        Wall-clock budget in seconds shared by the algorithm using this evaluator.
    incremental : bool
        ``False`` rebuilds every kernel from scratch (only to measure the speed-up).
    """

    def __init__(self, problem: FSKernelProblem, time_limit: float | None = None,
                 incremental: bool = True) -> None:
        self.p = problem
        self.cache: dict[bytes, float] = {}
        self.n_evals = 0
        self.t0 = time.perf_counter()
        self.time_limit = time_limit
        self.incremental = incremental
        self._mk: Any = None
        self.best_score = math.inf
        self.best_beta: np.ndarray | None = None
        self.best_alpha: np.ndarray | None = None
        self.best_b = 0.0

    # -- time ------------------------------------------------------------------------------
    def elapsed(self) -> float:
        """Seconds since construction."""
        return time.perf_counter() - self.t0

    def out_of_time(self) -> bool:
        """True when the time limit is exhausted."""
        return self.time_limit is not None and self.elapsed() >= self.time_limit

    # -- kernels ----------------------------------------------------------------------------
    def _kernel_state(self, beta: np.ndarray) -> Any:
        if self._mk is None:
            self._mk = self.p.masked_kernel(beta)
        else:
            self._mk.set_mask(beta)
        return self._mk

    def kernel(self, beta: np.ndarray) -> np.ndarray:
        """``K_beta`` (moves the internal state to ``beta``)."""
        if not self.incremental:
            from sparsekm.kernels import kernel_matrix

            Xs = self.p.X[:, beta]
            return kernel_matrix(Xs, **self.p.kernel_params())
        return self._kernel_state(beta).K

    # -- evaluation ----------------------------------------------------------------------------
    def _record(self, beta: np.ndarray, K: np.ndarray) -> float:
        alpha, b, obj = alpha_subproblem(K, self.p.y, self.p.C)
        self.n_evals += 1
        self.cache[mask_key(beta)] = obj
        score = self.p.sign * obj
        if score < self.best_score:
            self.best_score, self.best_beta = score, beta.copy()
            self.best_alpha, self.best_b = alpha, b
        self._last_alpha = alpha
        return obj

    def cached(self, beta: np.ndarray) -> float | None:
        """The cached objective of ``beta`` or None."""
        return self.cache.get(mask_key(beta))

    def eval_mask(self, beta: np.ndarray) -> float:
        """``min_alpha f(alpha, beta)`` (cached)."""
        hit = self.cached(beta)
        if hit is not None:
            return hit
        return self._record(beta, self.kernel(beta))

    def evaluate(self, beta: np.ndarray) -> tuple[float, np.ndarray]:
        """Solve (3) at ``beta`` (no cache short-cut); returns ``(objective, alpha)``."""
        obj = self._record(beta, self.kernel(beta))
        return obj, self._last_alpha

    def solve_mask(self, beta: np.ndarray) -> tuple[np.ndarray, float, float]:
        """``(alpha, b, objective)`` at ``beta`` (always solves (3))."""
        alpha, b, obj = alpha_subproblem(self.kernel(beta), self.p.y, self.p.C)
        return alpha, b, obj

    def eval_swap(self, beta: np.ndarray, j_out: int, j_in: int) -> float:
        """Objective at ``beta - e_{j_out} + e_{j_in}`` through one O(m^2) kernel pass."""
        nb = beta.copy()
        nb[j_out], nb[j_in] = False, True
        hit = self.cached(nb)
        if hit is not None:
            return hit
        if not self.incremental:
            return self._record(nb, self.kernel(nb))
        mk = self._kernel_state(beta)
        return self._record(nb, mk.with_swap(int(j_out), int(j_in)))

    def score(self, obj: float) -> float:
        """``sign * objective`` (smaller is better in both senses)."""
        return self.p.sign * obj

    def result(self, method: str, status: str, start_time: float | None = None,
               **extra: Any) -> FSKernelResult:
        """An :class:`FSKernelResult` for the best mask evaluated so far."""
        assert self.best_beta is not None
        return FSKernelResult(
            beta=self.best_beta.copy(), objective=self.p.sign * self.best_score,
            alpha=self.best_alpha, b=self.best_b, method=method, sense=self.p.sense,
            status=status, time_s=self.elapsed() if start_time is None
            else time.perf_counter() - start_time, n_evals=self.n_evals, extra=extra)


def random_masks(n: int, B: int, count: int, seed: int | None) -> list[np.ndarray]:
    """``count`` seeded uniformly random masks with ``B`` ones (multistart initial ``beta_in``)."""
    rng = np.random.default_rng(seed)
    return [mask_from_indices(rng.choice(n, size=B, replace=False), n) for _ in range(count)]
