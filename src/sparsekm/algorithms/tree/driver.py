"""The driver loop of a search: release batches, hand their nodes to idle workers, merge.

Deterministic parallelism in the manner of Gurobi's deterministic mode: nodes are released in
*batches* of the best open nodes, each bounded with the incumbent and shared log as of its
release, and merged back in release order. At most ``depth`` = 2 batches are in flight, so
workers start the next batch while the last nodes of the previous one finish (no barrier);
what a batch contains depends only on earlier merges, never on timing. The certified optimum
is the same for any number of workers, and for a fixed batch size so is the whole run.
"""

from __future__ import annotations

import heapq
import math
import time
from collections import deque

from sparsekm.parallel.slots import Slots
from sparsekm.solvers import SolverPlan, Termination, relative_gap

from .options import SearchOptions
from .resume import save_search
from .state import Batch, Search

__all__ = ["Driver", "progress"]

TRACE_EVERY = 1.0     # seconds between two points of the bound trace (Search.trace)


def progress(search: Search, plan: SolverPlan, t0: float, workers: int) -> None:
    """A progress line on stderr (``plan.verbose``): nodes, open, LB, UB, gap, nodes/s."""
    lb, dt = search.lower_bound(), time.perf_counter() - t0
    rate = search.nodes / dt if dt > 0 else 0.0
    plan.progress(f"{search.problem.name} {plan.clock.elapsed():7.1f}s nodes {search.nodes} "
                  f"open {search.open_nodes} LB {lb:.6g} UB {search.ub:.6g} gap "
                  f"{relative_gap(search.ub, lb) or 0:.3e} nodes/s {rate:.3g} "
                  f"workers {workers}")


