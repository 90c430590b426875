"""Persistent workers for long parallel runs (tree search): one slot per process or Dask worker.

:meth:`sparsekm.parallel.Executor.map` suits one-shot independent work. A tree search instead
sends thousands of small tasks over a run and wants each worker to keep what it was given (the
problem's data, caches) from one task to the next. A pool here is a fixed set of *slots*; the
caller sends a task to a chosen slot (``submit``) and collects whatever finished (``wait``).
Because the caller knows which slot ran what, it can ship data to each slot once and keep
per-slot state in sync (:mod:`sparsekm.algorithms.tree.dispatch`).

* :class:`SerialPool` runs a task in this process when it is submitted (one slot);
* :class:`LocalPool` keeps ``n`` spawned processes for its lifetime, one pipe each, BLAS
  limited to one thread per process; the processes die with their parent (also on kill -9);
* :class:`DaskPool` pins tasks to the workers of a ``dask.distributed`` client (one slot per
  worker; use ``threads_per_worker=1``).

Tasks are ``fn(*args)`` with ``fn`` a module-level function (sent by reference); the state a
worker keeps between tasks lives in that module (a dict keyed by what the caller chose).
"""

from __future__ import annotations

import os
import traceback
from collections import deque
from collections.abc import Callable
from contextlib import contextmanager, suppress
from typing import Any

__all__ = ["DaskPool", "LocalPool", "SerialPool", "TaskError", "WorkerPool"]

Done = tuple[int, bool, Any]   # (slot, ok, result or TaskError)
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
               "NUMBA_NUM_THREADS")


class TaskError(RuntimeError):
    """A task raised on a worker; ``remote`` is the worker's traceback."""

    def __init__(self, message: str, remote: str = "") -> None:
        super().__init__(message)
        self.remote = remote


class WorkerPool:
    """Slots that run tasks; subclasses implement ``submit``, ``wait`` and ``close``."""

    size: int = 1
    kind: str = "serial"

    def submit(self, slot: int, fn: Callable[..., Any], *args: Any) -> None:
        raise NotImplementedError

    def wait(self, timeout: float | None = None) -> list[Done]:
        """The tasks finished since the last call (blocks until one is, or ``timeout``)."""
        raise NotImplementedError

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
        try:
            self._done.append((slot, True, fn(*args)))
        except Exception as exc:    # noqa: BLE001 - handed back like a worker's error
            err = TaskError(f"{type(exc).__name__}: {exc}", traceback.format_exc())
            err.__cause__ = exc
            self._done.append((slot, False, err))

    def wait(self, timeout: float | None = None) -> list[Done]:
        out = list(self._done)
        self._done.clear()
        return out


@contextmanager
def single_thread_env() -> Any:
    """os.environ with one BLAS / OpenMP / numba thread while child processes start."""
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
    """Linux: SIGKILL this process when its parent dies (prctl PR_SET_PDEATHSIG)."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, int(signal.SIGKILL))
    except (OSError, AttributeError):    # not Linux: the closed pipe ends the worker instead
        pass


def _serve(conn: Any, parent: int, warm: Callable[[], Any] | None = None) -> None:
    """A worker process: ``warm()`` (load compiled code while the driver works), then run
    ``(fn, args)`` messages until ``None`` or the parent is gone."""
    _die_with_parent()
    if os.getppid() != parent:
        return
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=1)
    except ImportError:    # pragma: no cover - threadpoolctl comes with scikit-learn
        pass
    if warm is not None:
        with suppress(Exception):      # only a speed-up: a failing task will say what fails
            warm()
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
    first, e.g. to load numba-compiled code while the caller is busy."""

    kind = "processes"

    def __init__(self, n: int, warm: Callable[[], Any] | None = None) -> None:
        import multiprocessing as mp

        ctx = mp.get_context("spawn")
        self.size = int(n)
        self._conns: list[Any] = []
        self._procs: list[Any] = []
        self._busy: set[int] = set()
        with single_thread_env():
            for _ in range(self.size):
                ours, theirs = ctx.Pipe(duplex=True)
                p = ctx.Process(target=_serve, args=(theirs, os.getpid(), warm), daemon=True,
                                name="sparsekm-worker")
                p.start()
                theirs.close()
                self._conns.append(ours)
                self._procs.append(p)

    def submit(self, slot: int, fn: Callable[..., Any], *args: Any) -> None:
        self._conns[slot].send((fn, args))
        self._busy.add(slot)

    def wait(self, timeout: float | None = None) -> list[Done]:
        from multiprocessing.connection import wait

        if not self._busy:
            return []
        ready = wait([self._conns[s] for s in self._busy], timeout)
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

    def close(self) -> None:
        """Terminate the workers: they keep nothing worth saving, and a busy one (a task
        abandoned at a limit) is not waited for."""
        for p in self._procs:
            p.terminate()
        for p in self._procs:
            p.join(timeout=2.0)
            if p.is_alive():
                p.kill()
                p.join(timeout=1.0)
        for conn in self._conns:
            conn.close()
        self._conns, self._procs, self._busy = [], [], set()


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
