"""Declarative optimization models (Pyomo / CVXPY builders)."""
