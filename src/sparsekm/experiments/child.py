"""One run, in its own process, under a hard deadline: :func:`execute_run` never raises.

The Dask task (or the sequential loop) calls :func:`execute_run`, which forks a child from a
*forkserver* (started once per worker, with numpy, scikit-learn, Pyomo and CVXPY already
imported, so a run pays neither the imports nor a fresh interpreter) and waits for its payload.
A child that outlives the run's hard limit is killed with its whole process group (solvers
included) and the run is recorded as ``timeout``; an exception becomes ``error`` with its
message; a child that dies (segfault, out of memory) becomes ``crashed``. The child resolves
and runs the call of ``sparsekm solve/relax PROBLEM`` in the run layer (:func:`sparsekm.run.run`),
so a run is exactly what the CLI runs.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import importlib.util
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
import types
from collections.abc import Iterator
from typing import Any

__all__ = ["FAILED", "execute_run", "import_plugin", "DEFAULT_PRELOAD"]

FAILED = ("error", "timeout", "crashed")  # statuses that count as failed (others are done)
DEFAULT_PRELOAD = ("sparsekm.experiments.warm",)
_CTX: Any = None
_PRELOAD: tuple[str, ...] = ()
_LOCK = threading.Lock()
_IN_FLIGHT = 0  # runs of this process between fork and reaping


def import_plugin(item: str) -> None:
    """Import a module by name, or a ``.py`` file by path (it may register runners)."""
    if not item.endswith(".py"):
        importlib.import_module(item)
        return
    name = "sparsekm_plugin_" + os.path.splitext(os.path.basename(item))[0]
    if name in sys.modules or _imported(item):
        return
    spec = importlib.util.spec_from_file_location(name, item)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {item}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)


def _imported(path: str) -> bool:
    """True when this process imported the file already under its own name (``import
    my_bound`` in a notebook, then a grid's ``imports = ["my_bound.py"]``): importing it a
    second time would register its entries twice."""
    real = os.path.realpath(path)
    return any(getattr(m, "__file__", None) and os.path.realpath(m.__file__) == real
               for m in list(sys.modules.values()))


def file_sha256(path: str | os.PathLike[str]) -> str:
    """SHA-256 of a file's bytes (cached by path, mtime and size)."""
    st = os.stat(path)
    return _sha_cached(os.path.realpath(path), st.st_mtime, st.st_size)


@functools.cache
def _sha_cached(path: str, mtime: float, size: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _acquire(preload: tuple[str, ...] | None) -> Any:
    """The multiprocessing context that forks runs (forkserver where the OS has it), counting
    one more run in flight (:func:`_release` when it is reaped).

    The forkserver of this process imports :data:`DEFAULT_PRELOAD` and ``preload``; a later
    grid that wants more modules restarts it with the union (when no run is in flight).
    """
    global _CTX, _PRELOAD, _IN_FLIGHT
    want = DEFAULT_PRELOAD + tuple(preload or ())
    with _LOCK:
        if _CTX is None:
            methods = multiprocessing.get_all_start_methods()
            _CTX = multiprocessing.get_context("forkserver" if "forkserver" in methods
                                               else "spawn")
        if _CTX.get_start_method() == "forkserver" and not set(want) <= set(_PRELOAD) \
                and _IN_FLIGHT == 0:
            from multiprocessing import forkserver

            forkserver._forkserver._stop()  # noqa: SLF001 - no-op if never started
            _PRELOAD = tuple(dict.fromkeys(_PRELOAD + want))
            _CTX.set_forkserver_preload(list(_PRELOAD))
        _IN_FLIGHT += 1
    return _CTX


def _release() -> None:
    global _IN_FLIGHT
    with _LOCK:
        _IN_FLIGHT -= 1


@contextlib.contextmanager
def _starting_child() -> Iterator[None]:
    """While the run's child starts: let a daemonic process (a Dask worker with its default
    ``daemon: True``) have a child (we kill it ourselves, so the daemon rule's reason does not
    hold), and hide ``__main__`` so that the child does not re-run the calling script, pytest
    or a notebook kernel (multiprocessing would import it in every child)."""
    cfg = multiprocessing.current_process()._config  # noqa: SLF001 - documented workaround
    daemon = cfg.get("daemon")
    cfg["daemon"] = False
    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if main is not None:
            sys.modules["__main__"] = main
        if daemon is not None:
            cfg["daemon"] = daemon


def _die_with_parent() -> None:
    """The child dies with its driver: it drops its copy of the forkserver's "alive" pipe (so
    the forkserver exits as soon as the worker or driver that started it dies, not when the
    last run ends) and, on Linux, asks for SIGKILL when the forkserver exits."""
    from multiprocessing import forkserver

    server = getattr(forkserver, "_forkserver", None)
    fd = getattr(server, "_forkserver_alive_fd", None)
    if fd is not None:
        with contextlib.suppress(OSError):
            os.close(fd)
        server._forkserver_alive_fd = None  # noqa: SLF001 - a new one is made if ever needed
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            import ctypes

            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PDEATHSIG


def _limit_threads(threads: int) -> Any:
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                "NUMBA_NUM_THREADS"):
        os.environ[var] = str(threads)
    from . import warm  # imported by the forkserver: its scan of the libraries is reused

    if warm.CONTROLLER is None:
        return contextlib.nullcontext()
    return warm.CONTROLLER.limit(limits=threads)


def _check_provenance(spec: dict[str, Any]) -> None:
    """The worker must run the same package version and read the same data file."""
    from sparsekm import __version__

    if __version__ != spec["version"]:
        raise RuntimeError(f"this worker runs sparsekm {__version__}, the grid was expanded "
                           f"with {spec['version']}: install the same version on every worker")
    sha = spec.get("data_sha256")
    if sha is not None:
        path = spec["opts"]["data"]
        if not os.path.isfile(path):
            raise FileNotFoundError(f"data file {path} is not on this worker: put it on a "
                                    "file system every worker sees")
        if file_sha256(path) != sha:
            raise RuntimeError(f"data file {path} differs on this worker from the one the "
                               "grid was expanded with")


def run_in_process(spec: dict[str, Any]) -> dict[str, Any]:
    """Call the run in this process: ``{"payload": ...}`` or ``{"error": ..., ...}``."""
    try:
        from sparsekm.deadline import Deadline
        from sparsekm.run import run
        from sparsekm.run.quiet import quiet_third_party_warnings, stdout_to_stderr

        clock = Deadline(None)       # the run's time limit counts from here
        quiet_third_party_warnings()
        for item in spec.get("imports", ()):
            import_plugin(item)
        _check_provenance(spec)
        with _limit_threads(spec.get("threads", 1)), stdout_to_stderr():
            payload = run(spec["action"], spec["problem"], spec["given"], spec["options"],
                          clock=clock)
        return {"payload": payload}
    except BaseException as exc:  # noqa: BLE001 - the run's failure is its result
        tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
        user = isinstance(exc, ValueError) and exc.__class__.__name__ in (
            "UserError", "ParamError", "DataError", "DataFileError", "SolverError")
        msg = str(exc) if user else f"{type(exc).__name__}: {exc}"
        return {"error": type(exc).__name__, "message": msg,
                "traceback": None if user else "".join(tb[-6:])}


def _child_main(conn: Any, spec: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):
        os.setsid()  # own process group: a kill reaches solver subprocesses too
    _die_with_parent()
    out = run_in_process(spec)
    try:
        conn.send(out)
    except Exception as exc:  # noqa: BLE001 - e.g. an unpicklable payload
        conn.send({"error": type(exc).__name__, "message": f"cannot return the payload: {exc}"})
    conn.close()


def _kill(proc: Any) -> None:
    """Kill a live child and its process group (solver subprocesses); reap it."""
    if getattr(proc, "_popen", None) is None:
        return  # never started
    if proc.pid is not None and proc.exitcode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            proc.kill()
    proc.join(5)


def _worker_name() -> str:
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return "local"


def execute_run(spec: dict[str, Any], preload: tuple[str, ...] | None = None) -> dict[str, Any]:
    """Run ``spec`` (a :class:`~sparsekm.experiments.grid.RunSpec` as a dict) in a child
    process killed at ``spec["hard_limit"]`` seconds; return the outcome with timings."""
    ctx = _acquire(preload)
    started = time.time()
    t0 = time.perf_counter()
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child_main, args=(send, spec), name=f"run-{spec['key'][:8]}")
    t_start = math.nan
    try:
        with _starting_child():
            proc.start()
        send.close()
        t_start = time.perf_counter() - t0
        t0 = time.perf_counter()
        limit = spec.get("hard_limit")
        if recv.poll(limit):
            try:
                out = recv.recv()
                proc.join(2)  # let it exit by itself
            except EOFError:
                proc.join(5)
                out = {"status": "crashed", "message": f"the run's process died (exit code "
                       f"{proc.exitcode}): out of memory or a crash in compiled code"}
        else:
            out = {"status": "timeout", "message": f"killed after {limit:g} s (hard limit: "
                   "time_limit + grace)"}
    except Exception as exc:  # noqa: BLE001 - e.g. no process could be started
        out = {"status": "crashed", "message": f"cannot start the run: {type(exc).__name__}: "
               f"{exc}"}
    finally:
        _kill(proc)
        recv.close()
        send.close()
        _release()
    out.update(started_at=started, wall_s=time.perf_counter() - t0, start_s=t_start,
               worker=_worker_name())
    return out
