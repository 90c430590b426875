"""How a tree search runs (:class:`SearchOptions`), built from a method's keyword options."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from sparsekm.solvers import SolverPlan

__all__ = ["SearchOptions", "node_plan"]


@dataclass(frozen=True)
class SearchOptions:
    """How a search runs (none of this changes the certified optimum).

    ``workers``: 1 runs in this process, k > 1 in k local processes, -1 one per core;
    ``scheduler``: a Dask scheduler address or client (then ``workers`` is ignored);
    ``checkpoint``: path of the resumable state (None: none); ``checkpoint_every``: seconds
    between writes; ``batch``: nodes per batch (default: one per worker); ``node_limit``:
    nodes bounded by this call; ``log_every``: seconds between progress lines.

    A method passes its own keyword options straight through: ``SearchOptions(workers=
    workers, checkpoint=checkpoint, ...)``, or :func:`sparsekm.algorithms.tree.search`.
    """

    workers: int = 1
    scheduler: Any = None
    checkpoint: str | None = None
    checkpoint_every: float = 3.0
    batch: int | None = None
    node_limit: int | None = None
    log_every: float = 5.0

    def __post_init__(self) -> None:
        if self.scheduler is None and self.workers != -1 and self.workers < 1:
            raise ValueError(f"workers={self.workers}: use 1 (this process), k > 1 local "
                             "processes, or -1 (one per core)")
        if self.batch is not None and self.batch < 1:
            raise ValueError(f"batch={self.batch} must be >= 1 (nodes per batch)")
        if self.node_limit is not None and self.node_limit < 0:
            raise ValueError(f"node_limit={self.node_limit} must be >= 0")
        if self.checkpoint_every <= 0:
            raise ValueError(f"checkpoint_every={self.checkpoint_every} must be > 0 seconds")
        if self.checkpoint is not None:
            object.__setattr__(self, "checkpoint", str(self.checkpoint))


def node_plan(plan: SolverPlan) -> SolverPlan:
    """The plan a tree problem keeps for its node work (pickled to every worker): no clock
    (each task gets its own deadline), no executor, no progress lines."""
    return replace(plan, deadline=None, executor=None, verbose=False)
