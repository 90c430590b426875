"""Stateful tasks on a pool: the worker side of a long parallel search, and the driver's book
of what each worker holds (the tree search of :mod:`sparsekm.algorithms.tree` runs on it).

A task is :func:`run_task`: the worker looks its problem up by fingerprint in a per-process
cache (:data:`_WORK`); the problem object travels only with the first task a worker gets for it,
and the shared log only as the entries that worker has not seen yet (:class:`Slots` keeps
count). Nothing is shipped per task but the task's own arguments.

A *problem* here is any object with ``new_cache()`` (its per-worker caches), ``restore(arrays,
info)`` (the root phase's state) and the methods the tasks name, each called as
``problem.<op>(work, *args, deadline)``.

Workers that are still starting take no task (:meth:`~sparsekm.parallel.pool.WorkerPool.
ready_slots`); while *no* worker is ready, tasks run in this process, in an extra slot
(:attr:`Slots.local`), so a search never waits for start-up. Every task depends only on its
arguments, so where it runs changes nothing but the time.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any

from sparsekm.deadline import Deadline

from .pool import Done, run_inline

__all__ = ["Slots", "Work", "forget", "run_task"]

Data = dict[str, Any]        # plain arrays: what crosses a process boundary


@dataclass
class Work:
    """A worker's state for one problem: the problem (shipped once), the shared log up to the
    current batch, and the problem's own caches (``cache``, built by its ``new_cache()``)."""

    problem: Any
    shared: list[Data] = field(default_factory=list)
    cache: Any = None

_WORK: OrderedDict[tuple[str, int], Work] = OrderedDict()   # (fingerprint, slot) -> state
_LOCK = threading.Lock()     # Dask workers may share a process (threads, processes=False)
KEEP = 8                     # states kept per slot (a sub-search adds one); in-process
                             # workers share this process, each with its own slots


@dataclass
class Sync:
    """What a worker is missing of a search, sent with its next task: the problem (first task
    only), the root phase's state (once, after the root), new shared-log entries."""

    problem: Any = None
    root: tuple[Data, dict[str, Any]] | None = None
    delta: list[Data] = field(default_factory=list)


def _work(fp: str, slot: int, problem: Any) -> Work:
    with _LOCK:
        work = _WORK.get((fp, slot))
        if work is None:
            if problem is None:
                raise RuntimeError(f"worker has no state for problem {fp[:12]} (evicted): "
                                   f"more than {KEEP} searches shared one worker")
            work = _WORK[(fp, slot)] = Work(problem, [], problem.new_cache())
            held = [key for key in _WORK if key[1] == slot]      # least recently used first
            for key in held[:max(0, len(held) - KEEP)]:
                del _WORK[key]
        _WORK.move_to_end((fp, slot))
    return work


def run_task(fp: str, slot: int, sync: Sync, op: str, args: tuple, remaining: float) -> Any:
    """``problem.<op>(work, *args, deadline)`` on this worker (the tree search: ``process``
    bounds a node; a root heuristic may name another method). A result with ``seconds`` and
    ``cpu`` fields gets the task's wall and CPU time."""
    work = _work(fp, slot, sync.problem)
    if sync.root is not None:
        work.problem.restore(*sync.root)
    work.shared.extend(sync.delta)
    deadline = Deadline(None if math.isinf(remaining) else max(remaining, 1e-6))
    t0, c0 = time.perf_counter(), time.process_time()
    out = getattr(work.problem, op)(work, *args, deadline)
    if hasattr(out, "seconds") and hasattr(out, "cpu"):
        out.seconds, out.cpu = time.perf_counter() - t0, time.process_time() - c0
    return out


def forget(fp: str) -> None:
    """Drop this process's states of problem ``fp``."""
    with _LOCK:
        for key in [k for k in _WORK if k[0] == fp]:
            del _WORK[key]


def _timeout(seconds: float) -> float | None:
    return None if math.isinf(seconds) else max(seconds, 0.0)


