"""What a problem supplies to the tree-search engine (:mod:`.engine`), and what it gets back.

As in PEBBL and UG (ParaSCIP / FiberSCIP), the serial search logic of a problem (its root,
how to bound and branch a node, its heuristics) is kept apart from the engine that owns the
best-first queue, the incumbent, the limits, the log, the checkpoint and the workers. The engine
*minimises*: a maximisation problem (paper A's margin sense) hands it negated values.

Everything that crosses a process boundary or goes into a checkpoint is plain data: a node, a
solution and a shared entry are ``dict[str, numpy array]`` (scalars as 0-d arrays).
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Data", "Outcome", "Start", "TreeProblem", "Work", "fingerprint"]

Data = dict[str, Any]       # name -> numpy array (or None); plain data only


@dataclass
class Outcome:
    """What bounding one node gives back to the driver.

    ``children``: (certified bound, node data) of the nodes that replace it (a node re-queued
    with a better bound is a child too); ``solutions``: (value, tie key, solution data) of
    feasible points met; ``pruned``: the least bound of the parts of the node dropped inside
    the task (fixings, children past the cutoff, a node past the cutoff); ``shared``: entries
    for the run's shared log (every worker sees them from the next batch on); ``stats``:
    counters to add up; ``stop``: "time_limit" or "error" to end the search after this node.
    """

    children: list[tuple[float, Data]] = field(default_factory=list)
    solutions: list[tuple[float, tuple, Data]] = field(default_factory=list)
    pruned: float = math.inf
    shared: list[Data] = field(default_factory=list)
    stats: dict[str, float] = field(default_factory=dict)
    stop: str | None = None
    seconds: float = 0.0
    cpu: float = 0.0


@dataclass
class Start:
    """The root phase's result: the first open nodes, incumbents, shared entries, counters,
    and what the problem must keep to resume (``arrays`` for :meth:`TreeProblem.restore`,
    ``info`` JSON scalars reported in the result)."""

    nodes: list[tuple[float, Data]] = field(default_factory=list)
    solutions: list[tuple[float, tuple, Data]] = field(default_factory=list)
    shared: list[Data] = field(default_factory=list)
    stats: dict[str, float] = field(default_factory=dict)
    arrays: Data = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)


@dataclass
class Work:
    """A worker's state for one problem: the problem (shipped once), the shared log up to the
    current batch, and the problem's own caches (``cache``, built by :meth:`new_cache`)."""

    problem: TreeProblem
    shared: list[Data] = field(default_factory=list)
    cache: Any = None


class TreeProblem:
    """Base class of a problem's side of the tree search.

    Subclasses set ``name`` and implement :meth:`key`, :meth:`root`, :meth:`process` and
    :meth:`finish`; optionally ``gap_tol`` / ``gap_floor`` (prune a node whose bound reaches
    ``UB - gap_tol * max(|UB|, gap_floor)``), :meth:`new_cache` (per-worker caches),
    :meth:`restore` (root state on resume) and ``node_solver`` (named in the result).
    The instance is pickled once per worker: keep caches out of it (in :meth:`new_cache`).
    """

    name = "tree"
    warm_up: Any = None     # a module-level function a fresh worker runs first (or None)
    gap_tol: float = 1e-4
    gap_floor: float = 0.0
    node_solver: str | None = None

    def cutoff(self, ub: float) -> float:
        """A node whose bound is at least this cannot improve the incumbent ``ub`` by the
        tolerance."""
        if not math.isfinite(ub):
            return math.inf
        return ub - self.gap_tol * max(abs(ub), self.gap_floor)

    def key(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """(data arrays, parameters) that define the tree: hashed into the checkpoint's
        fingerprint, so a checkpoint of other data or parameters is refused."""
        raise NotImplementedError

    def describe(self) -> str:
        """One line naming the problem (for messages)."""
        return self.name

    def root(self, ctx: Any) -> Start:
        """The root phase, in the driver: first incumbents and open nodes. ``ctx`` has the
        plan (``ctx.plan``) and the executor (``ctx.executor``) a sub-search may reuse."""
        raise NotImplementedError

    def restore(self, arrays: Data, info: dict[str, Any]) -> None:
        """Take back the root phase's ``Start.arrays`` / ``info`` (on resume, and on the
        driver after :meth:`root`)."""

    def new_cache(self) -> Any:
        """Per-worker caches (e.g. solved subproblems), built once in each worker."""
        return None

    def process(self, work: Work, node: Data, bound: float, ub: float,
                deadline: Any) -> Outcome:
        """Bound and branch ``node`` (inherited bound ``bound``) with incumbent value ``ub``
        as of the batch: runs on a worker, must depend only on its arguments and
        ``work.shared`` (caches may only save time), so the run is deterministic."""
        raise NotImplementedError

    def finish(self, search: Any) -> Any:
        """The method's :class:`~sparsekm.solvers.Result` from the finished search
        (``search.best``, ``search.lower_bound()``, ``search.termination``, ...)."""
        raise NotImplementedError


def fingerprint(problem: TreeProblem) -> str:
    """SHA-256 of the problem's class, data arrays and parameters."""
    arrays, params = problem.key()
    h = hashlib.sha256()
    h.update(f"{type(problem).__module__}.{type(problem).__qualname__}".encode())
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}:{a.dtype.str}:{a.shape}".encode())
        h.update(a.tobytes())
    h.update(json.dumps(params, sort_keys=True, default=str).encode())
    return h.hexdigest()
