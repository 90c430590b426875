"""Imported once by each worker's forkserver, so that the runs it forks start warm.

Every run is a child forked from a server that imported this module (and the config's
``[run] preload`` modules, by default Pyomo and CVXPY): scikit-learn, pandas, numba, every CLI
runner and every registered model, relaxation and algorithm are already in memory, and a run
costs a fork (~30 ms), not an interpreter start and its imports (~2-5 s). A library that is
not installed is skipped.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import warnings

MODULES = ("numpy", "scipy.linalg", "scipy.sparse", "pandas", "sklearn.svm",
           "sklearn.model_selection", "sklearn.preprocessing", "threadpoolctl", "numba",
           "sparsekm.run", "sparsekm.run.discovery",
           "sparsekm.data.loading", "sparsekm.data.splits", "sparsekm.data.preprocessing",
           "sparsekm.kernels", "sparsekm.solvers", "sparsekm.experiments.child")


CONTROLLER = None  # threadpoolctl's scan of the loaded BLAS / OpenMP libraries, done once


def warm() -> None:
    """Import :data:`MODULES` and every registered problem module, scan the thread pools, run
    one tiny SVM and one tiny sparse KLR per working-set rule through the run layer
    (first-call costs of pandas, libsvm and the numba caches of the SMO engine, ~1 s that
    would otherwise land in the first timed solve of every run); errors are ignored (the runs
    report their own)."""
    global CONTROLLER
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in MODULES:
            with contextlib.suppress(Exception):
                importlib.import_module(name)
        with contextlib.suppress(Exception):
            from sparsekm import registry

            registry.discover()
        with contextlib.suppress(Exception):
            from threadpoolctl import ThreadpoolController

            CONTROLLER = ThreadpoolController()
        with contextlib.suppress(Exception):
            from sparsekm.run import run
            from sparsekm.run.quiet import stdout_to_stderr

            with stdout_to_stderr():
                run("solve", "svm", {"data": "iris", "test_size": 0.3, "rows": 60})
                for wss in ("smo2", "smo1"):
                    run("solve", "sklr", {"data": "iris", "rows": 60, "method": wss},
                        {"max_iter": 50})
    gc.collect()
    gc.freeze()  # forked runs never scan (and so never copy) the server's objects


warm()
