"""The fast path: the plain path's answers, solving only the masks that decide them.

Paper A's searches compare ``UB(beta') = min_alpha f(alpha, beta')`` (libsvm at tolerance
``tol = 1e-5``, the plain value) across a batch of masks. Every mask of a batch gets a
certified interval ``[lo, hi]`` on its plain *score* (``sign * UB``):

* from the centre's ``alpha_cur`` (feasible for every mask): the fixed-alpha value
  ``f(alpha_cur, beta') >= v*(beta')`` and the weak-duality bound ``<= v*(beta')``, for the
  whole batch from support-vector rows (:mod:`.refine`);
* tightened by the SMO engine warm-started at ``alpha_cur``, stopped by ``smo_decide`` as soon
  as the interval settles the comparison the search needs;
* widened by libsvm's own error: its stop rule ``m(a) - M(a) <= tol`` bounds its duality gap
  by ``m C tol`` (each of the m hinge / complementarity terms is at most ``C tol``), so the
  plain value lies in ``[v*, v* + m C tol]``; plus a 1e-9 relative round-off margin.

A mask whose interval cannot settle the comparison is solved *exactly as the plain path
does* (same recipe, hence the same kernel bits, same libsvm call): decisions are taken on
exact values with the plain path's own tests (:func:`.search.improves`, strict ``<``), and on
intervals only when every value inside the interval gives the same decision. Which masks are
"decided" is what :mod:`docs/fs_kernel_fast.md` proves; the result does not depend on the
order in which masks are refined or on the number of threads.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from sparsekm.models.fs_kernel import FSKernelProblem
from sparsekm.solvers import SolverPlan
from sparsekm.solvers.smo import ABOVE, BELOW

from .batch import Batch
from .evaluator import SVM_TOL, alpha_subproblem, mask_key
from .path import PathEvaluator
from .recipe import Recipe, changes, unpack
from .refine import Refiner, refine_many
from .search import REL_TOL

__all__ = ["FastEvaluator"]

SMO_CAP = 1000  # SMO iterations per refinement before falling back to libsvm
Need = Callable[[Batch], tuple[np.ndarray, np.ndarray]]


@dataclass
class Context:
    """Where a batch's bounds come from: a base mask, its aggregate and a feasible alpha."""

    key: bytes
    mask: np.ndarray
    S: np.ndarray
    alpha: np.ndarray
    sv: np.ndarray


