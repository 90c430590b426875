"""The state of one search: open nodes, incumbent, pruned floor, batches in flight.

* the open nodes are a heap ordered by (bound, creation order): ties go to the older node, so
  the order is deterministic;
* the incumbent (ties: the smaller tie key), pruning at the problem's relative cutoff
  ``UB - gap_tol |UB|`` and the certified bound ``min(open nodes, nodes in flight, pruned
  floor, UB)``, valid at every stop;
* :attr:`Search.termination` is the run's :class:`~sparsekm.solvers.Termination`, set by the
  engine alone (converged, time_limit, node_limit, error).
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from typing import Any

from sparsekm.solvers import SolverPlan, Termination

from .interface import Data, Outcome, Start, TreeProblem

__all__ = ["Batch", "Entry", "Search", "Trace"]

Entry = tuple[float, int, Data]      # (bound, creation order, node data)


@dataclass
class Batch:
    """Released nodes, the incumbent and shared-log length they are bounded with, results."""

    nodes: list[Entry]
    ub: float
    version: int
    results: list[Outcome | None]
    after: int = 0            # batches merged when this one was released

    @property
    def complete(self) -> bool:
        return all(r is not None for r in self.results)


@dataclass
class Search:
    """The state of one search (what a checkpoint holds, plus this call's counters)."""

    problem: TreeProblem
    fp: str
    plan: SolverPlan | None = None
    heap: list[Entry] = field(default_factory=list)
    counter: int = 0
    ub: float = math.inf
    best_key: tuple = ()
    best: Data | None = None
    floor: float = math.inf
    shared: list[Data] = field(default_factory=list)
    stats: dict[str, float] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)
    root_arrays: Data = field(default_factory=dict)
    nodes: int = 0
    nodes_before: int = 0
    termination: Termination = Termination.CONVERGED
    resumed: bool = False
    root_done: bool = False
    stages: dict[str, Data] = field(default_factory=dict)
    inflight: list[Batch] = field(default_factory=list)
    node_times: list[float] = field(default_factory=list)
    schedule: list[tuple[int, list[float]]] = field(default_factory=list)
    timing: dict[str, float] = field(default_factory=dict)
    trace: list[tuple[float, float, float, int]] = field(default_factory=list)

    @property
    def cutoff(self) -> float:
        return self.problem.cutoff(self.ub)

    @property
    def open_nodes(self) -> int:
        return len(self.heap) + sum(len(b.nodes) for b in self.inflight)

    def lower_bound(self) -> float:
        """min(open nodes, nodes in flight, pruned floor, UB): certified at every stop."""
        lb = min(self.floor, self.ub, self.heap[0][0] if self.heap else math.inf)
        for b in self.inflight:
            lb = min([lb] + [e[0] for e in b.nodes])
        return lb

    def offer(self, value: float, key: tuple, data: Data) -> bool:
        """Take a solution when it improves the incumbent (ties: the smaller key)."""
        if value < self.ub or (value == self.ub and self.best is not None
                               and tuple(key) < tuple(self.best_key)):
            self.ub, self.best_key, self.best = float(value), tuple(key), data
            return True
        return False

    def push(self, bound: float, data: Data) -> None:
        """Open a node, or prune it into the floor when it cannot improve the incumbent."""
        if bound >= self.cutoff:
            self.floor = min(self.floor, bound)
            return
        heapq.heappush(self.heap, (float(bound), self.counter, data))
        self.counter += 1

    def add_stats(self, stats: dict[str, float]) -> None:
        for k, v in stats.items():
            self.stats[k] = self.stats.get(k, 0) + v

    def absorb(self, start: Start | Outcome, base: float = -math.inf) -> None:
        """Merge a root phase or a node's outcome (in the driver, in release order)."""
        for value, key, data in start.solutions:
            self.offer(value, key, data)
        self.shared.extend(start.shared)
        self.add_stats(start.stats)
        if isinstance(start, Outcome):
            self.floor = min(self.floor, start.pruned)
            children = start.children
        else:
            children = start.nodes
        for bound, data in children:
            self.push(max(bound, base), data)

    def select(self, k: int) -> list[Entry]:
        """Up to ``k`` best open nodes; the rest of the heap is pruned once its best is."""
        out: list[Entry] = []
        while self.heap and len(out) < k:
            if self.heap[0][0] >= self.cutoff:
                self.floor = min(self.floor, self.heap[0][0])
                self.heap.clear()
                break
            out.append(heapq.heappop(self.heap))
        return out

    def stop(self, termination: Termination | str) -> None:
        """End the search with ``termination`` (a node's stop, a limit)."""
        self.termination = Termination(termination)


@dataclass
class Trace:
    """How a search ran (``Result.raw`` of a tree method): nodes bounded by this call, per
    merged batch (batches merged when it was released, its tasks' CPU seconds), each node
    task's wall seconds, and phase timings (root, stages, driver, checkpoints)."""

    nodes: int
    schedule: list[tuple[int, list[float]]]
    node_times: list[float]
    timing: dict[str, float]
