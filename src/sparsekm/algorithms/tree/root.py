"""What a problem's root phase gets from the engine (:class:`RootContext`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sparsekm.parallel.slots import Slots
from sparsekm.solvers import SolverPlan

from .interface import Data
from .resume import save_search
from .state import Search

__all__ = ["RootContext"]


@dataclass
class RootContext:
    """What :meth:`~.interface.TreeProblem.root` may use: the started plan, the executor (a
    sub-search reuses its workers), the number of workers, :meth:`map` to spread independent
    evaluations (``problem.<op>(work, item, deadline)``) over them, and checkpointed
    :meth:`stage` s."""

    plan: SolverPlan
    executor: Any
    slots: Slots
    search: Search
    path: str | None = None
    t0: float = 0.0
    subs: list[str] = field(default_factory=list)

    @property
    def workers(self) -> int:
        return self.slots.size

    def map(self, op: str, items: list[Any]) -> list[Any]:
        """``[problem.<op>(work, item, deadline) for item in items]`` on the workers, in
        order; at the time limit the items not done are None."""
        return self.slots.map(op, list(items), self.plan.clock)

    def stage(self, name: str, compute: Callable[[], Data]) -> Data:
        """``compute()`` once: its result (plain data) is checkpointed, so a resumed root
        phase takes it back instead of computing it again."""
        stages = self.search.stages
        if name not in stages:
            t, c = time.perf_counter(), time.process_time()
            stages[name] = compute()
            self.search.timing[f"stage_{name}_s"] = time.perf_counter() - t
            self.search.timing[f"stage_{name}_cpu"] = time.process_time() - c
            if self.path:
                save_search(self.search, self.path, time.perf_counter() - self.t0)
        return stages[name]

    def sub_checkpoint(self, name: str) -> str | None:
        """A checkpoint path for a sub-search of the root phase (None without one)."""
        if not self.path:
            return None
        self.subs.append(f"{self.path}.{name}")
        return self.subs[-1]
