"""Run a grid on Dask (a LocalCluster, or an existing cluster) or sequentially; store as it goes.

The driver locks the store (one ``bench run`` per store: a second one refuses at once, so no
run is done twice), expands the config, drops the runs already stored (so a grid killed with
``kill -9`` resumes where it stopped), submits one task per remaining run and writes every
result to the store as soon as it arrives. Each task is
:func:`~sparsekm.experiments.child.execute_run`: the run in its own process under a hard
deadline, so a run that hangs, raises or crashes is a row with its status and message, never a
lost grid. Results do not depend on the worker count: a run is a function of its configuration
(its seed included) alone, run single-threaded.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .child import FAILED, execute_run
from .config import ExperimentConfig
from .grid import RunSpec, check_specs, expand
from .store import Store, counts, make_record

__all__ = ["SchedulerError", "run_experiment", "status", "dask_client", "default_workers"]

CONNECT_TIMEOUT = 10.0  # seconds to reach an existing scheduler


class SchedulerError(ValueError):
    """No Dask scheduler answered at the given address (a user mistake: exit 2)."""


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


@contextmanager
def dask_client(workers: int | None = None, scheduler: str | None = None) -> Iterator[Any]:
    """A ``dask.distributed.Client``: on ``scheduler`` (``tcp://host:port`` or a scheduler
    file) when given, else on a new LocalCluster of ``workers`` single-threaded processes."""
    import dask
    from dask.distributed import Client, LocalCluster

    if scheduler:
        try:
            with _quiet_distributed():
                client = Client(scheduler_file=scheduler, timeout=CONNECT_TIMEOUT) \
                    if Path(scheduler).is_file() else Client(scheduler, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError, ValueError) as exc:
            raise SchedulerError(
                f"--scheduler {scheduler}: no Dask scheduler answered within "
                f"{CONNECT_TIMEOUT:g} s ({type(exc).__name__}); start one (`dask scheduler`) "
                "and its workers, pass its scheduler file, or drop --scheduler to run on a "
                "local cluster") from None
        try:
            yield client
        finally:
            client.close()
        return
    n = workers or default_workers()
    with dask.config.set({"distributed.worker.daemon": False}):
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR)
    try:
        with Client(cluster) as client:
            yield client
    finally:
        cluster.close()


@contextmanager
def _quiet_distributed() -> Iterator[None]:
    """Silence distributed's connection-retry logging while a client connects."""
    log = logging.getLogger("distributed")
    level = log.level
    log.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        log.setLevel(level)


def _progress(total: int, enabled: bool) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, file=sys.stderr, unit="run", disable=not enabled or total == 0,
                dynamic_ncols=True, smoothing=0.1)


def _todo(specs: list[RunSpec], store: Store, retry_failed: bool) -> list[RunSpec]:
    stored = store.statuses([s.key for s in specs])
    return [s for s in specs
            if s.key not in stored or (retry_failed and stored[s.key] in FAILED)]


def status(cfg: ExperimentConfig) -> dict[str, int]:
    """``{"total", "done", "failed", "pending"}`` of the config's grid in its store."""
    specs = expand(cfg)
    return counts(Store(cfg.store_path).statuses([s.key for s in specs]), len(specs))


def _record(spec: dict[str, Any], outcome: dict[str, Any], bar: Any) -> dict[str, Any]:
    row = make_record(spec, outcome)
    if row["status"] in FAILED:
        bar.write(f"{row['status']}: {row['data']} {row['method'] or ''} seed={row['seed']}: "
                  f"{(row['message'] or '')[:160]}", file=sys.stderr)
    return row


def run_experiment(cfg: ExperimentConfig, workers: int | None = None,
                   scheduler: str | None = None, client: Any = None,
                   retry_failed: bool = False, progress: bool = True) -> dict[str, Any]:
    """Run what is not yet stored; returns the counts after the run, plus ``ran`` (runs
    executed now) and ``seconds`` (wall time of this call).

    ``workers=0`` runs in this process, one run after another (no Dask); otherwise the runs go
    to ``client``, to the cluster at ``scheduler``, or to a new LocalCluster with ``workers``
    workers (default: one per core).

    The store is locked for the whole call (:meth:`Store.lock`): while another
    ``run_experiment`` / ``bench run`` holds it, this one raises
    :class:`~sparsekm.experiments.store.StoreBusyError` before doing anything.
    """
    t0 = time.perf_counter()
    store = Store(cfg.store_path)
    with store.lock():
        return _run_locked(cfg, store, t0, workers=workers, scheduler=scheduler,
                           client=client, retry_failed=retry_failed, progress=progress)


def _run_locked(cfg: ExperimentConfig, store: Store, t0: float, *, workers: int | None,
                scheduler: str | None, client: Any, retry_failed: bool,
                progress: bool) -> dict[str, Any]:
    specs = expand(cfg)
    store.reconcile()    # the store and its committed log in step (a fresh clone, a failed write)
    todo = _todo(specs, store, retry_failed)
    check_specs(todo)  # a mistake fails here, before the first run
    preload = tuple(cfg.run.preload)
    bar = _progress(len(todo), progress)
    n_failed = 0
    try:
        if todo and client is None and scheduler is None and workers == 0:
            for spec in todo:
                d = spec.to_dict()
                row = _record(d, execute_run(d, preload), bar)
                store.write([row])
                n_failed += row["status"] in FAILED
                bar.update(1)
                bar.set_postfix(failed=n_failed, refresh=False)
        elif todo:
            with _maybe_client(client, workers, scheduler) as cl:
                n_failed = _run_dask(cl, todo, store, preload, bar)
    finally:
        bar.close()
    out: dict[str, Any] = counts(store.statuses([s.key for s in specs]), len(specs))
    out.update(ran=len(todo), seconds=round(time.perf_counter() - t0, 3))
    return out


@contextmanager
def _maybe_client(client: Any, workers: int | None, scheduler: str | None) -> Iterator[Any]:
    if client is not None:
        yield client
    else:
        with dask_client(workers, scheduler) as cl:
            yield cl


def _run_dask(client: Any, todo: list[RunSpec], store: Store, preload: Any, bar: Any) -> int:
    from dask.distributed import as_completed

    dicts = {f"sparsekm-run-{s.key}": s.to_dict() for s in todo}
    futures = client.map(execute_run, list(dicts.values()), preload=preload,
                         key=list(dicts), pure=False, retries=0)
    n_failed = 0
    try:
        for batch in as_completed(futures).batches():
            rows = []
            for fut in batch:
                try:
                    outcome = fut.result()
                except Exception as exc:  # noqa: BLE001 - e.g. KilledWorker: record it
                    outcome = {"status": "crashed", "message": f"{type(exc).__name__}: {exc}"}
                rows.append(_record(dicts[fut.key], outcome, bar))
                fut.release()
            store.write(rows)
            n_failed += sum(r["status"] in FAILED for r in rows)
            bar.update(len(rows))
            bar.set_postfix(failed=n_failed, refresh=False)
    finally:
        client.cancel(futures)
    return n_failed
