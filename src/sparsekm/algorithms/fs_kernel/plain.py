"""What a local search of Paper A asks of its masks, and the plain way to answer it.

LS (Algorithm 1), LS* (Algorithm 2) and DecSubLight* (Algorithm 3) touch masks in batches:
a whole 1-swap neighbourhood ``N^1(beta)`` (best-improvement step), a sample of ``N^2``
(first argmin), a pool of masks (evaluate all, later take the explored minimum). Every mask
value is ``UB(beta) = min_alpha f(alpha, beta)`` -- the alpha-subproblem (3), solved by libsvm
at tolerance 1e-5 on the kernel of the mask's recipe (:mod:`.recipe`) at its first visit and
cached -- and every search keeps the best mask met (first strict minimum in visit order).

:class:`PlainEvaluator` answers by solving every mask, in order (the *plain* path);
:class:`~.screened.ScreenedEvaluator` gives the same answers while solving only the masks it must.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np

from sparsekm.models.fs_kernel import FSKernelProblem
from sparsekm.solvers import Result, SolverPlan, Termination

from .evaluator import alpha_subproblem, mask_result
from .recipe import Recipe, RecipeKernels, changes, mask_key
from .search import improves

__all__ = ["PlainEvaluator"]


class PlainEvaluator:
    """The plain path: every visited mask is solved by libsvm, in the searches' order."""

    fast = False

    def __init__(self, problem: FSKernelProblem, plan: SolverPlan | None = None) -> None:
        self.p = problem
        self.plan = (plan or SolverPlan()).start()
        self.rk = RecipeKernels(problem)
        self.cache: dict[bytes, float] = {}
        self.alphas: dict[bytes, tuple[np.ndarray, float]] = {}
        self.n_evals = 0
        self.best_score = math.inf
        self.best: tuple[np.ndarray, np.ndarray, float] | None = None  # beta, alpha, b
        self.stats: Counter[str] = Counter()

    # ------------------------------------------------------------------ basics
    def out_of_time(self) -> bool:
        return self.plan.clock.expired()

    def score(self, obj: float) -> float:
        """``sign * objective`` (smaller is better in both senses)."""
        return self.p.sign * obj

    def solve(self, recipe: Recipe) -> tuple[np.ndarray, float, float]:
        """libsvm on the recipe's kernel: ``(alpha, b, objective)`` (the plain value)."""
        self.stats["exact_solves"] += 1
        return alpha_subproblem(self.rk.matrix(recipe), self.p.y, self.p.C,
                                deadline=self.plan.clock)

    def record(self, key: bytes, beta: np.ndarray, obj: float, alpha: np.ndarray | None,
               b: float) -> None:
        """A first visit: count it, cache it, keep it if strictly best so far."""
        self.n_evals += 1
        self.cache[key] = obj
        if self.score(obj) < self.best_score:
            assert alpha is not None
            self.best_score, self.best = self.score(obj), (beta.copy(), alpha, b)

    def value(self, key: bytes) -> float:
        """The plain value of a visited mask."""
        return self.cache[key]

    # ------------------------------------------------------------------ single masks
    def eval_mask(self, beta: np.ndarray) -> float:
        """``UB(beta)`` (cached; recipe: the mask itself)."""
        key = mask_key(beta)
        if key in self.cache:
            return self.cache[key]
        alpha, b, obj = self.solve((key, (), ()))
        self.alphas[key] = (alpha, b)
        self.record(key, beta, obj, alpha, b)
        return obj

    def alpha_of(self, key: bytes) -> np.ndarray:
        """The SVM solution of a visited mask (re-solved from its recipe if not kept)."""
        if key not in self.alphas:
            alpha, b, _ = self.solve(self.recipe_of(key))
            self.alphas[key] = (alpha, b)
        return self.alphas[key][0]

    def recipe_of(self, key: bytes) -> Recipe:
        return (key, (), ())

    def solve_mask(self, beta: np.ndarray) -> tuple[np.ndarray, float, float]:
        """``(alpha, b, objective)`` at ``beta`` from its own recipe (always solves)."""
        return self.solve((mask_key(beta), (), ()))

    # ------------------------------------------------------------------ batches
    def descend_step(self, beta: np.ndarray, cur: float
                     ) -> tuple[tuple[int, int] | None, float, bool]:
        """One best-improvement step over ``N^1(beta)`` (Algorithm 1): the last strictly
        improving swap in (j_out, j_in) order, the new objective, and False on the time
        limit (then the best swap of the rows scanned)."""
        kb = mask_key(beta)
        best_s, move = self.score(cur), None
        sel, uns = np.flatnonzero(beta), np.flatnonzero(~beta)
        for jo in sel:
            for ji in uns:
                nb = beta.copy()
                nb[jo], nb[ji] = False, True
                key = mask_key(nb)
                v = self.cache.get(key)
                if v is None:
                    alpha, b, v = self.solve((kb, (int(ji),), (int(jo),)))
                    self.record(key, nb, v, alpha, b)
                if improves(self.score(v), best_s):
                    best_s, move = self.score(v), (int(jo), int(ji))
            if self.out_of_time():
                return move, self.p.sign * best_s, False
        return move, self.p.sign * best_s, True

    def sample_argmin(self, center: np.ndarray, masks: list[np.ndarray]
                      ) -> tuple[int | None, float, bool]:
        """First strict minimum of ``score`` over ``masks`` (a sample of ``N^2(center)``,
        recipes relative to ``center``); (index, its score, timed out)."""
        kc = mask_key(center)
        best_i, best_s = None, math.inf
        for i, c in enumerate(masks):
            key = mask_key(c)
            v = self.cache.get(key)
            if v is None:
                alpha, b, v = self.solve((kc, *changes(c, center)))
                self.record(key, c, v, alpha, b)
            if self.score(v) < best_s:
                best_i, best_s = i, self.score(v)
            if self.out_of_time():
                return best_i, best_s, True
        return best_i, best_s, False

    def evaluate_pool(self, masks: list[np.ndarray], base: np.ndarray,
                      alpha0: np.ndarray) -> int:
        """Solve the masks of a pool in order (first visits; recipe: the mask itself) until
        the time limit; returns how many were visited. ``base`` (a mask near the pool) and
        ``alpha0`` (a feasible alpha) are hints for fast paths."""
        for k, c in enumerate(masks):
            key = mask_key(c)
            alpha, b, v = self.solve((key, (), ()))
            self.alphas[key] = (alpha, b)
            self.record(key, c, v, alpha, b)
            if self.out_of_time():
                return k + 1
        return len(masks)

    def pick_min(self, keys: list[bytes]) -> bytes:
        """The explored key of least objective (ties: smaller key), Algorithm 3 step 10."""
        return min(keys, key=lambda k: (self.value(k), k))

    # ------------------------------------------------------------------ output
    def result(self, method: str, timed_out: bool = False, **extra: Any) -> Result:
        """The best mask visited as a :class:`Result`."""
        assert self.best is not None
        beta, alpha, b = self.best
        res = mask_result(self.p, beta, self.p.sign * self.best_score, alpha, b, method,
                          self.plan.clock)
        res.termination = Termination.TIME_LIMIT if timed_out else Termination.CONVERGED
        res.time_s = self.plan.clock.elapsed()
        res.extra = {"n_evals": self.n_evals, "fast": self.fast, **dict(self.stats), **extra}
        return res

    def close(self) -> None:
        """Release worker threads (fast paths)."""
