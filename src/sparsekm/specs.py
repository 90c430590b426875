"""The vocabulary of sparsekm: parameter declarations that several problems or methods share.

A parameter that means the same everywhere (the penalty C, a kernel's gamma, a seed, the
number of workers, a checkpoint path) is declared once here and used by every problem field
or method option that takes it (:mod:`sparsekm.declare`), so its range, help and flag cannot
drift apart between the CLI, the grids and the estimators.
"""

from __future__ import annotations

from .declare import Spec

__all__ = [
    "BATCH", "CHECKPOINT", "COEF0", "DEFAULT_TIME_LIMIT", "DEGREE", "GAMMA", "GAP_TOL",
    "KERNEL_NAMES", "LOG_EVERY", "MAX_ITER", "MAX_TIME", "NODE_LIMIT", "PENALTY", "SCHEDULER",
    "SEED", "SOLVER", "THREADS", "TIME_LIMIT", "TOL", "WORKERS",
]

MAX_TIME = 1e7  # seconds (115 days): any longer limit is a typo
DEFAULT_TIME_LIMIT = 3600.0  # every command stops (with an honest status) after an hour
MAX_WORKERS = 1024

PENALTY = Spec("Misclassification penalty C (objective 1/2||w||^2 + C sum xi).",
               ge=1e-8, le=1e8)
GAMMA = Spec("Kernel gamma > 0 (rbf: exp(-gamma ||x - z||^2); poly: (gamma x'z + c)^d).",
             gt=0, le=1e6)
DEGREE = Spec("Polynomial kernel degree d.", ge=1, le=20)
COEF0 = Spec("Polynomial / sigmoid kernel constant c.", ge=-1e6, le=1e6)
KERNEL_NAMES = ("linear", "poly", "rbf", "laplacian", "sigmoid")

SEED = Spec("Seed for every random choice (the same seed gives the same result).",
            ge=0, le=2**32 - 1)
TIME_LIMIT = Spec("Seconds for the whole run, start-up included (default 3600); at the limit "
                  "the incumbent is returned with its bound.", gt=0, le=MAX_TIME)
SOLVER = Spec("Solver name (see `sparsekm solvers`); default: configured per problem class.")
GAP_TOL = Spec("Relative gap |objective - bound| / |objective| at which the incumbent counts "
               "as optimal.", ge=0, lt=1)
TOL = Spec("Stopping tolerance of the method.", gt=0, lt=1)
MAX_ITER = Spec("Iteration limit (-1: none).", ge=-1)
WORKERS = Spec("Worker processes for parallel work (1: this process; more than the cores "
               "warns).", ge=1, le=MAX_WORKERS, flag="--workers")
CHECKPOINT = Spec("A resumable state file: the same command with the same file resumes the "
                  "search (locked while a search uses it).", path="write",
                  flag="--checkpoint")
SCHEDULER = Spec("A Dask scheduler address (tcp://HOST:PORT) or scheduler file to run the "
                 "workers on (instead of local processes).")
BATCH = Spec("Nodes released per batch of the tree search (default: one per worker).", ge=1)
NODE_LIMIT = Spec("Nodes bounded by this call at most (none: no limit).", ge=0)
LOG_EVERY = Spec("Seconds between progress lines (with --verbose).", gt=0, le=MAX_TIME)
THREADS = Spec("Threads for the method's own parallel loops (1: none).", ge=1,
               le=MAX_WORKERS)
