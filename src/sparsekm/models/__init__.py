"""Declarative models (Pyomo / CVXPY builders), one subpackage per problem, each formulation
registered in :mod:`sparsekm.registry` with its paper and equation number; ``svm`` holds the
SVM primal and dual shared by every paper; ``problem`` the base of the problem objects."""
