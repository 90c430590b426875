"""One best-first branch-and-bound engine for papers A, B and D: serial, parallel, resumable.

The engine owns what the three tree searches shared (a problem supplies the rest through
:class:`~.protocol.TreeProblem`):

* the open nodes in a heap ordered by (bound, creation order): ties go to the older node, so
  the order is deterministic;
* the incumbent (ties: the smaller tie key), pruning at ``UB - gap_tol max(|UB|, gap_floor)``
  and the certified bound ``min(open nodes, nodes in flight, pruned floor, UB)``, valid at
  every stop: a time or node limit returns the incumbent with its bound and gap;
* deterministic parallelism in the manner of Gurobi's deterministic mode: nodes are released
  in *batches* of the best open nodes, each bounded with the incumbent and shared log as of its
  release, and merged back in release order. At most ``depth`` = 2 batches are in flight, so
  workers start the next batch while the last nodes of the previous one finish (no barrier);
  what a batch contains depends only on earlier merges, never on timing. The certified optimum
  is the same for any number of workers, and for a fixed batch size so is the whole run;
* the workers: :meth:`sparsekm.parallel.Executor.session` (this process, local processes, or
  a Dask cluster), each sent the problem once (:mod:`.dispatch`);
* checkpoints (:mod:`.checkpoint`) after the root phase and every ``checkpoint_every`` seconds
  at a merge point; the same call with the same path resumes;
* a progress line on stderr (``plan.verbose``): nodes, open, LB, UB, gap, nodes/s.

Ramp-up (UG's term) is the normal one: the root phase runs in the driver (a heuristic's
sub-search may use the pool), then batches grow with the open set.
"""

from __future__ import annotations

import heapq
import math
import os
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sparsekm.parallel import as_executor
from sparsekm.solvers import SolverPlan, relative_gap

from . import checkpoint as ckpt
from .dispatch import Slots, forget
from .protocol import Data, Outcome, Start, TreeProblem, fingerprint

__all__ = ["Search", "SearchOptions", "Trace", "run"]

Entry = tuple[float, int, Data]      # (bound, creation order, node data)


