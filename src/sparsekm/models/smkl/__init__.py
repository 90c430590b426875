"""Paper B (sparse multiple kernel learning): the problem, objective (4), GSSP, MISDP (13)."""
