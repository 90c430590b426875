"""The alpha-subproblem of Paper A and its cached evaluation over masks.

For a fixed mask ``beta`` the MINLP (4) is the dual SVM (3) with the masked kernel ``K_beta``:
``UB(beta) = min_alpha f(alpha, beta)``. :class:`Evaluator` caches it per mask, evaluates
1-swap neighbours through :class:`sparsekm.kernels.MaskedKernel` in O(m^2) and keeps the best
mask met, so every method of Paper A shares one bookkeeping.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from sparsekm.models.fs_kernel import FSKernelProblem
from sparsekm.parallel import single_blas
from sparsekm.solvers import Result, SolverPlan

from .recipe import mask_key
from .search import improves

__all__ = ["Evaluator", "alpha_subproblem", "certified_value", "mask_key", "mask_result",
           "single_blas"]

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


FINAL_GAP = 1e-9      # relative SVM duality gap the returned mask's value is refined to
FINAL_WORK = 5e8      # m x SMO iterations that refinement may take (a deterministic cap)
LOOSE_GAP = 1e-6      # a returned mask's SVM gap above this is reported in the message


def certified_value(problem: FSKernelProblem, beta: np.ndarray, alpha: np.ndarray,
                    deadline: Any = None) -> tuple[float, float, np.ndarray, float | None]:
    """``(value, other side, alpha, b)`` of a mask: its SVM's duality interval, refined.

    The SVM at a mask is solved to a tolerance, so ``v(beta) = min_alpha f(alpha, beta)`` is
    known only within ``[-P(w(alpha), b*), D(alpha)]`` (weak duality at the feasible alpha).
    The value a result reports must lie on its certified side whatever the solver's accuracy:
    in the paper sense (min) ``D(alpha) = f(alpha, beta)``, the value of the point (beta,
    alpha); in the margin sense (max) ``-P``, a value the mask certainly reaches. The interval
    is first narrowed to a relative width ``FINAL_GAP`` by the SMO engine warm-started at
    ``alpha`` (at most ``FINAL_WORK / m`` iterations, and ``deadline``), so on well-posed data
    the two sides agree to 1e-9. ``b``: the intercept at which ``P`` is taken (the refined
    SVM's, else the best one for ``alpha``).
    """
    from sparsekm.engines.smo import SVMDualOptions, solve_svm_dual, svm_duality
    from sparsekm.kernels import kernel_matrix

    K = kernel_matrix(problem.X[:, beta], **problem.kernel_params())
    y, C = problem.y, problem.C
    primal, low, b_star = svm_duality(K, y, alpha, C)
    upper, b = -low, None
    if upper + primal > FINAL_GAP * max(abs(upper), 1e-12) and not (
            deadline is not None and deadline.expired()):
        with warnings.catch_warnings():   # the iteration cap: the interval says how far
            warnings.simplefilter("ignore")
            res = solve_svm_dual(K, y, C, alpha0=alpha, options=SVMDualOptions(
                tol=1e-9, check_input=False, gap_tol=FINAL_GAP, refine=0,
                max_iter=max(1000, int(FINAL_WORK / problem.m)),
                time_limit=None if deadline is None else deadline.cap(None)))
        if res.bound is not None and -res.bound < primal:
            alpha, b, upper, primal = res.alpha, float(res.b), float(res.objective), -res.bound
    b = b_star if b is None else b
    if problem.sense == "paper":
        return upper, -primal, alpha, b
    return -primal, upper, alpha, b


def mask_result(problem: FSKernelProblem, beta: np.ndarray, objective: float,
                alpha: np.ndarray, b: float | None, method: str, deadline: Any = None
                ) -> Result:
    """A mask and its SVM as the one :class:`Result` (sense: min for paper, max for margin).

    ``objective`` is the search's value of the mask (the solver's ``D(alpha)``, in
    ``extra["search_objective"]``); the result reports the mask's certified value instead
    (:func:`certified_value`), so that a bound compared with it certifies whatever the SVM
    solver's accuracy. ``b``: the solver's intercept, kept unless the SVM was refined (None:
    the refined or best intercept).
    """
    before = alpha
    value, other, alpha, b_ref = certified_value(problem, beta, alpha, deadline)
    b = b_ref if b is None or alpha is not before else b
    res = Result(objective=float(value), method=method,
                 sense="min" if problem.sense == "paper" else "max",
                 problem="fs-kernel", solver="libsvm", selected=np.flatnonzero(beta).tolist(),
                 values={"beta": beta.copy(), "alpha": alpha, "b": float(b)})
    width = abs(other - value) / max(abs(value), 1e-12)
    if width > LOOSE_GAP:
        top = float(np.max(np.abs(problem.X[:, beta]))) if problem.m else 0.0
        res.message = (f"the SVM of the returned mask is solved only to a relative duality gap "
                       f"of {width:.1e} (its value lies in [{min(value, other):.6g}, "
                       f"{max(value, other):.6g}]; the result reports the certified side); "
                       f"features up to {top:.3g} in size make the kernel ill-conditioned: "
                       "standardise them")
    res.extra["search_objective"] = float(objective)
    return res


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

