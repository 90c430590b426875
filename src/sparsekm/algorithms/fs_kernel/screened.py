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
"decided" is what :mod:`docs/guides/fs_kernel_fast.md` proves; the result does not depend on the
order in which masks are refined or on the number of threads.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from sparsekm.engines.smo import ABOVE, BELOW
from sparsekm.models.fs_kernel import FSKernelProblem
from sparsekm.solvers import SolverPlan

from .batch import Batch
from .evaluator import SVM_TOL, alpha_subproblem
from .plain import PlainEvaluator
from .recipe import Recipe, changes_many, mask_key, unpack
from .refine import Refiner, refine_many
from .search import REL_TOL

__all__ = ["ScreenedEvaluator", "make_evaluator"]

SMO_CAP = 1000  # SMO iterations per refinement before falling back to libsvm
W_SHARE = 0.5  # share of the non-support vectors in the working set (closest to the margin)
W_MAX = 1500  # at most this many samples in the working set (its block: 18 MB per thread)
FIXED_MIN, FIXED_PROBE = 0.2, 4  # fixed-alpha pass on multi-swap batches: see _bounds
CHUNK = 16  # masks per refine_many call (the unit of work handed to a thread)
EXACT_AT_ONCE = 1
FIXED_SAMPLE = 64  # masks of a multi-swap batch the fixed-alpha pass is measured on first
Need = Callable[[Batch], tuple[np.ndarray, np.ndarray]]


@dataclass
class Context:
    """Where a batch's bounds come from: a base mask, its aggregate and a feasible alpha;
    the working set ``W`` of :mod:`.refine` (the support of alpha first, ``ns`` entries)
    with the aggregate and the features restricted to it."""

    key: bytes
    mask: np.ndarray
    S: np.ndarray
    alpha: np.ndarray
    W: np.ndarray
    ns: int
    SW: np.ndarray
    XTW: np.ndarray


