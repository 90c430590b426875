"""The decisions of Paper A's searches taken on intervals: which masks still need work.

A :class:`Batch` holds the masks one search step compares (in the plain path's visiting
order), a certified interval ``[lo, hi]`` on each plain score (``sign * UB``, smaller is
better) and the exact score once solved. Each ``need_*`` function lists the masks whose
interval does not yet settle the plain path's decision, with the score ``T`` their interval
must reach (``lo >= T``) to be settled; every test is the plain path's own comparison
(:func:`.search.improves` or strict ``<``) applied to the lower end of the interval, which is
valid because both are monotone in the compared value.

Descent step (Algorithm 1, best improvement; the plain scan keeps the last strictly
improving neighbour in order). Let ``X`` be the top of the *near set*: from the least exact
score upward, while consecutive exact scores are not separated by ``improves``. A neighbour
with unknown score ``s`` is settled when (a) it does not improve the centre
(``not improves(s, s_cur)``), or (b) ``improves(X, s)``. Then the plain scan over all
neighbours ends on the same move as the scan over the exact ones: (a)-neighbours are never
accepted; a (b)-neighbour accepted before a near one is superseded by it (``s_near <= X <
thr(s)``) and is never accepted after one (``s > X >= b``); see ``docs/guides/fs_kernel_fast.md``.
Every first visit must also leave the best mask unchanged unless it is exact: ``s >= best0``
or ``s > min exact new score`` (rule R1).
"""

from __future__ import annotations

import math

import numpy as np

from .recipe import Recipe
from .search import REL_TOL, improves

__all__ = ["Batch", "cut", "near_top", "next_up"]


def next_up(x: float) -> float:
    return float(np.nextafter(x, math.inf))


def _thr(x: np.ndarray | float) -> np.ndarray | float:
    """``x - REL_TOL max(1, |x|)``: ``improves(new, old)`` is ``new < _thr(old)``."""
    return x - REL_TOL * np.maximum(1.0, np.abs(x))


def cut(X: float) -> float:
    """A score ``s`` with ``improves(X, s')`` for every ``s' >= s``."""
    s = X + 2 * REL_TOL * max(1.0, abs(X))
    while not improves(X, s):
        s += REL_TOL * max(1.0, abs(s))
    return s


def near_top(scores: np.ndarray) -> float | None:
    """Top ``X`` of the near set of the exact ``scores`` (None when there are none)."""
    if scores.size == 0:
        return None
    srt = np.sort(scores)
    X = float(srt[0])
    for s in srt[1:]:
        if improves(X, float(s)):
            break
        X = float(s)
    return X


def _padded(flags: np.ndarray) -> np.ndarray:
    """Row-wise indices of True entries, padded with -1 (shape (rows, max count >= 1))."""
    k = max(1, int(flags.sum(axis=1).max(initial=0)))
    out = np.full((flags.shape[0], k), -1, dtype=np.int64)
    r, c = np.nonzero(flags)
    pos = np.arange(r.size) - np.searchsorted(r, r)
    out[r, pos] = c
    return out


class Batch:
    """Masks of one search step, in the plain path's order, with intervals on their scores."""

    def __init__(self, keys: list[bytes], masks: list[np.ndarray], recipes: list[Recipe],
                 new: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> None:
        self.keys, self.masks, self.recipes = keys, masks, recipes
        self.new = new
        self.lo, self.hi = lo, hi
        self.exact = np.where(lo == hi, lo, np.nan)
        self.pred = np.zeros(len(keys))
        self.refined = np.zeros(len(keys), dtype=bool)

    def set_changes(self, base: np.ndarray) -> None:
        """Feature changes of every mask from ``base`` as padded index arrays (-1 = none)."""
        masks = np.asarray(self.masks, dtype=bool).reshape(len(self), base.size)
        add, rem = masks & ~base, base & ~masks
        self.add = _padded(add)
        self.rem = _padded(rem)

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def is_exact(self) -> np.ndarray:
        return ~np.isnan(self.exact)

    def set_exact(self, i: int, score: float) -> None:
        self.exact[i] = self.lo[i] = self.hi[i] = score

    def tighten(self, i: int, lo: float, hi: float) -> None:
        self.lo[i], self.hi[i] = max(self.lo[i], lo), min(self.hi[i], hi)

    def m_new(self) -> float:
        """Least exact score among first visits (inf if none)."""
        v = self.exact[self.new & self.is_exact]
        return float(v.min()) if v.size else math.inf

    def _r1(self, best0: float) -> tuple[np.ndarray, np.ndarray]:
        """Rule R1 (first visits cannot change the best mask): settled flags, thresholds."""
        m_new = self.m_new()
        ok = ~self.new | (self.lo >= best0) | (self.lo > m_new)
        T = np.where(self.new, min(best0, next_up(m_new)), -math.inf)
        return ok, T

    def _todo(self, ok: np.ndarray, T: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        idx = np.flatnonzero(~ok & ~self.is_exact)
        idx = idx[np.lexsort((idx, self.pred[idx]))]
        return idx, T[idx]

    def need_descend(self, s_cur: float, best0: float) -> tuple[np.ndarray, np.ndarray]:
        """Unsettled neighbours of a best-improvement step from score ``s_cur``."""
        X = near_top(self.exact[self.is_exact])
        T_a = float(_thr(s_cur))
        ok_ab = self.lo >= T_a
        T_b = math.inf
        if X is not None:
            ok_ab |= _thr(self.lo) > X
            T_b = cut(X)
        ok1, T1 = self._r1(best0)
        return self._todo(ok_ab & ok1, np.maximum(min(T_a, T_b), T1))

    def need_argmin(self, best0: float) -> tuple[np.ndarray, np.ndarray]:
        """Unsettled masks of a first-strict-argmin (LS* samples)."""
        ex = self.exact[self.is_exact]
        m_E = float(ex.min()) if ex.size else math.inf
        ok1, T1 = self._r1(best0)
        return self._todo((self.lo > m_E) & ok1, np.maximum(next_up(m_E), T1))

    def need_best(self, best0: float) -> tuple[np.ndarray, np.ndarray]:
        """Unsettled first visits for the best-mask update only (DecSubLight* pools)."""
        ok1, T1 = self._r1(best0)
        return self._todo(ok1, T1)

    def need_min(self) -> tuple[np.ndarray, np.ndarray]:
        """Unsettled masks for the least score (DecSubLight*'s explored list)."""
        ex = self.exact[self.is_exact]
        m_E = float(ex.min()) if ex.size else math.inf
        return self._todo(self.lo > m_E, np.full(len(self), next_up(m_E)))

    def chain(self, s_cur: float) -> tuple[int | None, float]:
        """The plain best-improvement scan over the exact scores: (last accepted, score)."""
        best_s, move = s_cur, None
        for i in np.flatnonzero(self.is_exact):
            if improves(float(self.exact[i]), best_s):
                best_s, move = float(self.exact[i]), int(i)
        return move, best_s

    def first_min(self, among: np.ndarray | None = None) -> int | None:
        """First index of the least exact score (optionally among a boolean selection)."""
        sel = self.is_exact if among is None else self.is_exact & among
        idx = np.flatnonzero(sel)
        if idx.size == 0:
            return None
        return int(idx[np.argmin(self.exact[idx])])
