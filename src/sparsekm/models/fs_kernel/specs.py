"""Declarations of paper A's options shared by its relaxation and its methods
(:mod:`sparsekm.declare`): one per option name across ``sparsekm.relaxations.fs_kernel`` and
``sparsekm.algorithms.fs_kernel``."""

from __future__ import annotations

from sparsekm.declare import Spec

__all__ = ["BETA_IN"]

BETA_IN = Spec("Start beta: an array of length n, a mask with B ones (the continuous "
               "relaxation also takes beta in [0, 1]^n); default: the seeded random mask of "
               "the multistart (the relaxation: beta_j = B / n).")
