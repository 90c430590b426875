"""Persistent workers for long parallel runs (tree search): one slot per process or Dask worker.

:meth:`sparsekm.parallel.Executor.map` suits one-shot independent work. A tree search instead
sends thousands of small tasks over a run and wants each worker to keep what it was given (the
problem's data, caches) from one task to the next. A pool here is a fixed set of *slots*; the
caller sends a task to a chosen slot (``submit``) and collects whatever finished (``wait``).
Because the caller knows which slot ran what, it can ship data to each slot once and keep
per-slot state in sync (:mod:`.slots`).

* :class:`SerialPool` runs a task in this process when it is submitted (one slot);
* :class:`LocalPool` keeps ``n`` spawned processes for its lifetime, one pipe each, BLAS
  limited to one thread per process; the processes die with their parent (also on kill -9).
  They start *in the background*, at most ``concurrency`` (one per core) at a time, so that
  the caller is never held up by start-up: :meth:`WorkerPool.ready_slots` lists the workers
  ready for tasks, and ``wait`` also returns (with no result) when one becomes ready. More
  workers than cores are allowed, with an :class:`OversubscriptionWarning`;
* :class:`DaskPool` pins tasks to the workers of a ``dask.distributed`` client (one slot per
  worker; use ``threads_per_worker=1``).

Tasks are ``fn(*args)`` with ``fn`` a module-level function (sent by reference); the state a
worker keeps between tasks lives in that module (a dict keyed by what the caller chose).
"""

from __future__ import annotations

import os
import threading
import traceback
import warnings
from collections import deque
from collections.abc import Callable
from contextlib import contextmanager, suppress
from typing import Any

__all__ = ["DaskPool", "LocalPool", "OversubscriptionWarning", "SerialPool", "TaskError",
           "WorkerPool", "usable_cores"]

Done = tuple[int, bool, Any]   # (slot, ok, result or TaskError)
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
               "NUMBA_NUM_THREADS")
_ENV_LOCK = threading.Lock()


class TaskError(RuntimeError):
    """A task raised on a worker; ``remote`` is the worker's traceback."""

    def __init__(self, message: str, remote: str = "") -> None:
        super().__init__(message)
        self.remote = remote


class OversubscriptionWarning(RuntimeWarning):
    """More worker processes than cores: they share the cores (and start a few at a time)."""


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity; ``os.cpu_count()`` elsewhere)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


class WorkerPool:
    """Slots that run tasks; subclasses implement ``submit``, ``wait`` and ``close``."""

    size: int = 1
    kind: str = "serial"

    def submit(self, slot: int, fn: Callable[..., Any], *args: Any) -> None:
        raise NotImplementedError

    def wait(self, timeout: float | None = None) -> list[Done]:
        """The tasks finished since the last call (blocks until one is, a worker becomes
        ready, or ``timeout``)."""
        raise NotImplementedError

    def ready_slots(self) -> list[int]:
        """The slots ready to take a task (busy or not): every slot once started."""
        return list(range(self.size))

    def busy_slots(self) -> set[int]:
        """The slots running a task (whoever submitted it)."""
        return set()

    @property
    def starting(self) -> bool:
        """True while some worker is still starting."""
        return False

    def close(self) -> None:
        """Stop the workers (tasks still running are abandoned)."""

    def drain(self) -> None:
        """Wait for the running tasks and drop their results (before the pool is reused)."""
        while self.wait(None):
            pass

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class SerialPool(WorkerPool):
    """One slot: this process (no copies, no IPC)."""

    def __init__(self) -> None:
        self._done: deque[Done] = deque()

    def submit(self, slot: int, fn: Callable[..., Any], *args: Any) -> None:
        self._done.append(run_inline(slot, fn, *args))

    def wait(self, timeout: float | None = None) -> list[Done]:
        out = list(self._done)
        self._done.clear()
        return out


def run_inline(slot: int, fn: Callable[..., Any], *args: Any) -> Done:
    """``fn(*args)`` in this process, its exception handed back like a worker's."""
    try:
        return slot, True, fn(*args)
    except Exception as exc:    # noqa: BLE001 - handed back like a worker's error
        err = TaskError(f"{type(exc).__name__}: {exc}", traceback.format_exc())
        err.__cause__ = exc
        return slot, False, err


@contextmanager
def single_thread_env() -> Any:
    """os.environ with one BLAS / OpenMP / numba thread while child processes start."""
    with _ENV_LOCK:
        old = {v: os.environ.get(v) for v in THREAD_VARS}
        os.environ.update({v: "1" for v in THREAD_VARS})
        try:
            yield
        finally:
            for v, val in old.items():
                if val is None:
                    os.environ.pop(v, None)
                else:
                    os.environ[v] = val


