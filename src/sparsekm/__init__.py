"""sparsekm: mathematical programming for sparse, interpretable kernel machines.

Formulations are explicit Pyomo / CVXPY models; algorithms drive them through one pluggable
solver layer (:mod:`sparsekm.solvers`).
"""

import time as _time
import warnings as _warnings

__version__ = "0.1.0"
IMPORTED_AT = _time.perf_counter()  # a command's time limit counts from here (start-up included)

# Pyomo's Xpress plugin calls a function Xpress 9.9 deprecates when Pyomo loads its solvers (an
# ``xpress.DeprecationWarning``, a FutureWarning): a message for Pyomo's developers, not for
# users of sparsekm, printed on stderr by every script that builds a Pyomo model.
_warnings.filterwarnings("ignore", message="Deprecated in Xpress")
