"""Algorithms: heuristics and exact schemes that drive models and relaxations through the solver
layer, one subpackage per problem (``fs_linear``, ``fs_kernel``, ...); each method registers
itself in :mod:`sparsekm.registry` with its paper and algorithm number. :func:`solve` is the
one Python front door (each problem's ``solve_<problem>`` is the same call)."""

from .api import solve

__all__ = ["solve"]
