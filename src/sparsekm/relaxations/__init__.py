"""Conic relaxations (CVXPY)."""

# paper D (linear FS-SVM): (8), (10)-(15), Lemma 4.3, tightening (19)
from .fs_linear import (  # noqa: F401
    RELAXATIONS,
    RelaxationResult,
    bigm_tightening,
    build_relaxation,
    solve_relaxation,
)