def _die_with_parent() -> None:
    """Linux: SIGKILL this process when its parent dies (prctl PR_SET_PDEATHSIG; the parent
    is the *thread* that started it, which lives as long as the pool)."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, int(signal.SIGKILL))
    except (OSError, AttributeError):    # not Linux: the closed pipe ends the worker instead
        pass


def _serve(conn: Any, parent: int, warm: Callable[[], Any] | None = None,
           ready: Any = None) -> None:
    """A worker process: ``warm()`` (load compiled code), say it is ready on ``ready``, then
    run ``(fn, args)`` messages until ``None`` or the parent is gone."""
    _die_with_parent()
    if os.getppid() != parent:
        return
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the parent's to handle
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=1)
    except ImportError:    # pragma: no cover - threadpoolctl comes with scikit-learn
        pass
    if warm is not None:
        with suppress(Exception):      # only a speed-up: a failing task will say what fails
            warm()
    if ready is not None:
        with suppress(OSError, ValueError):
            ready.send(os.getpid())
            ready.close()
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        if msg is None:
            return
        fn, args = msg
        try:
            out: tuple[bool, Any] = (True, fn(*args))
        except Exception as exc:    # noqa: BLE001 - the caller decides
            out = (False, TaskError(f"{type(exc).__name__}: {exc}", traceback.format_exc()))
        try:
            conn.send(out)
        except (OSError, ValueError):
            return


class LocalPool(WorkerPool):
    """``n`` persistent local processes (spawned once, one pipe each); each runs ``warm()``
    first, e.g. to load numba-compiled code.

    The processes start in a background thread, at most ``concurrency`` (default: one per
    core) at a time, each after the previous ones of its wave are ready: the constructor
    returns at once, and a caller uses :meth:`ready_slots` (a worker still starting cannot
    take a task). The thread lives as long as the pool, since a worker is killed when the
    thread that started it ends (:func:`_die_with_parent`).
    """

    kind = "processes"

    def __init__(self, n: int, warm: Callable[[], Any] | None = None, *,
                 concurrency: int | None = None) -> None:
        import multiprocessing as mp

        self._ctx = mp.get_context("spawn")
        self.size = int(n)
        cores = usable_cores()
        if self.size > cores:
            from sparsekm.declare import in_words, mention

            text = (f"{mention('workers', str(self.size), str(self.size))} > {cores} cores: "
                    f"the workers share the cores and start {cores} at a time, and the search "
                    "uses those ready in time; use at most one worker per core (or a Dask "
                    "cluster)")
            warning = OversubscriptionWarning(in_words(text))
            warning.template = text          # the CLI shows it in its words (--workers 4)
            warnings.warn(warning, stacklevel=4)   # the session's caller
        self.concurrency = max(1, int(concurrency or cores))
        self._conns: list[Any] = [None] * self.size
        self._procs: list[Any] = [None] * self.size
        self._busy: set[int] = set()
        self._ready: set[int] = set()
        self._dead: dict[int, Any] = {}
        self._reported: set[int] = set()
        self._lock = threading.Lock()
        self._wake_r, self._wake_w = self._ctx.Pipe(duplex=False)
        self._stop_r, self._stop_w = self._ctx.Pipe(duplex=False)
        self._thread = threading.Thread(target=self._start_all, args=(warm,), daemon=True,
                                        name="sparsekm-pool-start")
        self._thread.start()

    # --- the start-up thread -----------------------------------------------------------
    def _start_one(self, slot: int, warm: Callable[[], Any] | None) -> Any:
        ours, theirs = self._ctx.Pipe(duplex=True)
        ready_r, ready_w = self._ctx.Pipe(duplex=False)
        p = self._ctx.Process(target=_serve, args=(theirs, os.getpid(), warm, ready_w),
                              daemon=True, name=f"sparsekm-worker-{slot}")
        with single_thread_env():
            p.start()
        theirs.close()
        ready_w.close()
        with self._lock:
            self._conns[slot], self._procs[slot] = ours, p
        return ready_r

    def _start_all(self, warm: Callable[[], Any] | None) -> None:
        """Start the workers, ``concurrency`` at a time, marking each ready (or dead); then
        live until :meth:`close` (see the class doc)."""
        from multiprocessing.connection import wait

        pending: dict[int, Any] = {}
        nxt = 0
        try:
            while nxt < self.size or pending:
                while nxt < self.size and len(pending) < self.concurrency:
                    if self._stop_r.poll():
                        return
                    pending[nxt] = self._start_one(nxt, warm)
                    nxt += 1
                got = wait(list(pending.values()) + [self._stop_r])
                if self._stop_r in got:
                    return
                for slot, r in list(pending.items()):
                    if r in got:
                        del pending[slot]
                        self._arrived(slot, r)
        except Exception as exc:  # noqa: BLE001 - the pool goes on with the workers it has
            with self._lock:
                for slot in [*pending, *range(nxt, self.size)]:
                    self._dead.setdefault(slot, f"not started: {exc}")
        finally:
            for r in pending.values():
                r.close()
        wait([self._stop_r])

    def _arrived(self, slot: int, ready: Any) -> None:
        """Worker ``slot`` said it is ready (or ended before it could)."""
        try:
            ready.recv()
            ok = True
        except (EOFError, OSError):
            ok = False
        ready.close()
        with self._lock:
            if ok:
                self._ready.add(slot)
            else:
                self._dead[slot] = self._procs[slot].exitcode
        with suppress(OSError, ValueError):
            self._wake_w.send_bytes(b"r")

    # --- the caller's side -------------------------------------------------------------
    def ready_slots(self) -> list[int]:
        with self._lock:
            ready, dead = sorted(self._ready), dict(self._dead)
        for slot, code in dead.items():
            if slot not in self._reported and not self._stop_w.closed:
                self._reported.add(slot)
                warnings.warn(f"worker {slot} ended during its start (exit code {code}); the "
                              "search goes on without it", RuntimeWarning, stacklevel=2)
        return ready

    @property
    def starting(self) -> bool:
        with self._lock:
            return len(self._ready) + len(self._dead) < self.size

    def busy_slots(self) -> set[int]:
        return set(self._busy)

    def submit(self, slot: int, fn: Callable[..., Any], *args: Any) -> None:
        if slot not in self._ready:
            raise RuntimeError(f"worker {slot} is not ready (still starting, or ended)")
        self._conns[slot].send((fn, args))
        self._busy.add(slot)

    def wait(self, timeout: float | None = None) -> list[Done]:
        from multiprocessing.connection import wait

        watch = [self._conns[s] for s in self._busy]
        if self.starting:
            watch.append(self._wake_r)
        if not watch:
            return []
        ready = wait(watch, timeout)
        if self._wake_r in ready:
            while self._wake_r.poll():
                self._wake_r.recv_bytes()
        out: list[Done] = []
        for slot in sorted(self._busy):
            conn = self._conns[slot]
            if conn not in ready:
                continue
            self._busy.discard(slot)
            try:
                ok, val = conn.recv()
            except (EOFError, OSError) as exc:
                code = self._procs[slot].exitcode
                ok, val = False, TaskError(f"worker {slot} died (exit code {code}): {exc}")
            out.append((slot, ok, val))
        return out

    def drain(self) -> None:
        while self._busy:
            self.wait(None)

    def close(self) -> None:
        """Terminate the workers: they keep nothing worth saving, and a busy one (a task
        abandoned at a limit) or a starting one is not waited for."""
        if self._stop_w.closed:
            return
        with suppress(OSError, ValueError):
            self._stop_w.send_bytes(b"s")
        self._thread.join()
        with self._lock:
            procs = [p for p in self._procs if p is not None]
        for p in procs:
            p.terminate()
        for p in procs:
            p.join(timeout=2.0)
            if p.is_alive():
                p.kill()
                p.join(timeout=1.0)
        for conn in self._conns:
            if conn is not None:
                conn.close()
        for conn in (self._wake_r, self._wake_w, self._stop_r, self._stop_w):
            conn.close()
        self._conns, self._procs, self._busy = [None] * self.size, [None] * self.size, set()


class DaskPool(WorkerPool):
    """One slot per worker of a ``dask.distributed`` client; tasks are pinned to their slot's
    worker, so module-level state on that worker persists between its tasks."""

    kind = "dask"

    def __init__(self, client: Any) -> None:
        self.client = client
        self.addresses = sorted(client.scheduler_info()["workers"])
        if not self.addresses:
            raise ValueError("the Dask cluster has no workers: start some (dask worker "
                             "ADDRESS) or use local processes (workers=N)")
        self.size = len(self.addresses)
        self._futures: dict[Any, int] = {}

    def busy_slots(self) -> set[int]:
        return set(self._futures.values())

    def submit(self, slot: int, fn: Callable[..., Any], *args: Any) -> None:
        fut = self.client.submit(fn, *args, workers=[self.addresses[slot]],
                                 allow_other_workers=False, pure=False)
        self._futures[fut] = slot

    def wait(self, timeout: float | None = None) -> list[Done]:
        from dask.distributed import wait

        if not self._futures:
            return []
        try:
            done, _ = wait(list(self._futures), timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return []
        out: list[Done] = []
        for fut in sorted(done, key=lambda f: self._futures[f]):
            slot = self._futures.pop(fut)
            if fut.status == "finished":
                out.append((slot, True, fut.result()))
            else:
                exc = fut.exception()
                out.append((slot, False, TaskError(f"{type(exc).__name__}: {exc}",
                                                   "".join(traceback.format_tb(fut.traceback())))))
        return out

    def close(self) -> None:
        for fut in list(self._futures):
            fut.cancel()
        self._futures = {}

    def drain(self) -> None:
        self.close()