@dataclass(frozen=True)
class SearchOptions:
    """How a search runs (none of this changes the certified optimum).

    ``workers``: 1 runs in this process, k > 1 in k local processes, -1 one per core;
    ``scheduler``: a Dask scheduler address or client (then ``workers`` is ignored);
    ``checkpoint``: path of the resumable state (None: none); ``checkpoint_every``: seconds
    between writes; ``batch``: nodes per batch (default: one per worker); ``node_limit``:
    nodes bounded by this call; ``log_every``: seconds between progress lines.
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
    termination: str = "converged"
    resumed: bool = False
    root_done: bool = False
    stages: dict[str, Data] = field(default_factory=dict)
    inflight: list[Batch] = field(default_factory=list)
    node_times: list[float] = field(default_factory=list)
    schedule: list[tuple[int, list[float]]] = field(default_factory=list)
    timing: dict[str, float] = field(default_factory=dict)

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


@dataclass
class Trace:
    """How a search ran (``Result.raw`` of a tree method): nodes bounded by this call, per
    merged batch (batches merged when it was released, its tasks' CPU seconds), each node
    task's wall seconds, and phase timings (root, stages, driver, checkpoints)."""

    nodes: int
    schedule: list[tuple[int, list[float]]]
    node_times: list[float]
    timing: dict[str, float]


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def _save(search: Search, path: str, elapsed: float) -> int:
    entries = list(search.heap) + [e for b in search.inflight for e in b.nodes]
    meta = {"fingerprint": search.fp, "problem": search.problem.describe(),
            "ub": _finite(search.ub), "best_key": list(search.best_key),
            "floor": _finite(search.floor), "counter": search.counter,
            "nodes_total": search.nodes_before + search.nodes, "stats": search.stats,
            "info": search.info, "root_done": search.root_done,
            "stages": list(search.stages),
            "seconds_total": search.timing.get("before", 0.0) + elapsed,
            "saved": time.strftime("%Y-%m-%d %H:%M:%S")}
    groups = {"nodes": [e[2] for e in entries], "shared": search.shared,
              "best": [] if search.best is None else [search.best],
              "root": [search.root_arrays], "stages": list(search.stages.values())}
    arrays = {"nodes_bound": np.array([e[0] for e in entries], float),
              "nodes_order": np.array([e[1] for e in entries], np.int64)}
    return ckpt.save(path, meta, groups, arrays)


def _inf(x: float | None) -> float:
    return math.inf if x is None else float(x)


def _load(problem: TreeProblem, fp: str, path: str) -> Search | None:
    """The search saved at ``path`` (None when there is no file); refuses another problem's."""
    if not os.path.exists(path):
        return None
    meta, groups, arrays = ckpt.load(path)
    if meta.get("fingerprint") != fp:
        raise ckpt.CheckpointError(
            f"checkpoint {path} belongs to another problem or other parameters "
            f"({meta.get('problem')}); this run is {problem.describe()}. Use another "
            "--checkpoint path, or delete the file to start over")
    s = Search(problem, fp, counter=int(meta["counter"]), ub=_inf(meta["ub"]),
               best_key=tuple(meta["best_key"]), floor=_inf(meta["floor"]),
               shared=groups["shared"], stats=dict(meta["stats"]), info=dict(meta["info"]),
               root_arrays=groups["root"][0] if groups["root"] else {},
               nodes_before=int(meta["nodes_total"]), resumed=True,
               root_done=bool(meta["root_done"]),
               stages=dict(zip(meta["stages"], groups["stages"])))
    s.best = groups["best"][0] if groups["best"] else None
    s.heap = [(float(b), int(o), d) for b, o, d in
              zip(arrays["nodes_bound"], arrays["nodes_order"], groups["nodes"])]
    heapq.heapify(s.heap)
    s.timing["before"] = float(meta.get("seconds_total", 0.0))
    return s


@dataclass
class RootContext:
    """What :meth:`TreeProblem.root` may use: the started plan, the executor (a sub-search
    reuses its workers), the number of workers, and :meth:`map` to spread independent
    evaluations (``problem.<op>(work, item, deadline)``) over them."""

    plan: SolverPlan
    executor: Any
    slots: Slots
    search: Search
    path: str | None = None
    t0: float = 0.0
    subs: list[str] = field(default_factory=list)

    @property
    def workers(self) -> int:
        return self.slots.pool.size

    def map(self, op: str, items: list[Any]) -> list[Any]:
        return self.slots.map(op, list(items), self.plan.clock.remaining())

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
                _save(self.search, self.path, time.perf_counter() - self.t0)
        return stages[name]

    def sub_checkpoint(self, name: str) -> str | None:
        """A checkpoint path for a sub-search of the root phase (None without one)."""
        if not self.path:
            return None
        self.subs.append(f"{self.path}.{name}")
        return self.subs[-1]


def _progress(search: Search, plan: SolverPlan, t0: float, workers: int) -> None:
    lb, dt = search.lower_bound(), time.perf_counter() - t0
    rate = search.nodes / dt if dt > 0 else 0.0
    plan.progress(f"{search.problem.name} {plan.clock.elapsed():7.1f}s nodes {search.nodes} "
                  f"open {search.open_nodes} LB {lb:.6g} UB {search.ub:.6g} gap "
                  f"{relative_gap(search.ub, lb) or 0:.3e} nodes/s {rate:.3g} "
                  f"workers {workers}")


class _Driver:
    """The loop: release batches, hand their nodes to idle workers, merge in order."""

    def __init__(self, search: Search, plan: SolverPlan, opts: SearchOptions, slots: Slots,
                 path: str | None) -> None:
        self.s, self.plan, self.opts, self.path = search, plan, opts, path
        self.slots, self.pool = slots, slots.pool
        self.batch = opts.batch or self.pool.size
        self.depth = 1 if self.batch == 1 else 2
        self.queue: deque[tuple[Batch, int]] = deque()
        self.released = 0
        self.merged = 0
        self.stopping = False
        self.owner: dict[int, tuple[Batch, int]] = {}

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
        remaining = self.plan.clock.remaining()
        while self.slots.idle and self.queue:
            b, i = self.queue.popleft()
            slot = self.slots.idle.pop(0)
            bound, _, data = b.nodes[i]
            self.owner[slot] = (b, i)
            self.slots.submit(slot, "process", (data, bound, b.ub), b.version, self.s.shared,
                              remaining)

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
                    s.termination = out.stop
                    self.stopping = True
            self.refill()

    def abandon(self) -> None:
        """Put the nodes of unmerged batches back in the heap (their bounds stay valid)."""
        s = self.s
        for b in s.inflight:
            for e in b.nodes:
                heapq.heappush(s.heap, e)
        s.inflight.clear()
        self.queue.clear()

    def run(self) -> None:
        s, plan, opts = self.s, self.plan, self.opts
        c0 = time.process_time()
        t0 = last_log = last_ckpt = time.perf_counter()
        waited = 0.0
        self.refill()
        while s.inflight:
            if plan.clock.expired():
                s.termination = "time_limit"
                break
            self.dispatch()
            tw = time.perf_counter()
            timeout = min(plan.clock.remaining(), opts.log_every if plan.verbose else math.inf,
                          opts.checkpoint_every if self.path else math.inf)
            done = self.pool.wait(None if math.isinf(timeout) else max(timeout, 0.0))
            waited += time.perf_counter() - tw
            for slot, ok, val in done:
                self.slots.idle.append(slot)
                b, i = self.owner.pop(slot)
                if not ok:
                    self.abandon()
                    if self.path:
                        _save(s, self.path, time.perf_counter() - t0)
                    cause = getattr(val, "__cause__", None)
                    raise (cause if isinstance(cause, Exception) else val)
                b.results[i] = val
            self.slots.idle.sort()
            self.merge_ready()
            if self.stopping and s.termination != "converged":
                break
            now = time.perf_counter()
            if plan.verbose and now - last_log >= opts.log_every:
                last_log = now
                _progress(s, plan, t0, self.pool.size)
            if self.path and now - last_ckpt >= opts.checkpoint_every:
                _save(s, self.path, now - t0)
                last_ckpt = time.perf_counter()
                s.timing["checkpoint_s"] = s.timing.get("checkpoint_s", 0.0) + last_ckpt - now
                s.timing["checkpoints"] = s.timing.get("checkpoints", 0) + 1
        if s.inflight:
            self.abandon()
        if s.termination == "converged" and s.heap:
            s.termination = "node_limit"
        wall = time.perf_counter() - t0
        # the driver's own time: all but the node tasks (serial) / all but waiting (parallel)
        own = wall - (sum(s.node_times) if self.pool.kind == "serial" else waited)
        s.timing.update(tree_s=wall, driver_s=max(own, 0.0),
                        driver_cpu=time.process_time() - c0 - (
                            sum(o for _, c in s.schedule for o in c)
                            if self.pool.kind == "serial" else 0.0))


@contextmanager
def _one_blas_thread() -> Iterator[None]:
    """One BLAS thread in the driver, as in the workers: small products run fastest so on a
    shared machine, and every process then computes bit-identical values."""
    from sparsekm.parallel import _blas_controller

    with _blas_controller().limit(limits=1, user_api="blas"):
        yield


def run(problem: TreeProblem, plan: SolverPlan, opts: SearchOptions) -> Any:
    """Search ``problem``'s tree; returns its :meth:`~TreeProblem.finish` Result, with
    ``extra`` nodes (bounded by this call), nodes_total, open_nodes, workers, batch,
    resumed, node_time (mean / quantiles, s) and driver_s_per_node."""
    plan = plan.start()
    t_start = time.perf_counter()
    executor = as_executor(plan.executor if plan.executor is not None else opts.scheduler,
                           opts.workers)
    plan = plan.with_(executor=executor)
    fp = fingerprint(problem)
    path = opts.checkpoint
    search = _load(problem, fp, path) if path else None
    with _one_blas_thread(), executor.session(getattr(problem, "warm_up", None)) as pool:
        slots = Slots(pool, problem, fp)
        if search is None or not search.root_done:
            search = search or Search(problem, fp, plan)
            t0, c0 = time.perf_counter(), time.process_time()
            ctx = RootContext(plan, executor, slots, search, path, t_start)
            start = problem.root(ctx)
            search.root_arrays, search.info = dict(start.arrays), dict(start.info)
            search.absorb(start)
            search.root_done, search.stages = True, {}
            search.timing["root_s"] = time.perf_counter() - t0
            search.timing["root_cpu"] = time.process_time() - c0
            if path:
                _save(search, path, time.perf_counter() - t_start)
                for sub in ctx.subs:         # the root's stages hold what they found
                    if os.path.exists(sub):
                        os.remove(sub)
        search.plan = plan
        problem.restore(search.root_arrays, search.info)
        slots.set_root(search.root_arrays, search.info)
        driver = _Driver(search, plan, opts, slots, path)
        try:
            driver.run()
        finally:
            forget(fp)
    if path:
        _save(search, path, time.perf_counter() - t_start)
    if plan.verbose:
        _progress(search, plan, t_start, pool.size)
    res = problem.finish(search)
    res.time_s = plan.clock.elapsed()
    res.raw = Trace(search.nodes, search.schedule, search.node_times, dict(search.timing))
    times = np.asarray(search.node_times)
    q = np.quantile(times, [0.5, 0.9, 0.99]).tolist() if times.size else [None] * 3
    res.extra.update(
        nodes=search.nodes, nodes_total=search.nodes_before + search.nodes,
        open_nodes=search.open_nodes, workers=pool.size, batch=driver.batch,
        resumed=search.resumed, root_s=search.timing.get("root_s"),
        node_time={"mean": float(times.mean()) if times.size else None, "p50": q[0],
                   "p90": q[1], "p99": q[2], "max": float(times.max()) if times.size else None},
        driver_s_per_node=search.timing["driver_s"] / max(search.nodes, 1),
        **{k: v for k, v in search.stats.items() if k not in ("nodes",)})
    return res
