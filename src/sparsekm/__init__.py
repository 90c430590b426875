"""sparsekm: mathematical programming for sparse, interpretable kernel machines.

Formulations are explicit Pyomo / CVXPY models; algorithms drive them through one pluggable
solver layer (:mod:`sparsekm.solvers`).
"""

__version__ = "0.1.0"
