"""Small paper-B instances shared by the smkl tests (imported by name: a module called
``conftest`` would collide with the other test folders' conftest files)."""

from __future__ import annotations

import numpy as np

from sparsekm.models.smkl.problem import SMKLProblem

SMALL_KERNELS = "linear,poly:0.5:1:2,rbf:0.5,laplacian:0.5"


def small_problem(seed: int = 0, m: int = 30, k0: int = 2, C: float = 1.0, lam: float = 0.1,
                  kernels: str = SMALL_KERNELS) -> SMKLProblem:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 3))
    y = np.where(X[:, 0] * X[:, 1] + 0.5 * X[:, 2] + 0.3 * rng.normal(size=m) > 0, 1.0, -1.0)
    return SMKLProblem(X, y, kernels, k0, C, lam)


