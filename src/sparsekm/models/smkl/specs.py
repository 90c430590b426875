"""Declarations of paper B's options shared by its relaxations and its methods
(:mod:`sparsekm.declare`): each option name is declared once for smkl, here,
in :mod:`sparsekm.algorithms.smkl.specs` (methods only) or, when one module alone takes it,
beside its function; ``seed`` and ``gap_tol`` are :data:`sparsekm.specs.SEED` and
:data:`sparsekm.specs.GAP_TOL`."""

from __future__ import annotations

from sparsekm.declare import with_
from sparsekm.specs import BATCH as SHARED_BATCH
from sparsekm.specs import MAX_ITER as SHARED_MAX_ITER
from sparsekm.specs import TOL as SHARED_TOL

__all__ = ["BATCH", "MAX_ITER", "TOL"]

TOL = with_(SHARED_TOL, help="Stopping tolerance: abr's epsilon of Algorithm 1 (stop after "
            "`patience` iterations improving (4) by less), easymkl's relative FISTA step, "
            "sdp-3x3's largest 3x3-minor violation of (18) relative to max(1, theta).",
            gt=None, ge=0)
MAX_ITER = with_(SHARED_MAX_ITER, help="Iterations at most: abr's T of Algorithm 1 (per "
                 "start), easymkl's FISTA steps, sdp-full-cp's cutting-plane rounds.", ge=1)
BATCH = with_(SHARED_BATCH, help="Batch size: exact's tree nodes released per batch (none: "
              "one per worker); sdp-3x3's most violated 3x3 minors of (18) added per round.")
