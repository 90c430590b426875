"""Conic relaxations giving certified lower bounds, one subpackage per problem, each registered
in :mod:`sparsekm.registry` with its paper and equation number; :func:`relax` solves any of
them by name."""

from .api import relax

__all__ = ["relax"]
