"""Heuristics and exact schemes (local search, decomposition, SVM dual subproblems)."""