class Slots:
    """What each slot of a pool holds of one search (the problem, sent once; the root state,
    once; how much of the shared log), which slots are busy, and the in-process slot
    :attr:`local` used while no worker is ready."""

    def __init__(self, pool: Any, problem: Any, fp: str) -> None:
        self.pool, self.problem, self.fp = pool, problem, fp
        self.local = pool.size
        n = pool.size + 1
        self.installed = [False] * n
        self.rooted = [False] * n
        self.version = [0] * n
        self.busy: set[int] = set()
        self.stale: set[int] = set()    # running tasks whose results nobody waits for
        self.root: tuple[Data, dict[str, Any]] | None = None
        self.local_seconds = 0.0
        self._done: deque[Done] = deque()

    @property
    def size(self) -> int:
        return self.pool.size

    def idle(self) -> list[int]:
        """The slots free for a task now: the ready workers not busy, or the in-process slot
        while no worker is ready."""
        ready = self.pool.ready_slots()
        if not ready:
            return [] if self.local in self.busy else [self.local]
        busy = self.busy | self.pool.busy_slots()
        return [s for s in ready if s not in busy]

    def set_root(self, arrays: Data, info: dict[str, Any]) -> None:
        """The root phase's state, sent to each worker with its next task."""
        self.root = (arrays, info)
        self.rooted = [False] * len(self.rooted)

    def submit(self, slot: int, op: str, args: tuple, version: int, shared: list[Data],
               remaining: float) -> None:
        assert version >= self.version[slot], "batches are released in order"
        sync = Sync(None if self.installed[slot] else self.problem,
                    None if self.rooted[slot] else self.root,
                    shared[self.version[slot]:version])
        if slot == self.local:
            t = time.perf_counter()
            self._done.append(run_inline(slot, run_task, self.fp, slot, sync, op, args,
                                         remaining))
            self.local_seconds += time.perf_counter() - t
        else:
            self.pool.submit(slot, run_task, self.fp, slot, sync, op, args, remaining)
        self.busy.add(slot)
        self.installed[slot] = True
        self.rooted[slot] = self.root is not None
        self.version[slot] = version

    def wait(self, timeout: float | None) -> list[Done]:
        """Finished tasks (blocks up to ``timeout`` for one, or for a worker to become
        ready); results of abandoned (stale) tasks are dropped."""
        got: list[Done] = list(self._done)
        self._done.clear()
        got += self.pool.wait(0.0 if got else timeout)
        out = []
        for slot, ok, val in got:
            self.busy.discard(slot)
            if slot in self.stale:
                self.stale.discard(slot)
                continue
            out.append((slot, ok, val))
        return out

    def abandon(self, slots: set[int]) -> None:
        """Stop waiting for the tasks running on ``slots`` (their results will be dropped)."""
        self.stale |= slots & self.busy

    def map(self, op: str, items: list[Any], deadline: Deadline) -> list[Any]:
        """``[problem.<op>(work, item, deadline) for item in items]`` on the idle workers, in
        order (for a root phase: no node is in flight). At the deadline the items not done
        are None (their tasks are abandoned)."""
        results: list[Any] = [None] * len(items)
        todo = list(enumerate(items))[::-1]
        owner: dict[int, int] = {}
        error = None
        while todo or owner:
            if deadline.expired():
                self.abandon(set(owner))
                break
            free = self.idle() if error is None else []
            while free and todo:
                slot = free.pop(0)
                i, item = todo.pop()
                owner[slot] = i
                self.submit(slot, op, (item,), self.version[slot], [], deadline.remaining())
                if slot == self.local:
                    break
            for slot, ok, val in self.wait(_timeout(deadline.remaining())):
                i = owner.pop(slot)
                if ok:
                    results[i] = val
                elif error is None:
                    error = val
            if error is not None and not owner:
                cause = getattr(error, "__cause__", None)
                raise cause if isinstance(cause, Exception) else error
        return results
