"""Load the compiled code of a Paper A method once per process, before anything is timed.

A fresh process pays once for numba's first-use initialisation, for loading the on-disk
cache (``cache=True``) of every compiled function a search calls, and for importing
scikit-learn's libsvm: measured ~0.3-0.4 s on the 2-core machine for LS* on the Gaussian
kernel, as much as the whole fast search on german 300 x 24. None of it is search work, so
``sparsekm solve fs-kernel`` calls :func:`preload` before its clock starts and reports the
seconds as ``load_s`` beside ``time_s`` (as ``solve svm`` does for its solvers).

:func:`preload` runs the chosen method, with the chosen path (``fast`` or plain), on a tiny
fixed problem of the same kernel, parameters and sense: every compiled function the real run
calls is then loaded with the same argument types.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from sparsekm.models.fs_kernel import FSKernelProblem
from sparsekm.solvers import SolverPlan

__all__ = ["preload"]

# the tiny warm-up search: few samples, one stall, one thread
SMALL = {"n_samples": 16, "sol_pool": 8, "opt_window": 1, "max_iter": 2, "threads": 1}
_LOADED: set[tuple] = set()


def tiny_problem(problem: FSKernelProblem, m: int = 24, n: int = 5) -> FSKernelProblem:
    """A fixed ``m x n`` problem with ``problem``'s kernel, parameters and sense."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((m, n))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(m) > 0, 1.0, -1.0)
    y[:2] = (1.0, -1.0)
    p = problem
    return FSKernelProblem(X, y, kernel=p.kernel, B=2, C=p.C, gamma=p.gamma, degree=p.degree,
                           coef0=p.coef0, sense=p.sense)


def preload(problem: FSKernelProblem, method: str, options: dict[str, Any] | None = None
            ) -> float:
    """Load what ``method`` with ``options`` (its ``fast`` flag) will run on ``problem``;
    seconds taken (0 when this process already loaded it). Methods without the fast path
    load libsvm only."""
    from sparsekm import registry

    from .multistart import solve_fs_kernel

    entry = registry.get("fs-kernel", "method", method)
    fast = bool((options or {}).get("fast", entry.options.get("fast", False)))
    key = (entry.name, fast, problem.kernel, problem.sense)
    if key in _LOADED:
        return 0.0
    t0 = time.perf_counter()
    from sklearn.svm import _libsvm  # noqa: F401  (every method's exact solves)

    if "fast" in entry.options:
        small = {k: v for k, v in SMALL.items() if k in entry.options}
        solve_fs_kernel(tiny_problem(problem), entry.name, SolverPlan(), fast=fast, **small)
    _LOADED.add(key)
    return time.perf_counter() - t0
