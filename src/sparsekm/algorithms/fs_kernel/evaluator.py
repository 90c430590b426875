"""The alpha-subproblem of Paper A and its cached evaluation over masks.

For a fixed mask ``beta`` the MINLP (4) is the dual SVM (3) with the masked kernel ``K_beta``:
``UB(beta) = min_alpha f(alpha, beta)``. :class:`Evaluator` caches it per mask, evaluates
1-swap neighbours through :class:`sparsekm.kernels.MaskedKernel` in O(m^2) and keeps the best
mask met, so every method of Paper A shares one bookkeeping.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sparsekm.models.fs_kernel import FSKernelProblem
from sparsekm.parallel import single_blas
from sparsekm.solvers import Result, SolverPlan

from .recipe import mask_key
from .search import improves

__all__ = ["Evaluator", "alpha_subproblem", "mask_key", "mask_result", "single_blas"]

SVM_TOL = 1e-5


def alpha_subproblem(K: np.ndarray, y: np.ndarray, C: float, tol: float = SVM_TOL,
                     deadline: Any = None) -> tuple[np.ndarray, float, float]:
    """Solve the dual SVM (3) for a fixed kernel ``K = K_beta`` (Paper A, alpha-subproblem).

    Returns ``(alpha, b, objective)`` with ``objective = 1/2 alpha'Q alpha - 1'alpha`` and
    ``Q = (y y') * K``, through :func:`sparsekm.engines.smo.solve_svm_dual` (libsvm SMO, the
    solver Paper A uses), within ``deadline`` (its iterations capped by the time left).
    """
    from sparsekm.engines.smo import SVMDualOptions, solve_svm_dual

    limit = None if deadline is None else deadline.cap(None)
    res = solve_svm_dual(K, y, C, options=SVMDualOptions(tol=tol, check_input=False,
                                                         time_limit=limit))
    return res.alpha, float(res.b), float(res.objective)


def mask_result(problem: FSKernelProblem, beta: np.ndarray, objective: float,
                alpha: np.ndarray, b: float, method: str) -> Result:
    """A mask and its SVM as the one :class:`Result` (sense: min for paper, max for margin)."""
    return Result(objective=float(objective), method=method,
                  sense="min" if problem.sense == "paper" else "max",
                  problem="fs-kernel", solver="libsvm", selected=np.flatnonzero(beta).tolist(),
                  values={"beta": beta.copy(), "alpha": alpha, "b": float(b)})


class Evaluator:
    """Cached ``UB(beta) = min_alpha f(alpha, beta)`` with O(m^2) masked-kernel neighbours.

    Holds one :class:`~sparsekm.kernels.MaskedKernel` at the current mask; ``eval_swap``
    evaluates ``beta - e_out + e_in`` with ``with_swap`` (one O(m^2) pass instead of an
    O(m^2 n) rebuild). The plan's clock is the shared time budget; ``incremental=False``
    rebuilds every kernel from scratch (only to measure the speed-up).
    """

    def __init__(self, problem: FSKernelProblem, plan: SolverPlan | None = None,
                 incremental: bool = True) -> None:
        self.p = problem
        self.plan = (plan or SolverPlan()).start()
        self.cache: dict[bytes, float] = {}
        self.n_evals = 0
        self.incremental = incremental
        self._mk: Any = None
        self.last_alpha: np.ndarray | None = None

    def out_of_time(self) -> bool:
        """True when the plan's time budget is spent."""
        return self.plan.clock.expired()

    def kernel(self, beta: np.ndarray) -> np.ndarray:
        """``K_beta`` (moves the internal masked kernel to ``beta``)."""
        if not self.incremental:
            from sparsekm.kernels import kernel_matrix

            return kernel_matrix(self.p.X[:, beta], **self.p.kernel_params())
        if self._mk is None:
            self._mk = self.p.masked_kernel(beta)
        else:
            self._mk.set_mask(beta)
        return self._mk.K

    def _record(self, beta: np.ndarray, K: np.ndarray) -> float:
        alpha, _, obj = alpha_subproblem(K, self.p.y, self.p.C, deadline=self.plan.clock)
        self.n_evals += 1
        self.cache[mask_key(beta)] = obj
        self.last_alpha = alpha
        return obj

    def eval_mask(self, beta: np.ndarray) -> float:
        """``min_alpha f(alpha, beta)`` (cached)."""
        hit = self.cache.get(mask_key(beta))
        return hit if hit is not None else self._record(beta, self.kernel(beta))

    def evaluate(self, beta: np.ndarray) -> tuple[float, np.ndarray]:
        """Solve (3) at ``beta`` (no cache short-cut); returns ``(objective, alpha)``."""
        obj = self._record(beta, self.kernel(beta))
        return obj, self.last_alpha

    def solve_mask(self, beta: np.ndarray) -> tuple[np.ndarray, float, float]:
        """``(alpha, b, objective)`` at ``beta`` (always solves (3))."""
        return alpha_subproblem(self.kernel(beta), self.p.y, self.p.C, deadline=self.plan.clock)

    def eval_swap(self, beta: np.ndarray, j_out: int, j_in: int) -> float:
        """Objective at ``beta - e_{j_out} + e_{j_in}`` through one O(m^2) kernel pass."""
        nb = beta.copy()
        nb[j_out], nb[j_in] = False, True
        hit = self.cache.get(mask_key(nb))
        if hit is not None:
            return hit
        if not self.incremental:
            return self._record(nb, self.kernel(nb))
        self.kernel(beta)
        return self._record(nb, self._mk.with_swap(int(j_out), int(j_in)))

    def descend_step(self, beta: np.ndarray, cur: float
                     ) -> tuple[tuple[int, int] | None, float, bool]:
        """One best-improvement step over ``N^1(beta)`` with :meth:`eval_swap` (the same
        contract as :meth:`.plain.PlainEvaluator.descend_step`; kept for the kernel benchmark)."""
        best_s, move = self.score(cur), None
        for jo in np.flatnonzero(beta):
            for ji in np.flatnonzero(~beta):
                v = self.eval_swap(beta, int(jo), int(ji))
                if improves(self.score(v), best_s):
                    best_s, move = self.score(v), (int(jo), int(ji))
            if self.out_of_time():
                return move, self.p.sign * best_s, False
        return move, self.p.sign * best_s, True

    def score(self, obj: float) -> float:
        """``sign * objective`` (smaller is better in both senses)."""
        return self.p.sign * obj

