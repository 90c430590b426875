"""The worker side of the tree search, and the driver's book of what each worker holds.

A task is :func:`run_task`: the worker looks its problem up by fingerprint in a per-process
cache (:data:`_WORK`); the problem object travels only with the first task a worker gets for it,
and the shared log only as the entries that worker has not seen yet (:class:`Slots` keeps
count). Nothing is shipped per node but the node itself.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from typing import Any

from sparsekm.solvers.plan import Deadline

from .protocol import Data, Outcome, TreeProblem, Work

__all__ = ["Slots", "forget", "run_task"]

_WORK: OrderedDict[tuple[str, int], Work] = OrderedDict()   # (fingerprint, slot) -> state
_LOCK = threading.Lock()     # Dask workers may share a process (threads, processes=False)
KEEP = 8                     # states kept per process (a sub-search adds one)


def run_task(fp: str, slot: int, problem: TreeProblem | None, delta: list[Data], node: Data,
             bound: float, ub: float, remaining: float) -> Outcome:
    """Bound one node on this worker (see :meth:`TreeProblem.process`)."""
    with _LOCK:
        work = _WORK.get((fp, slot))
        if work is None:
            if problem is None:
                raise RuntimeError(f"worker has no state for problem {fp[:12]} (evicted): "
                                   f"more than {KEEP} searches shared one pool")
            work = _WORK[(fp, slot)] = Work(problem, [], problem.new_cache())
            while len(_WORK) > KEEP:
                _WORK.popitem(last=False)
        _WORK.move_to_end((fp, slot))
    work.shared.extend(delta)
    deadline = Deadline(None if math.isinf(remaining) else max(remaining, 1e-6))
    t0 = time.perf_counter()
    out = work.problem.process(work, node, bound, ub, deadline)
    out.seconds = time.perf_counter() - t0
    return out


def forget(fp: str) -> None:
    """Drop this process's states of problem ``fp``."""
    with _LOCK:
        for key in [k for k in _WORK if k[0] == fp]:
            del _WORK[key]


class Slots:
    """What each slot of a pool holds of one search: the problem (sent once) and how much of
    the shared log."""

    def __init__(self, pool: Any, problem: TreeProblem, fp: str) -> None:
        self.pool, self.problem, self.fp = pool, problem, fp
        self.installed = [False] * pool.size
        self.version = [0] * pool.size
        self.idle = list(range(pool.size))

    def submit(self, slot: int, node: Data, bound: float, ub: float, version: int,
               shared: list[Data], remaining: float) -> None:
        prob = None if self.installed[slot] else self.problem
        assert version >= self.version[slot], "batches are released in order"
        delta = shared[self.version[slot]:version]
        self.pool.submit(slot, run_task, self.fp, slot, prob, delta, node, bound, ub,
                         remaining)
        self.installed[slot] = True
        self.version[slot] = version
