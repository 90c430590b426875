"""Declarations of paper D's options shared by its relaxations and its methods
(:mod:`sparsekm.declare`): one per option name across ``sparsekm.relaxations.fs_linear`` and
``sparsekm.algorithms.fs_linear``."""

from __future__ import annotations

from sparsekm.declare import Spec

__all__ = ["BIG_M"]

BIG_M = Spec("Big-M M >= |w_j| at an optimum, of BigMP (6), B_M (5) and SR-DLMP (21) "
             "(none: the always-valid sqrt(2 UB) of Remark 3.2).", gt=0, flag="--M")
