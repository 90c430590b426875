"""Loading the compiled code of Paper A's local searches before anything is timed.

A fresh process pays once for numba's first-use initialisation, for loading the on-disk
cache (``cache=True``) of every compiled function a search calls, and for importing
scikit-learn's libsvm: measured 0.26-0.33 s on the 2-core machine for LS* on the Gaussian
kernel, as much as the whole fast search on german 300 x 24. None of it is search work, so
LS, LS* and DecSubLight* register :func:`warm_up_search` as their ``warm_up``: the CLI runs
it before its clock starts (:func:`sparsekm.registry.load_compiled`) and reports the seconds
as ``load_s`` beside ``time_s``.

The warm-up runs the method on a tiny fixed problem with both paths (fast and plain), so
every compiled function a real run calls, whichever path it takes, is loaded with the same
argument types (the Gaussian and polynomial kernels share them).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from sparsekm.models.fs_kernel import FSKernelProblem
from sparsekm.solvers import SolverPlan

__all__ = ["tiny_problem", "warm_up_search"]

# the tiny warm-up search: few samples, one stall, one thread
SMALL = {"n_samples": 16, "sol_pool": 8, "opt_window": 1, "max_iter": 2, "threads": 1}


def tiny_problem(sense: str = "margin", m: int = 24, n: int = 5) -> FSKernelProblem:
    """A fixed ``m x n`` Gaussian-kernel problem with B = 2 in ``sense``."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((m, n))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(m) > 0, 1.0, -1.0)
    y[:2] = (1.0, -1.0)
    return FSKernelProblem(X, y, kernel="rbf", B=2, sense=sense)


def warm_up_search(method: str, sense: str = "margin") -> Callable[[], None]:
    """The registry ``warm_up`` of the local search ``method``: it runs on
    :func:`tiny_problem` (in ``sense``) with ``fast=True`` and ``fast=False``."""

    def warm_up() -> None:
        from sklearn.svm import _libsvm  # noqa: F401  (every method's exact solves)

        from sparsekm import registry

        entry = registry.get("fs-kernel", "method", method)
        small = {k: v for k, v in SMALL.items() if k in entry.options}
        for fast in (True, False):
            entry.run(tiny_problem(sense), SolverPlan(), fast=fast, **small)

    return warm_up
