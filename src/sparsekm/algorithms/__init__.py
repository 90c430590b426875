"""Algorithms: heuristics and exact schemes that drive models and relaxations through the solver
layer, one subpackage per problem (``fs_linear``, ``fs_kernel``, ...); each method registers
itself in :mod:`sparsekm.registry` with its paper and algorithm number. :func:`solve` is the
one Python front door of the methods (each problem's ``solve_<problem>`` is the same call),
:func:`solve_formulation` the one of the formulations (a model of :mod:`sparsekm.models`,
changed or not, solved and read back with what its bound certifies)."""

from .api import solve
from .formulation import solve_formulation

__all__ = ["solve", "solve_formulation"]
