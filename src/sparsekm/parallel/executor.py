"""Where independent pieces of work run: in this process, in local worker processes, or on Dask.

Methods with independent work (multistart, enumeration) call ``executor.map(fn, items)``;
results come back in the order of ``items``, so a seeded method returns the same answer whatever
the number of workers. A long run of many small tasks (the tree search) opens a persistent
:meth:`Executor.session` instead: the same worker processes (or Dask workers) for the whole
run, so data is shipped to each of them once (:mod:`.pool`).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

__all__ = ["CONNECT_TIMEOUT", "Executor", "as_executor", "connect_dask", "single_blas"]

_T = TypeVar("_T", bound=Callable[..., Any])


def single_blas(fun: _T) -> _T:
    """Run ``fun`` with one BLAS thread.

    Hot loops of many small products lose to thread start-up on a loaded machine: with two
    OpenBLAS threads on a loaded 2-core machine an m x B times B x m product took 8 ms
    instead of 0.04 ms (measured, m = 297, B = 6; paper A's searches), and paper D's swap
    search spent 0.2 s of 0.4 s in BLAS calls of 0.1 ms (m = 120, n = 1500).
    """

    @functools.wraps(fun)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with _blas_controller().limit(limits=1, user_api="blas"):
            return fun(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


@functools.cache
def _blas_controller() -> Any:
    """threadpoolctl's scan of the loaded BLAS libraries, done once per process: a fresh
    ``threadpool_limits`` re-reads /proc/self/maps and every library (17 ms per call measured
    on a loaded machine; 1,554 calls made up 26 s of a 40 s ``check_estimator`` run)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


class Executor:
    """Ordered ``map`` over local processes (``workers``) or a ``dask.distributed`` client.

    Parameters
    ----------
    workers : 1 runs in this process; ``None`` or -1 uses every core; k > 1 uses k processes.
    client : a ``dask.distributed.Client`` (or a scheduler address ``"tcp://host:port"``);
        when given, work is sent to its cluster and ``workers`` is ignored.
    """

    def __init__(self, workers: int | None = 1, client: Any = None) -> None:
        if client is None and workers is not None and workers != -1 and workers < 1:
            raise ValueError(f"workers={workers}: use 1 (serial), k > 1, or -1 / None (all "
                             "cores)")
        self.workers = (os.cpu_count() or 1) if workers in (None, -1) else int(workers)
        self.client = client
        self._pool: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_pool": None, "client": None}

    @property
    def parallel(self) -> bool:
        return self.client is not None or self.workers > 1

    def _dask_client(self) -> Any:
        if isinstance(self.client, str):
            self.client = connect_dask(self.client)
        return self.client

    @contextmanager
    def session(self, warm: Callable[[], Any] | None = None) -> Iterator[Any]:
        """A persistent :class:`~sparsekm.parallel.pool.WorkerPool` for a run: this process
        (``workers=1``), ``workers`` local processes started once (each first runs
        ``warm()``), or the Dask client's workers. Nested sessions reuse the open pool (a
        heuristic's sub-search shares it)."""
        from .pool import DaskPool, LocalPool, SerialPool

        if self._pool is not None:
            try:
                yield self._pool
            finally:
                self._pool.drain()
            return
        if self.client is not None:
            pool: Any = DaskPool(self._dask_client())
        elif self.workers > 1:
            pool = LocalPool(self.workers, warm)
        else:
            pool = SerialPool()
        self._pool = pool
        try:
            yield pool
        finally:
            self._pool = None
            pool.close()

    def map(self, fn: Callable[..., Any], *iterables: Iterable[Any]) -> list[Any]:
        """``[fn(*args) for args in zip(*iterables)]``, possibly in parallel, in order."""
        args = [list(it) for it in iterables]
        if self.client is not None:
            client = self._dask_client()
            return client.gather(client.map(fn, *args, pure=False))
        if self.workers == 1 or len(args[0]) <= 1:
            return [fn(*a) for a in zip(*args)]
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=min(self.workers, len(args[0]))) as pool:
            return list(pool.map(fn, *args))


CONNECT_TIMEOUT = 3.0   # seconds to reach a Dask scheduler (dask's own default: 30)


def connect_dask(address: str, timeout: float = CONNECT_TIMEOUT) -> Any:
    """A ``dask.distributed.Client`` of the scheduler at ``address``; a
    :class:`~sparsekm.declare.ParamError` naming ``scheduler`` when none answers within
    ``timeout`` seconds."""
    from dask.distributed import Client

    from sparsekm.declare import ParamError

    try:
        return Client(address, timeout=timeout)
    except Exception as exc:  # noqa: BLE001 - OSError / TimeoutError / ValueError: one line
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        why = f"no answer within {timeout:g} s" if "timed out" in text.lower() else text
        raise ParamError("scheduler", address,
                         f"no Dask scheduler answers at {address} ({why}); start one with "
                         "`dask scheduler` or leave scheduler unset") from None


def as_executor(executor: Any = None, workers: int | None = 1) -> Executor:
    """An :class:`Executor` from an executor, a Dask client / address, or a worker count."""
    if isinstance(executor, Executor):
        return executor
    if executor is not None:
        return Executor(client=executor)
    return Executor(workers)