class ScreenedEvaluator(PlainEvaluator):
    """Same answers as :class:`PlainEvaluator`; solves only the masks that decide them."""

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
        self._fixed_rate, self._multi_batches = 1.0, 0  # see _bounds

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def _map(self, fn: Callable, items: list) -> list:
        """``fn`` over ``items``: in order on this thread, or through the pool (tasks are
        taken in order by whichever thread is free: a thread the machine delays does not
        hold up the others)."""
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
        S = self.rk.base(key, base)
        sv = np.flatnonzero(alpha > 0)
        W = np.concatenate([sv, self._near_margin(S, alpha, sv)]).astype(np.int64)
        return Context(key, base, S, alpha, W, int(sv.size),
                       np.ascontiguousarray(S[np.ix_(W, W)]),
                       np.ascontiguousarray(self.rk.XT[:, W]))

    def _near_margin(self, S: np.ndarray, alpha: np.ndarray, sv: np.ndarray) -> np.ndarray:
        """The ``W_SHARE`` of the non-support vectors with the least gradient ``(Q alpha -
        1)_k`` at the centre (those closest to entering the support), within ``W_MAX``."""
        p = self.p
        rest = np.setdiff1d(np.arange(p.m), sv)
        k = min(int(round(W_SHARE * rest.size)), max(0, W_MAX - sv.size))
        if k == 0 or p.sign > 0:  # the paper sense needs lower bounds: no working set
            return rest[:0]
        A = S[np.ix_(rest, sv)]
        K = np.exp(-p.gamma * A) if not self.rk.poly else (p.gamma * A + p.coef0) ** p.degree
        g = p.y[rest] * (K @ (alpha[sv] * p.y[sv])) - 1.0
        return np.sort(rest[np.argsort(g, kind="stable")[:k]])

    def _refine(self, b: Batch, ctx: Context, todo: np.ndarray, T: np.ndarray | None,
                max_iter: int) -> None:
        """:func:`refine_many` on the masks ``todo``, in chunks of ``CHUNK`` in order (over
        the threads when there are several); the round ends at the first hopeless mask (no
        chunk starts after one was met) or at the time limit; tightens the intervals of the
        masks processed. A
        mask whose SMO run on the whole problem ended undecided (converged, or at
        ``SMO_CAP`` iterations) is marked ``refined``: its interval will not get narrower, so
        it is solved exactly if still needed."""
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
        f, lb = np.zeros(len(b)), np.zeros(len(b))
        its, spent = np.zeros(len(b)), np.zeros(len(b))
        done = np.zeros(todo.size, dtype=bool)

        centre = (ctx.S, self.rk.XT, p.y, ctx.alpha, ctx.W, ctx.ns, ctx.SW, ctx.XTW)
        use_W = float(ctx.W.size > ctx.ns)
        ctl = np.array([p.C, max_iter, SVM_TOL, float(p.sign > 0), stop, use_W])
        kpar = self.rk.kpar(0, 0)

        hit = threading.Event()  # a mask to solve exactly was met: the round ends

        def run(k: int) -> None:
            if hit.is_set() or self.out_of_time():   # a chunk of 2000-row masks: ~0.5 s
                return
            part = slice(k, min(k + CHUNK, todo.size))
            batch = (b.add, b.rem, b.alphas, b.grads, b.stages, todo[part], lo_thr[part],
                     hi_thr[part])
            n = refine_many(centre, kpar, batch, ctl, self.refiner.buffers(),
                            (f, lb, its, spent))
            done[k:k + abs(n)] = True
            if n < 0:
                hit.set()

        self._map(run, list(range(0, todo.size, CHUNK)))
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
            b.iters[idx] += its[idx]
            b.refined[idx] |= (spent[idx] > 0) | (b.iters[idx] >= SMO_CAP)
            self.stats["smo_runs"] += int(idx.size)
            self.stats["smo_iterations"] += int(its[idx].sum())

    def _bounds(self, b: Batch, ctx: Context, need: Need) -> None:
        """Fixed-alpha bounds (and the predictor ``sign f(alpha, beta')``) of the masks that
        ``need`` lists; a mask met before keeps its stored interval (and it as predictor)
        while that settles it.

        Batches of multi-swap masks (LS* samples, DecSubLight* pools) skip this pass while it
        settles less than ``FIXED_MIN`` of them (measured every ``FIXED_PROBE``-th batch, on
        its first ``FIXED_SAMPLE`` masks, the rest only if the rate reaches ``FIXED_MIN``): for
        the Gaussian kernel it settled 0-3 % of the LS* samples, and as a predictor it was
        uncorrelated with the SVM values (Spearman -0.18 and 0.01 on german 300 x 24 and
        cleveland), so there the masks are refined first visits first, fewest swaps first.
        """
        b.set_changes(ctx.mask)
        b.alphas = np.empty((len(b), self.p.m))
        b.grads = np.empty((len(b), self.p.m))
        b.stages = np.zeros(len(b), dtype=np.int64)
        b.iters = np.zeros(len(b))
        swaps = (b.add >= 0).sum(axis=1)
        b.pred = np.where(np.isfinite(b.lo), b.lo, swaps - 1e300)
        todo = np.sort(need(b)[0])
        if todo.size == 0:
            return
        if swaps.max(initial=0) > 1:
            self._multi_batches += 1
            if self._fixed_rate < FIXED_MIN and self._multi_batches % FIXED_PROBE:
                return
            probe, todo = todo[:FIXED_SAMPLE], todo[FIXED_SAMPLE:]
            pred0 = b.pred[probe]
            self._refine(b, ctx, probe, None, 0)
            self.stats["bounded"] += int(probe.size)
            self._fixed_rate = 1.0 - np.intersect1d(need(b)[0], probe).size / probe.size
            if self._fixed_rate < FIXED_MIN:  # keep the bounds; order by swaps again
                b.pred[probe] = pred0
                return
        if todo.size:
            self._refine(b, ctx, todo, None, 0)
            self.stats["bounded"] += int(todo.size)

    def _exact(self, b: Batch, i: int) -> None:
        alpha, bias, obj = alpha_subproblem(self.rk.matrix(b.recipes[i]), self.p.y, self.p.C,
                                            deadline=self.plan.clock)
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
                ex = idx[direct][:EXACT_AT_ONCE].tolist()
                self._map(lambda i: self._exact(b, i), ex)
                self.stats["exact_solves"] += len(ex)
            else:
                self._refine(b, ctx, idx, T, SMO_CAP)

    # ------------------------------------------------------------------ batch bookkeeping
    def _batch(self, masks: list[np.ndarray], recipe: Callable[[int], Recipe]) -> Batch:
        """A batch of ``masks``; ``recipe(i)`` is asked only for first visits (a mask met
        before keeps the recipe of its first visit; an exact one needs none)."""
        n = len(masks)
        keys = [mask_key(c) for c in masks]
        new, lo, hi = np.zeros(n, bool), np.full(n, -math.inf), np.full(n, math.inf)
        recs: list = [None] * n
        for i, key in enumerate(keys):
            if key in self.cache:
                lo[i] = hi[i] = self.score(self.cache[key])
            elif key in self.pending:
                lo[i], hi[i], recs[i] = self.pending[key]
            else:
                new[i] = True
                recs[i] = recipe(i)
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
        self._bounds(b, ctx, need)
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
        b = self._batch(masks, lambda i: (kb, (swaps[i][1],), (swaps[i][0],)))
        s_cur, best0 = self.score(cur), self.best_score
        timed_out = self._step(b, self.context(beta), lambda b: b.need_descend(s_cur, best0))
        k, best_s = b.chain(s_cur)
        return (None if k is None else swaps[k]), self.p.sign * best_s, not timed_out

    def sample_argmin(self, center: np.ndarray, masks: list[np.ndarray]
                      ) -> tuple[int | None, float, bool]:
        if not masks:
            return None, math.inf, False
        kc = mask_key(center)
        ch = changes_many(np.asarray(masks, dtype=bool).reshape(len(masks), -1), center)
        b = self._batch(masks, lambda i: (kc, *ch[i]))
        best0 = self.best_score
        timed_out = self._step(b, self.context(center), lambda b: b.need_argmin(best0))
        k = b.first_min()
        return k, (math.inf if k is None else float(b.exact[k])), timed_out

    def evaluate_pool(self, masks: list[np.ndarray], base: np.ndarray,
                      alpha0: np.ndarray) -> int:
        if not masks:
            return 0
        b = self._batch(masks, lambda i: (mask_key(masks[i]), (), ()))
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
            b = self._batch([unpack(k, self.p.n) for k in keys], lambda i: self.recipe_of(keys[i]))
            if self._hint is None:
                for i in np.flatnonzero(~b.is_exact):
                    b.set_exact(i, self.score(self._exact_key(b.keys[i])))
            else:
                self._bounds(b, self._hint, lambda b: b.need_min())
                self._resolve(b, self._hint, lambda b: b.need_min())
            self._store(b)
            keys = [k for k, e in zip(keys, b.is_exact) if e]
        return super().pick_min(keys)


def make_evaluator(problem: FSKernelProblem, plan: SolverPlan | None, fast: bool,
                   threads: int | None = None) -> PlainEvaluator:
    """The plain (:class:`PlainEvaluator`) or the screened evaluator: the same answers."""
    if fast:
        return ScreenedEvaluator(problem, plan, threads=threads)
    return PlainEvaluator(problem, plan)
