"""Conic relaxations giving certified lower bounds, one subpackage per problem, each registered
in :mod:`sparsekm.registry` with its paper and equation number."""
