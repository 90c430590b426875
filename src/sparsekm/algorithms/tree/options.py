"""How a tree search runs (:class:`SearchOptions`), built from a method's keyword options."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from sparsekm import declare
from sparsekm.solvers import SolverPlan
from sparsekm.specs import BATCH, CHECKPOINT, LOG_EVERY, NODE_LIMIT, SCHEDULER, WORKERS

__all__ = ["SearchOptions", "node_plan"]


@dataclass(frozen=True)
class SearchOptions:
    """How a search runs (none of this changes the certified optimum): the option group every
    tree method takes as ``tree=`` (its fields are the methods' flat options ``workers``,
    ``checkpoint``, ``scheduler``, ``batch``, ``node_limit``, ``log_every``, declared once
    here for the three of them). ``checkpoint_every``: seconds between checkpoint writes."""

    workers: int = declare.field(1, WORKERS)
    scheduler: Any = declare.field(None, SCHEDULER)
    checkpoint: str | None = declare.field(None, CHECKPOINT)
    batch: int | None = declare.field(None, BATCH)
    node_limit: int | None = declare.field(None, NODE_LIMIT)
    log_every: float = declare.field(5.0, LOG_EVERY)
    checkpoint_every: float = 3.0

    def __post_init__(self) -> None:
        declare.check_fields(self)
        if not self.checkpoint_every > 0:
            raise ValueError(f"checkpoint_every={self.checkpoint_every} must be > 0 seconds")


def node_plan(plan: SolverPlan) -> SolverPlan:
    """The plan a tree problem keeps for its node work (pickled to every worker): no clock
    (each task gets its own deadline), no executor, no progress lines."""
    return replace(plan, deadline=None, executor=None, verbose=False)
