"""sparsekm: mathematical programming for sparse, interpretable kernel machines.

Formulations are explicit Pyomo / CVXPY models; algorithms drive them through one pluggable
solver layer (:mod:`sparsekm.solvers`).
"""

import time as _time

__version__ = "0.1.0"
IMPORTED_AT = _time.perf_counter()  # a command's time limit counts from here (start-up included)