class Driver:
    """The loop: release batches, hand their nodes to idle workers, merge in order."""

    def __init__(self, search: Search, plan: SolverPlan, opts: SearchOptions, slots: Slots,
                 path: str | None) -> None:
        self.s, self.plan, self.opts, self.path = search, plan, opts, path
        self.slots = slots
        # a task carries up to ``chunk`` nodes of a batch (the problem's, for worker
        # processes only: in this process there is no message to amortise), never more than
        # the batch spread over the workers
        chunk = 1 if slots.pool.kind == "serial" else max(1, int(search.problem.chunk))
        self.batch = opts.batch or slots.size * chunk
        self.chunk = max(1, min(chunk, -(-self.batch // slots.size)))
        self.depth = 1 if self.batch == 1 else 2
        self.queue: deque[tuple[Batch, int]] = deque()
        self.released = 0
        self.merged = 0
        self.stopping = False
        self.owner: dict[int, tuple[Batch, list[int]]] = {}

    def refill(self) -> None:
        s, lim = self.s, self.opts.node_limit
        while not self.stopping and len(s.inflight) < self.depth:
            k = self.batch if lim is None else min(self.batch, lim - self.released)
            nodes = s.select(k) if k > 0 else []
            if not nodes:
                return
            b = Batch(nodes, s.ub, len(s.shared), [None] * len(nodes), self.merged)
            s.inflight.append(b)
            self.queue.extend((b, i) for i in range(len(nodes)))
            self.released += len(nodes)

    def dispatch(self) -> None:
        """Queued nodes to idle slots, up to ``chunk`` nodes of one batch per task (the
        in-process slot takes one task at a time)."""
        while self.queue and not self.plan.clock.expired():
            free = self.slots.idle()
            if not free:
                return
            b, i = self.queue.popleft()
            idx = [i]
            while len(idx) < self.chunk and self.queue and self.queue[0][0] is b:
                idx.append(self.queue.popleft()[1])
            slot = free[0]
            self.owner[slot] = (b, idx)
            if self.chunk == 1:
                bound, _, data = b.nodes[i]
                op, args = "process", (data, bound, b.ub)
            else:
                op, args = "process_chunk", ([(b.nodes[j][2], b.nodes[j][0]) for j in idx],
                                             b.ub)
            self.slots.submit(slot, op, args, b.version, self.s.shared,
                              self.plan.clock.remaining())

    def merge_ready(self) -> None:
        s = self.s
        while s.inflight and s.inflight[0].complete:
            b = s.inflight.pop(0)
            self.merged += 1
            s.schedule.append((b.after, [out.cpu for out in b.results if out is not None]))
            for (bound, _, _), out in zip(b.nodes, b.results):
                assert out is not None
                s.nodes += 1
                s.node_times.append(out.seconds)
                s.absorb(out, base=bound)
                if out.stop is not None:
                    s.stop(out.stop)
                    self.stopping = True
            self.refill()

    def abandon(self) -> None:
        """Put the nodes of unmerged batches back in the heap (their bounds stay valid) and
        stop waiting for their tasks."""
        s = self.s
        for b in s.inflight:
            for e in b.nodes:
                heapq.heappush(s.heap, e)
        s.inflight.clear()
        self.queue.clear()
        self.slots.abandon(set(self.owner))
        self.owner.clear()

    def _collect(self, timeout: float) -> None:
        for slot, ok, val in self.slots.wait(None if math.isinf(timeout) else max(timeout, 0)):
            b, idx = self.owner.pop(slot)
            if not ok:
                self.abandon()
                if self.path:
                    save_search(self.s, self.path, time.perf_counter() - self.t0)
                cause = getattr(val, "__cause__", None)
                raise (cause if isinstance(cause, Exception) else val)
            for i, out in zip(idx, val if isinstance(val, list) else [val]):
                b.results[i] = out

    def trace(self, force: bool = False) -> None:
        """A point (seconds since the run's start, LB, UB, nodes) of the bound trace, at most
        one per TRACE_EVERY seconds (the figures of gap over time)."""
        s, now = self.s, self.plan.clock.elapsed()
        if force or not s.trace or now - s.trace[-1][0] >= TRACE_EVERY:
            s.trace.append((round(now, 3), s.lower_bound(), s.ub, s.nodes))

    def run(self) -> None:
        s, plan, opts = self.s, self.plan, self.opts
        c0 = time.process_time()
        self.t0 = last_log = last_ckpt = time.perf_counter()
        waited = 0.0
        self.refill()
        self.trace(force=True)
        while s.inflight:
            if plan.clock.expired():
                s.stop(Termination.TIME_LIMIT)
                break
            self.dispatch()
            tw = time.perf_counter()
            self._collect(min(plan.clock.remaining(),
                              opts.log_every if plan.verbose else math.inf,
                              opts.checkpoint_every if self.path else math.inf))
            waited += time.perf_counter() - tw
            self.merge_ready()
            self.trace()
            if self.stopping and s.termination is not Termination.CONVERGED:
                break
            now = time.perf_counter()
            if plan.verbose and now - last_log >= opts.log_every:
                last_log = now
                progress(s, plan, self.t0, self.slots.size)
            if self.path and now - last_ckpt >= opts.checkpoint_every:
                save_search(s, self.path, now - self.t0)
                last_ckpt = time.perf_counter()
                s.timing["checkpoint_s"] = s.timing.get("checkpoint_s", 0.0) + last_ckpt - now
                s.timing["checkpoints"] = s.timing.get("checkpoints", 0) + 1
        if s.inflight:
            self.abandon()
        if s.termination is Termination.CONVERGED and s.heap:
            s.stop(Termination.NODE_LIMIT)
        self.trace(force=True)
        self._timing(c0, waited)

    def _timing(self, c0: float, waited: float) -> None:
        """The driver's own time: all but the node tasks run here (serial, or in-process
        while no worker was ready) and all but the waiting (parallel)."""
        s = self.s
        wall = time.perf_counter() - self.t0
        serial = self.slots.pool.kind == "serial"
        inline = sum(s.node_times) if serial else self.slots.local_seconds
        own = wall - inline - (0.0 if serial else waited)
        inline_cpu = sum(o for _, c in s.schedule for o in c) if serial else 0.0
        s.timing.update(tree_s=wall, driver_s=max(own, 0.0),
                        driver_cpu=time.process_time() - c0 - inline_cpu)
