"""Declarations of paper A's method options used by more than one method
(:mod:`sparsekm.declare`): each option name is declared once for fs-kernel, here or (when one
module alone takes it) beside its method; ``beta_in`` is
:data:`sparsekm.models.fs_kernel.specs.BETA_IN`."""

from __future__ import annotations

from dataclasses import dataclass

from sparsekm import declare
from sparsekm.declare import Spec, with_
from sparsekm.registry import Part
from sparsekm.specs import MAX_ITER, THREADS

__all__ = ["SVM_DUALS", "FAST", "FAST_THREADS", "ITERATIONS", "N_SAMPLES", "OPT_WINDOW", "FastPath",
           "Stopping"]

N_SAMPLES = Spec("#Samples: masks of N^2 sampled per LS* iteration (Algorithm 2; Section 5: "
                 "500).", ge=1, flag="--samples")
OPT_WINDOW = Spec("OptWindow: iterations without improving UB* before the search stops "
                  "(Algorithms 2 and 3; Section 5: 5 for LS*, 10 for DecSubLight*).", ge=1,
                  flag="--opt-window")
ITERATIONS = with_(MAX_ITER, help="Iterations at most (a safeguard: the search stops on "
                   "OptWindow).", ge=1)
FAST = Spec("The fast path: neighbourhoods screened by fixed-alpha and duality bounds, "
            "warm-started SMO (the same masks as --plain).", flag="--fast/--plain")
FAST_THREADS = with_(THREADS, help="Threads of the fast path (none: every core).")


@dataclass(frozen=True)
class FastPath:
    """How LS, LS* and DecSubLight* evaluate masks (the options ``fast``, ``threads``)."""

    fast: bool = declare.field(True, FAST)
    threads: int | None = declare.field(None, FAST_THREADS)

    def __post_init__(self) -> None:
        declare.check_fields(self)


@dataclass(frozen=True)
class Stopping:
    """When LS* and DecSubLight* stop (the options ``opt_window``, ``max_iter``)."""

    opt_window: int = declare.field(5, OPT_WINDOW)
    max_iter: int = declare.field(1000, ITERATIONS)

    def __post_init__(self) -> None:
        declare.check_fields(self)

# the SVM duals of paper A's methods, by the native engines (registry.uses_solvers)
SVM_DUALS = Part("SVM duals (3) on each mask", (), default="sparsekm SMO (libsvm for cold "
                 "starts)")
