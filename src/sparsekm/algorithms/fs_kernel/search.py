"""What Paper A's local searches share: strict improvement, the stall window of LS* and
DecSubLight*, and sampling of the neighbourhood N^2."""

from __future__ import annotations

import numpy as np

from .recipe import mask_key

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
    """``count`` distinct random masks of ``N^2(beta)`` (Section 3.2): 2..p swaps each."""
    sel, uns = np.flatnonzero(beta), np.flatnonzero(~beta)
    pmax = min(p, sel.size, uns.size)
    if pmax < 2:
        return []
    out: dict[bytes, np.ndarray] = {}
    tries = 0
    while len(out) < count and tries < 20 * count:
        tries += 1
        q = int(rng.integers(2, pmax + 1))
        nb = beta.copy()
        nb[rng.choice(sel, q, replace=False)] = False
        nb[rng.choice(uns, q, replace=False)] = True
        out.setdefault(mask_key(nb), nb)
    return list(out.values())