class FastEvaluator(PathEvaluator):
    """Same answers as :class:`PathEvaluator`; solves only the masks that decide them."""

    fast = True

    def __init__(self, problem: FSKernelProblem, plan: SolverPlan | None = None,
                 threads: int | None = None) -> None:
        super().__init__(problem, plan)
        p = problem
        self.eps = p.m * p.C * SVM_TOL  # libsvm's certified suboptimality at tol
        self.pending: dict[bytes, tuple[float, float, Recipe]] = {}
        self.recipes: dict[bytes, Recipe] = {}
        self.workers = max(1, (os.cpu_count() or 1) if threads in (None, 0, -1) else threads)
        self._pool = ThreadPoolExecutor(self.workers) if self.workers > 1 else None
        self.refiner = Refiner(p.m, min(p.m, 2000))
        self._hint: Context | None = None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def _map(self, fn: Callable, items: list) -> list:
        if self._pool is None or len(items) <= 1:
            return [fn(x) for x in items]
        return list(self._pool.map(fn, items))

    # ------------------------------------------------------------------ values
    def recipe_of(self, key: bytes) -> Recipe:
        return self.recipes.get(key, (key, (), ()))

    def value(self, key: bytes) -> float:
        if key not in self.cache:
            self._exact_key(key)
        return self.cache[key]

    def _exact_key(self, key: bytes) -> float:
        alpha, b, obj = self.solve(self.recipe_of(key))
        self.alphas[key] = (alpha, b)
        self.cache[key] = obj
        self.pending.pop(key, None)
        return obj

    def eval_mask(self, beta: np.ndarray) -> float:
        key = mask_key(beta)
        if key in self.pending:
            return self._exact_key(key)
        return super().eval_mask(beta)

    # ------------------------------------------------------------------ intervals
    def context(self, base: np.ndarray, alpha: np.ndarray | None = None) -> Context:
        key = mask_key(base)
        if alpha is None:
            alpha = self.alpha_of(key)
        return Context(key, base, self.rk.base(key, base), alpha,
                       np.flatnonzero(alpha > 0).astype(np.int64))

    def _refine(self, b: Batch, ctx: Context, todo: np.ndarray, T: np.ndarray | None,
                max_iter: int) -> None:
        """:func:`refine_many` on the masks ``todo`` (interleaved over the threads; each
        thread stops at its first hopeless mask); tightens their intervals."""
        p = self.p
        if T is None:
            lo_thr, hi_thr = np.full(todo.size, -math.inf), np.full(todo.size, math.inf)
            stop = 0
        else:
            slack = 2 * REL_TOL * (1.0 + np.abs(T))
            if p.sign > 0:  # settled when the lower bound rises above T (ABOVE)
                lo_thr, hi_thr, stop = T - self.eps - slack, T + slack, BELOW
            else:  # settled when the fixed-alpha value falls below -T - eps (BELOW)
                lo_thr, hi_thr, stop = -T - self.eps - slack, -T + slack, ABOVE
        f, lb, its = b.f, b.lb, b.iters
        done = np.zeros(todo.size, dtype=bool)

        centre = (ctx.S, self.rk.XT, p.y, ctx.alpha, ctx.sv)
        ctl = np.array([p.C, max_iter, SVM_TOL, float(p.sign > 0), stop], dtype=np.float64)
        kpar = self.rk.kpar(0, 0)

        def run(k: int) -> None:
            part = np.arange(k, todo.size, self.workers)
            batch = (b.add, b.rem, b.grads, todo[part], lo_thr[part], hi_thr[part])
            n = refine_many(centre, kpar, batch, ctl, self.refiner.buffers(), (f, lb, its))
            done[part[:n]] = True

        its[todo] = 0.0
        self._map(run, list(range(min(self.workers, todo.size))))
        idx = todo[done]
        slack = REL_TOL * (1.0 + np.abs(f[idx]))
        if p.sign > 0:
            lo, hi = lb[idx] - slack, f[idx] + self.eps + slack
        else:
            lo, hi = -(f[idx] + self.eps + slack), -(lb[idx] - slack)
        b.lo[idx] = np.maximum(b.lo[idx], lo)
        b.hi[idx] = np.minimum(b.hi[idx], hi)
        if T is None:
            b.pred[idx] = p.sign * f[idx]
        else:
            b.refined[idx] = True
            self.stats["smo_runs"] += int(idx.size)
            self.stats["smo_iterations"] += int(its[idx].sum())

    def _bounds(self, b: Batch, ctx: Context) -> None:
        """Fixed-alpha bounds (and the predictor ``sign f(alpha, beta')``) of every mask not
        known exactly."""
        b.set_changes(ctx.mask)
        b.grads = np.full((len(b), self.p.m), np.nan)
        b.f, b.lb, b.iters = np.zeros(len(b)), np.zeros(len(b)), np.zeros(len(b))
        todo = np.flatnonzero(~b.is_exact)
        if todo.size:
            self._refine(b, ctx, todo, None, 0)
            self.stats["bounded"] += int(todo.size)

    def _exact(self, b: Batch, i: int) -> None:
        alpha, bias, obj = alpha_subproblem(self.rk.matrix(b.recipes[i]), self.p.y, self.p.C)
        b.set_exact(i, self.score(obj))
        self.alphas[b.keys[i]] = (alpha, bias)

    def _resolve(self, b: Batch, ctx: Context, need: Need) -> bool:
        """Settle what ``need`` lists: masks that cannot be settled by bounds (already refined,
        or hopeless) are solved exactly, ``workers`` at a time; the others are refined by
        warm-started SMO, most promising first. True if the time limit stopped it."""
        while True:
            idx, T = need(b)
            if idx.size == 0:
                return False
            if self.out_of_time():
                return True
            direct = b.refined[idx] | (b.hi[idx] < T) | ~np.isfinite(T)
            if direct.any():
                ex = idx[direct][:self.workers].tolist()
                self._map(lambda i: self._exact(b, i), ex)
                self.stats["exact_solves"] += len(ex)
            else:
                self._refine(b, ctx, idx, T, SMO_CAP)

    # ------------------------------------------------------------------ batch bookkeeping
    def _batch(self, masks: list[np.ndarray], recipes: list[Recipe]) -> Batch:
        n = len(masks)
        keys = [mask_key(c) for c in masks]
        new, lo, hi = np.zeros(n, bool), np.full(n, -math.inf), np.full(n, math.inf)
        recs = list(recipes)
        for i, key in enumerate(keys):
            if key in self.cache:
                lo[i] = hi[i] = self.score(self.cache[key])
            elif key in self.pending:
                lo[i], hi[i], recs[i] = self.pending[key]
            else:
                new[i] = True
        return Batch(keys, masks, recs, new, lo, hi)

    def _store(self, b: Batch) -> None:
        ex = b.is_exact
        for i, key in enumerate(b.keys):
            if ex[i]:
                self.cache[key] = self.p.sign * float(b.exact[i])
                self.pending.pop(key, None)
            else:
                self.pending[key] = (float(b.lo[i]), float(b.hi[i]), b.recipes[i])

    def _commit(self, b: Batch) -> None:
        """Record first visits; the best mask is the first least exact first visit (the
        resolution made every first visit that could beat the best exact)."""
        self._store(b)
        for i in np.flatnonzero(b.new):
            self.recipes[b.keys[i]] = b.recipes[i]
        self.n_evals += int(b.new.sum())
        top = b.first_min(b.new)
        if top is not None and b.exact[top] < self.best_score:
            alpha, bias = self.alphas[b.keys[top]]
            self.best_score = float(b.exact[top])
            self.best = (b.masks[top].copy(), alpha, bias)

    def _step(self, b: Batch, ctx: Context, need: Need) -> bool:
        self._bounds(b, ctx)
        timed_out = self._resolve(b, ctx, need)
        self._commit(b)
        return timed_out

    # ------------------------------------------------------------------ batches
    def descend_step(self, beta: np.ndarray, cur: float
                     ) -> tuple[tuple[int, int] | None, float, bool]:
        kb = mask_key(beta)
        swaps = [(int(jo), int(ji)) for jo in np.flatnonzero(beta) for ji in np.flatnonzero(~beta)]
        masks = []
        for jo, ji in swaps:
            nb = beta.copy()
            nb[jo], nb[ji] = False, True
            masks.append(nb)
        if not masks:  # B = n: no neighbour
            return None, cur, True
        b = self._batch(masks, [(kb, (ji,), (jo,)) for jo, ji in swaps])
        s_cur, best0 = self.score(cur), self.best_score
        timed_out = self._step(b, self.context(beta), lambda b: b.need_descend(s_cur, best0))
        k, best_s = b.chain(s_cur)
        return (None if k is None else swaps[k]), self.p.sign * best_s, not timed_out

    def sample_argmin(self, center: np.ndarray, masks: list[np.ndarray]
                      ) -> tuple[int | None, float, bool]:
        if not masks:
            return None, math.inf, False
        kc = mask_key(center)
        b = self._batch(masks, [(kc, *changes(c, center)) for c in masks])
        best0 = self.best_score
        timed_out = self._step(b, self.context(center), lambda b: b.need_argmin(best0))
        k = b.first_min()
        return k, (math.inf if k is None else float(b.exact[k])), timed_out

    def evaluate_pool(self, masks: list[np.ndarray], base: np.ndarray,
                      alpha0: np.ndarray) -> int:
        if not masks:
            return 0
        b = self._batch(masks, [(mask_key(c), (), ()) for c in masks])
        self._hint = ctx = self.context(base, alpha0)
        best0 = self.best_score
        self._step(b, ctx, lambda b: b.need_best(best0))
        return len(masks)

    def pick_min(self, keys: list[bytes]) -> bytes:
        if any(k in self.pending for k in keys):
            lo = np.array([self.pending[k][0] if k in self.pending else self.score(self.cache[k])
                           for k in keys])
            hi = np.array([self.pending[k][1] if k in self.pending else self.score(self.cache[k])
                           for k in keys])
            keys = [k for k, v in zip(keys, lo) if v <= hi.min()]  # only these can be least
            b = self._batch([unpack(k, self.p.n) for k in keys], [self.recipe_of(k) for k in keys])
            if self._hint is None:
                for i in np.flatnonzero(~b.is_exact):
                    b.set_exact(i, self.score(self._exact_key(b.keys[i])))
            else:
                self._bounds(b, self._hint)
                self._resolve(b, self._hint, lambda b: b.need_min())
            self._store(b)
            keys = [k for k, e in zip(keys, b.is_exact) if e]
        return super().pick_min(keys)
