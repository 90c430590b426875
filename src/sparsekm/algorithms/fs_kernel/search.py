"""What Paper A's local searches share: strict improvement, the stall window of LS* and
DecSubLight*, and sampling of the neighbourhood N^2."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["StallWindow", "improves", "sample_n2"]

REL_TOL = 1e-9


def improves(new: float, old: float) -> bool:
    """``new`` is strictly better (smaller) than ``old`` beyond a relative 1e-9."""
    return new < old - REL_TOL * max(1.0, abs(old))


class StallWindow:
    """Stop after ``opt_window`` consecutive iterations without improving the best score
    (``OptWindow`` of Algorithms 2 and 3); keeps the history of the best objective."""

    def __init__(self, opt_window: int, best: float) -> None:
        if opt_window < 1:
            raise ValueError(f"opt_window={opt_window} must be >= 1")
        self.opt_window, self.best, self.stall = opt_window, best, 0
        self.history: list[float] = []

    def update(self, score: float, objective: float) -> None:
        """Record an iteration whose best score is ``score`` (its objective for the log)."""
        self.history.append(objective)
        if improves(score, self.best):
            self.best, self.stall = score, 0
        else:
            self.stall += 1

    @property
    def exhausted(self) -> bool:
        return self.stall >= self.opt_window


def sample_n2(beta: np.ndarray, p: int, count: int, rng: np.random.Generator
              ) -> list[np.ndarray]:
    """``count`` distinct random masks of ``N^2(beta)`` (Section 3.2): 2..p swaps each.

    Each try draws ``q = rng.integers(2, pmax + 1)``, then ``rng.choice(sel, q,
    replace=False)`` features to remove and ``rng.choice(uns, q, replace=False)`` to add;
    a mask met before is drawn again, up to ``20 count`` tries. The draws are made by
    :func:`_draws` in compiled code, bit for bit those of NumPy's calls (tested against
    them): on cleveland (N^2 has 1,015 masks) LS* makes ~700 tries per sample of 500, and
    NumPy's ``choice`` costs ~5 us per call from Python. Tries are drawn in chunks; the
    generator is left exactly where the last try used left it (a chunk drawn past that
    point is drawn again up to it).
    """
    sel, uns = np.flatnonzero(beta), np.flatnonzero(~beta)
    pmax = min(p, sel.size, uns.size)
    if pmax < 2:
        return []
    out: dict[bytes, np.ndarray] = {}
    tries, budget = 0, 20 * count
    while len(out) < count and tries < budget:
        k = min(budget - tries, 2 * (count - len(out)) + 16)
        state = rng.bit_generator.state
        masks = _chunk(rng, beta, sel, uns, pmax, k)
        keys = np.packbits(masks, axis=1)
        used = k
        for t in range(k):
            out.setdefault(keys[t].tobytes(), masks[t].copy())
            if len(out) >= count:
                used = t + 1
                break
        tries += used
        if used < k:  # leave the generator where try ``used`` left it
            rng.bit_generator.state = state
            _chunk(rng, beta, sel, uns, pmax, used)
    return list(out.values())


def _chunk(rng: np.random.Generator, beta: np.ndarray, sel: np.ndarray, uns: np.ndarray,
           pmax: int, k: int) -> np.ndarray:
    """``k`` tries of :func:`sample_n2` as rows of a boolean matrix."""
    masks = np.empty((k, beta.size), dtype=bool)
    _draws(rng, beta, sel.astype(np.int64), uns.astype(np.int64), pmax, masks)
    return masks


@njit(cache=True)
def _choice(rng, a, q, out):
    """``rng.choice(a, q, replace=False)`` for ``len(a) <= 10000``, NumPy's algorithm:
    Floyd's sampling of ``q`` of ``len(a)`` positions (each draw
    ``random_bounded_uint64(0, j)``, which ``rng.integers(0, j + 1)`` makes), then a
    Fisher-Yates shuffle of them (``_shuffle_int``)."""
    n = a.shape[0]
    idx = np.empty(q, dtype=np.int64)
    for j in range(n - q, n):
        val = rng.integers(0, j + 1)
        seen = False
        for u in range(j - n + q):
            if idx[u] == val:
                seen = True
                break
        idx[j - n + q] = j if seen else val
    for i in range(q - 1, 0, -1):
        j = rng.integers(0, i + 1)
        tmp = idx[j]
        idx[j] = idx[i]
        idx[i] = tmp
    for u in range(q):
        out[u] = a[idx[u]]


@njit(cache=True)
def _draws(rng, beta, sel, uns, pmax, masks):
    """``masks.shape[0]`` tries of :func:`sample_n2`, one mask per row."""
    rem = np.empty(pmax, dtype=np.int64)
    add = np.empty(pmax, dtype=np.int64)
    for t in range(masks.shape[0]):
        q = rng.integers(2, pmax + 1)
        _choice(rng, sel, q, rem)
        _choice(rng, uns, q, add)
        masks[t] = beta
        for u in range(q):
            masks[t, rem[u]] = False
            masks[t, add[u]] = True
