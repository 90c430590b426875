"""Paper C methods for ``sklr``: SMO with the second-order (smo2) or first-order (smo1)
working set, and the conic model (22) solved by an exponential-cone solver (conic)."""
