"""Conic relaxations (CVXPY)."""
