"""Small paper-E instances shared by the minmax-fs tests (imported by name)."""

from __future__ import annotations

import numpy as np


def make_instance(m: int = 14, n: int = 4, seed: int = 0, informative: int = 1):
    """Points in [-1, 1]^n whose label depends on the first ``informative`` features."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (m, n))
    score = X[:, :informative].sum(axis=1) + 0.3 * rng.normal(size=m)
    y = np.where(score > np.median(score), 1.0, -1.0)
    return X, y
