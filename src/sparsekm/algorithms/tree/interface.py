"""What a problem supplies to the tree-search engine (:mod:`.engine`), and what it gets back.

As in PEBBL and UG (ParaSCIP / FiberSCIP), the serial search logic of a problem (its root,
how to bound and branch a node, its heuristics) is kept apart from the engine that owns the
best-first queue, the incumbent, the limits, the log, the checkpoint, the workers and the
final :class:`~sparsekm.solvers.Result` (bound, gap, tolerance, termination). The engine
*minimises*: a maximisation problem (paper A's margin sense, ``sense = "max"``) hands it
negated values, and the engine turns them back.

Everything that crosses a process boundary or goes into a checkpoint is plain data: a node, a
solution and a shared entry are ``dict[str, numpy array]`` (scalars as 0-d arrays).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from sparsekm.parallel.slots import Work
from sparsekm.solvers import Termination

if TYPE_CHECKING:
    from sparsekm.solvers import Result
    from sparsekm.solvers.plan import Deadline


__all__ = ["Data", "Outcome", "RootTools", "Solution", "Start", "TaskIncumbent", "TreeProblem",
           "Work", "array_digests", "fingerprint", "jsonable"]

Data = dict[str, Any]       # name -> numpy array (or None); plain data only
Solution = tuple[float, tuple, Data]   # (engine value, tie key, solution data)


@dataclass
class TaskIncumbent:
    """The incumbent of one task (a node, or the root phase), in the engine's (minimised)
    values: it starts at the search's ``ub`` as of the task's release, takes every point at
    least as good (ties too: the driver breaks them by key) and collects them in
    ``solutions`` for the driver, which merges them in release order."""

    ub: float = math.inf
    solutions: list[Solution] = field(default_factory=list)

    def offer(self, value: float, key: tuple, data: Data) -> bool:
        """Take ``(value, key, data)`` when ``value <= ub``; True when taken."""
        if value <= self.ub:
            self.ub = float(value)
            self.solutions.append((float(value), tuple(key), data))
            return True
        return False


class RootTools(Protocol):
    """What :meth:`TreeProblem.root` may use (the engine's :class:`~.root.RootContext`): the
    started plan, the executor, the number of workers, :meth:`map` to spread independent
    evaluations over them, :meth:`stage` to checkpoint a root stage, and a checkpoint path
    for a sub-search."""

    plan: Any
    executor: Any

    @property
    def workers(self) -> int: ...

    def map(self, op: str, items: list[Any]) -> list[Any]: ...

    def stage(self, name: str, compute: Callable[[], Data]) -> Data: ...

    def sub_checkpoint(self, name: str) -> str | None: ...


@dataclass
class Outcome:
    """What bounding one node gives back to the driver.

    ``children``: (certified bound, node data) of the nodes that replace it (a node re-queued
    with a better bound is a child too); ``solutions``: (value, tie key, solution data) of
    feasible points met; ``pruned``: the least bound of the parts of the node dropped inside
    the task (fixings, children past the cutoff, a node past the cutoff); ``shared``: entries
    for the run's shared log (every worker sees them from the next batch on); ``stats``:
    counters to add up; ``stop``: a :class:`Termination` (``TIME_LIMIT`` or ``ERROR``) that
    ends the search after this node.
    """

    children: list[tuple[float, Data]] = field(default_factory=list)
    solutions: list[Solution] = field(default_factory=list)
    pruned: float = math.inf
    shared: list[Data] = field(default_factory=list)
    stats: dict[str, float] = field(default_factory=dict)
    stop: Termination | None = None
    seconds: float = 0.0
    cpu: float = 0.0


@dataclass
class Start:
    """The root phase's result: the first open nodes, incumbents, shared entries, counters,
    and what the problem must keep to resume (``arrays`` for :meth:`TreeProblem.restore`,
    ``info`` JSON scalars reported in the result's ``extra``)."""

    nodes: list[tuple[float, Data]] = field(default_factory=list)
    solutions: list[Solution] = field(default_factory=list)
    shared: list[Data] = field(default_factory=list)
    stats: dict[str, float] = field(default_factory=dict)
    arrays: Data = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)


class TreeProblem:
    """Base class of a problem's side of the tree search: it states its side only.

    Class attributes: ``name`` (the method), ``problem_name`` (the problem, e.g.
    ``"fs-linear"``), ``sense`` (``"min"``, or ``"max"`` when the engine gets negated values),
    ``gap_tol`` (a node whose bound reaches ``UB - gap_tol |UB|`` is pruned; the result's
    tolerance, so a closed tree is ``optimal``), ``node_solver`` (named in the result),
    ``warm_up`` (a module-level function a fresh worker runs first), ``chunk`` (nodes per
    task: a problem whose nodes take well under a millisecond sends several per message, so
    that the driver's per-message cost does not dominate; the default batch is then
    ``chunk`` nodes per worker).

    Hooks: :meth:`key`, :meth:`describe`, :meth:`root`, :meth:`process` and :meth:`point`;
    optionally :meth:`new_cache` (per-worker caches) and :meth:`restore` (root state on
    resume). The engine builds the result around :meth:`point`: the certified bound on the
    problem's side, the gap tolerance, the termination and the counters. The instance is
    pickled once per worker: keep caches out of it (in :meth:`new_cache`).
    """

    name = "tree"
    problem_name = ""
    sense = "min"
    warm_up: Any = None
    gap_tol: float = 1e-4
    node_solver: str | None = None
    chunk: int = 1

    def cutoff(self, ub: float) -> float:
        """A node whose bound is at least this cannot improve the incumbent ``ub`` by more
        than the relative tolerance: ``ub - gap_tol |ub|`` (no absolute floor)."""
        if not math.isfinite(ub):
            return math.inf
        return ub - self.gap_tol * abs(ub)

    def key(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """(data arrays, parameters) that define the tree: hashed into the checkpoint's
        fingerprint and stored in its meta, so a checkpoint of other data or parameters is
        refused with the parameters that differ."""
        raise NotImplementedError

    def describe(self) -> str:
        """One line naming the problem (for messages)."""
        return self.name

    def root(self, ctx: RootTools) -> Start:
        """The root phase, in the driver: first incumbents and open nodes. ``ctx`` has the
        started plan (``ctx.plan``), the executor a sub-search may reuse (``ctx.executor``)
        and :meth:`~.root.RootContext.map` / :meth:`~.root.RootContext.stage`."""
        raise NotImplementedError

    def restore(self, arrays: Data, info: dict[str, Any]) -> None:
        """Take back the root phase's ``Start.arrays`` / ``info`` (on resume, and on the
        driver after :meth:`root`)."""

    def new_cache(self) -> Any:
        """Per-worker caches (e.g. solved subproblems), built once in each worker."""
        return None

    def process(self, work: Work, node: Data, bound: float, ub: float,
                deadline: Deadline) -> Outcome:
        """Bound and branch ``node`` (inherited bound ``bound``) with incumbent value ``ub``
        as of the batch: runs on a worker, must depend only on its arguments and
        ``work.shared`` (caches may only save time), so the run is deterministic."""
        raise NotImplementedError

    def process_chunk(self, work: Work, nodes: list[tuple[Data, float]], ub: float,
                      deadline: Deadline) -> list[Outcome]:
        """:meth:`process` on each ``(node, bound)`` of one task in turn (all with the same
        incumbent value ``ub``), each outcome with its own wall and CPU seconds."""
        import time

        outs = []
        for node, bound in nodes:
            t0, c0 = time.perf_counter(), time.process_time()
            out = self.process(work, node, bound, ub, deadline)
            out.seconds, out.cpu = time.perf_counter() - t0, time.process_time() - c0
            outs.append(out)
        return outs

    def point(self, best: Data, objective: float) -> Result:
        """The incumbent ``best`` (a solution's data, of value ``objective`` in the
        problem's own sense) as a :class:`~sparsekm.solvers.Result` holding the point:
        objective, ``selected``, ``values``. The engine adds the rest."""
        raise NotImplementedError


def jsonable(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` as they read back from JSON (tuples as lists, other objects as text)."""
    return json.loads(json.dumps(params, sort_keys=True, default=str))


def array_digests(arrays: dict[str, np.ndarray]) -> dict[str, str]:
    """SHA-256 of each data array (dtype, shape and bytes)."""
    out = {}
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h = hashlib.sha256(f"{a.dtype.str}:{a.shape}".encode())
        h.update(a.tobytes())
        out[name] = h.hexdigest()
    return out


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
