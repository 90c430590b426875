"""The results store: one DuckDB file, one row per run, keyed by the run's configuration hash.

Only the driver (``bench run``) writes, as results arrive, in short transactions: the file is
opened, the finished runs inserted and committed, and the file closed again, so ``bench
status`` and ``bench report`` can read it while a grid runs (DuckDB lets one process hold the
file at a time; both sides retry for a few seconds). A commit is durable (write-ahead log), so
a driver killed with ``kill -9`` loses only the runs still in flight.

One driver at a time: ``bench run`` holds an advisory lock (``flock``) on the sidecar file
``<store>.lock`` for its whole run (:meth:`Store.lock`); a second ``bench run`` on the same
store refuses at once with :class:`StoreBusyError` naming the holder's pid, so no grid point
runs twice. The kernel drops the lock when its holder exits, ``kill -9`` included (the file
then stays, unlocked, and is reused). Readers (``bench status``, ``report``, ``plot``) never
take it.

Table ``runs`` (see :data:`SCHEMA`): key, experiment, version, problem, action, data, method,
seed, config (the run's options and parameters, JSON), status, message, objective,
lower_bound, gap, time_s (the method's own time), wall_s (the run's process, from its start to
its result), start_s (starting that process; the first run of a worker includes the one-off
forkserver warm-up), n_selected, selected, start_objectives (per start of a multistart
method), train_accuracy, test_accuracy, solver, termination, worker, started_at, finished_at,
payload (the full JSON of ``sparsekm solve ... --json``), sense (``min`` / ``max``: the
direction of the run's objective) and upper_bound (a maximisation's certified bound;
lower_bound is a minimisation's). A store of schema 1 (without sense and upper_bound) gains
both columns on its first write, filled from the stored payloads.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import socket
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from . import files_of_store as files
from . import records
from .child import FAILED
from .files_of_store import StoreBusyError, StoreError, StoreIOError

__all__ = ["SCHEMA", "Store", "StoreBusyError", "StoreError", "StoreIOError", "make_record"]

SCHEMA_VERSION = 2
READS = ("1", "2")  # schema versions this code reads and migrates to SCHEMA_VERSION
COLUMNS: tuple[tuple[str, str], ...] = (
    ("key", "VARCHAR PRIMARY KEY"), ("experiment", "VARCHAR"), ("version", "VARCHAR"),
    ("problem", "VARCHAR"), ("action", "VARCHAR"), ("data", "VARCHAR"), ("method", "VARCHAR"),
    ("seed", "BIGINT"), ("config", "VARCHAR"), ("status", "VARCHAR"), ("message", "VARCHAR"),
    ("objective", "DOUBLE"), ("lower_bound", "DOUBLE"), ("gap", "DOUBLE"), ("time_s", "DOUBLE"),
    ("wall_s", "DOUBLE"), ("start_s", "DOUBLE"), ("n_selected", "INTEGER"),
    ("selected", "INTEGER[]"), ("start_objectives", "DOUBLE[]"),
    ("train_accuracy", "DOUBLE"), ("test_accuracy", "DOUBLE"), ("solver", "VARCHAR"),
    ("termination", "VARCHAR"), ("worker", "VARCHAR"), ("started_at", "TIMESTAMPTZ"),
    ("finished_at", "TIMESTAMPTZ"), ("payload", "VARCHAR"),
    # schema 2: appended, so that a migrated store and a new one have the same layout
    ("sense", "VARCHAR"), ("upper_bound", "DOUBLE"),
)
ADDED = {"sense": "VARCHAR", "upper_bound": "DOUBLE"}  # schema 1 -> 2 (ALTER TABLE)
SCHEMA = "CREATE TABLE IF NOT EXISTS runs (" + ", ".join(f"{c} {t}" for c, t in COLUMNS) + ")"


def _num(x: Any) -> float | None:
    if isinstance(x, bool) or not isinstance(x, int | float):
        return None
    return float(x) if math.isfinite(x) else None


def _first(payload: dict[str, Any], *names: str) -> Any:
    return next((payload[n] for n in names if payload.get(n) is not None), None)


def _payload(text: Any) -> dict[str, Any]:
    """A stored payload as a dict (``{}`` when absent or not a JSON object)."""
    try:
        out = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return {}
    return out if isinstance(out, dict) else {}


def _sense(value: Any) -> str | None:
    return value if value in ("min", "max") else None


def make_record(spec: dict[str, Any], outcome: dict[str, Any]) -> dict[str, Any]:
    """The store row of a run from its spec and what :func:`execute_run` returned."""
    payload = outcome.get("payload")
    labels = spec["labels"]
    row: dict[str, Any] = {
        "key": spec["key"], "experiment": spec["experiment"], "version": spec["version"],
        "problem": spec["problem"], "action": spec["action"], "data": labels["data"],
        "method": labels.get("method"), "seed": labels["seed"],
        "config": json.dumps({"opts": spec["opts"], "params": spec["params"],
                              "labels": labels}, sort_keys=True, default=str),
        "wall_s": outcome.get("wall_s"), "start_s": outcome.get("start_s"),
        "worker": outcome.get("worker"),
        "started_at": datetime.fromtimestamp(outcome.get("started_at", time.time()),
                                             timezone.utc),
        "finished_at": datetime.now(timezone.utc),
    }
    if payload is None:
        row.update(status=outcome.get("status", "error"),
                   message=outcome.get("message") or outcome.get("error"),
                   payload=json.dumps({k: v for k, v in outcome.items() if k != "payload"},
                                      default=str))
        return row
    sel = payload.get("selected")
    row.update(
        status=str(payload.get("status")), message=payload.get("message"),
        objective=_num(payload.get("objective")), lower_bound=_num(payload.get("lower_bound")),
        upper_bound=_num(payload.get("upper_bound")), sense=_sense(payload.get("sense")),
        gap=_num(payload.get("gap")), time_s=_num(payload.get("time_s")),
        n_selected=None if sel is None else len(sel), selected=sel,
        start_objectives=payload.get("start_objectives"),
        train_accuracy=_num(_first(payload, "train_accuracy", "accuracy")),
        test_accuracy=_num(payload.get("test_accuracy")), solver=payload.get("solver"),
        termination=payload.get("termination"),
        payload=json.dumps(payload, default=str),
    )
    if row["method"] is None:
        row["method"] = payload.get("method")
    return row


class Store:
    """The DuckDB file of an experiment (created on first write)."""

    def __init__(self, path: str | Path, retry_s: float = 30.0) -> None:
        self.path = Path(path)
        self.retry_s = retry_s

    @property
    def lock_path(self) -> Path:
        """The sidecar file ``bench run`` locks: ``<store>.lock``."""
        return self.path.with_name(self.path.name + ".lock")

    def check_path(self) -> None:
        """StoreError unless the store can be created or written where it is configured."""
        files.check_path(self.path)

    def check_writable(self) -> None:
        """StoreError unless the store, its log and their folder can be written."""
        files.check_writable(self.path, self.records_path)

    @contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the store for one driver (``bench run``) until the block exits.

        A non-blocking ``flock`` on :attr:`lock_path` (the file says the holder's pid and host);
        held by another process: :class:`StoreBusyError` at once, naming that process. The
        file is removed on release; one left by a killed driver is not locked (the kernel
        dropped the lock with the process) and is reused.
        """
        try:
            import fcntl
        except ImportError:  # no flock (Windows): one driver per store is up to the user
            yield
            return
        self.check_path()
        self.check_writable()
        self.lock_path.parent.mkdir(parents=True, exist_ok=True)
        fd = self._acquire(fcntl)
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()} {socket.gethostname()}\n".encode(), 0)
            yield
        finally:
            with contextlib.suppress(OSError):
                os.unlink(self.lock_path)  # still held: nobody can take the old file now
            os.close(fd)  # releases the lock

    def _acquire(self, fcntl: Any) -> int:
        """A descriptor of :attr:`lock_path` locked by this process, or StoreBusyError.

        The lock counts only on the file the path names once it is held: a file unlinked by
        its previous holder in between is dropped and the path opened again."""
        while True:
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder(fd)
                os.close(fd)
                raise StoreBusyError(
                    f"store {files.shown(self.path)} is in use by another `bench run` "
                    f"({holder}); "
                    "wait for it to finish, or set another `store` in the config") from None
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(self.lock_path))
            except FileNotFoundError:
                same = False
            if same:
                return fd
            os.close(fd)

    @contextmanager
    def connect(self, write: bool = False) -> Iterator[Any]:
        """A short-lived connection, retried while another process holds the file."""
        import duckdb

        if write:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        files.check_magic(self.path)
        t0, delay = time.monotonic(), 0.01
        while True:
            try:
                con = duckdb.connect(str(self.path), read_only=not write)
                break
            except duckdb.IOException as exc:
                if "lock" not in str(exc).lower() or time.monotonic() - t0 > self.retry_s:
                    raise files.unusable(self.path, exc) from None
                time.sleep(delay)
                delay = min(0.2, 2 * delay)
            except duckdb.Error as exc:
                raise files.unusable(self.path, exc) from None
        try:
            files.check_tables(self.path, con)
            if write:
                self._init(con)
            yield con
        finally:
            con.close()

    def _init(self, con: Any) -> None:
        con.execute("CREATE TABLE IF NOT EXISTS meta (k VARCHAR PRIMARY KEY, v VARCHAR)")
        row = con.execute("SELECT v FROM meta WHERE k = 'schema_version'").fetchone()
        if row is not None and row[0] not in READS:
            raise StoreError(f"{self.path}: a results store of schema {row[0]}, this sparsekm "
                             f"writes schema {SCHEMA_VERSION}: use a new store file (or the "
                             "sparsekm version that wrote it)")
        con.execute(SCHEMA)
        if row is None or row[0] != str(SCHEMA_VERSION):
            con.execute("BEGIN")
            self._migrate(con)
            con.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)",
                        [str(SCHEMA_VERSION)])
            con.execute("COMMIT")

    @staticmethod
    def _migrate(con: Any) -> None:
        """Schema 1 -> 2: add ``sense`` and ``upper_bound``, filled from each payload."""
        have = {r[0] for r in con.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'runs'"
        ).fetchall()}
        added = [c for c in ADDED if c not in have]
        for c in added:
            con.execute(f"ALTER TABLE runs ADD COLUMN {c} {ADDED[c]}")
        if not added:
            return
        rows = con.execute("SELECT key, payload FROM runs WHERE payload IS NOT NULL").fetchall()
        fill = []
        for key, text in rows:
            payload = _payload(text)
            if payload.get("sense") is not None:
                fill.append([_sense(payload.get("sense")), _num(payload.get("upper_bound")),
                             key])
        if fill:
            con.executemany("UPDATE runs SET sense = ?, upper_bound = ? WHERE key = ?", fill)

    def exists(self) -> bool:
        return self.path.is_file()

    @property
    def records_path(self) -> Path:
        """The committed log of the store's runs (:mod:`.records`)."""
        return records.records_path(self.path)

    def _insert(self, rows: list[dict[str, Any]]) -> None:
        names = [c for c, _ in COLUMNS]
        sql = (f"INSERT OR REPLACE INTO runs ({', '.join(names)}) VALUES "
               f"({', '.join('?' for _ in names)})")
        with self.connect(write=True) as con:
            con.execute("BEGIN")
            con.executemany(sql, [[r.get(n) for n in names] for r in rows])
            con.execute("COMMIT")

    def write(self, rows: Iterable[dict[str, Any]]) -> int:
        """Insert (or replace) rows in one transaction, and append them to the log;
        returns how many.

        Either write may fail (a full disk, a file made read-only): the other is still
        tried, so a finished run is kept wherever it can be, and a StoreError says in one
        line what holds it; :meth:`reconcile` (the next ``bench run``) brings the store and
        the log back in step. Nothing already stored is lost."""
        import duckdb

        rows = list(rows)
        if not rows:
            return 0
        failed: str | None = None
        try:
            self._insert(rows)
        except (duckdb.Error, OSError, StoreIOError) as exc:
            failed = " ".join(str(exc).split())
        try:
            records.append(self.records_path, rows)
        except records.LogError as exc:
            where = "in neither the store nor its log" if failed else \
                "in the store but not yet in its log (the next `bench run` adds it)"
            raise StoreError(f"{exc}; the last {len(rows)} run(s) are {where}; stopping") \
                from None
        if failed:
            raise StoreError(f"store {files.shown(self.path)}: cannot write it ({failed}); the "
                             f"last {len(rows)} run(s) are kept in its log "
                             f"{files.shown(self.records_path)}, which the next `bench run` "
                             "restores; stopping")
        return len(rows)

    def reconcile(self) -> int:
        """Bring the store and its log in step (the driver, holding the store, before a run):
        a damaged log is set aside with a one-line warning (:func:`.records.repair`); runs of
        the log that the store lacks are inserted (a fresh clone, a lost store file, a store
        write that failed); runs of the store that the log lacks are appended to it (a log
        write that failed: a fresh clone would run them again). Returns how many runs the
        store gained."""
        logged = records.repair(self.records_path).rows
        have = self.statuses() if self.exists() else {}
        missing = [r for k, r in logged.items() if k not in have]
        if missing:
            self._insert(missing)
        unlogged = [k for k in have if k not in logged]
        if unlogged:
            records.append(self.records_path, self._rows(unlogged))
        return len(missing)

    def _rows(self, keys: list[str]) -> list[dict[str, Any]]:
        """The stored rows of ``keys`` as plain Python values (lists, datetimes, floats)."""
        names = [c for c, _ in COLUMNS]
        with self.connect() as con:
            cols = {r[0] for r in con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = "
                "'runs'").fetchall()}
            have = [c for c in names if c in cols]
            found = con.execute(f"SELECT {', '.join(have)} FROM runs WHERE key IN "
                                f"({', '.join('?' for _ in keys)})", keys).fetchall()
        return [dict(zip(have, r, strict=True)) for r in found]

    def statuses(self, keys: Iterable[str] | None = None) -> dict[str, str]:
        """``{key: status}`` of the stored runs (of ``keys`` when given; from the log when
        the store file is absent)."""
        if not self.exists():
            found = {r["key"]: r["status"] for r in records.read(self.records_path)}
            return found if keys is None else {k: found[k] for k in keys if k in found}
        with self.connect() as con:
            found = dict(con.execute("SELECT key, status FROM runs").fetchall())
        if keys is None:
            return found
        return {k: found[k] for k in keys if k in found}

    def load(self, keys: Iterable[str] | None = None) -> Any:
        """The stored rows as a pandas DataFrame (only ``keys`` when given)."""
        import pandas as pd

        cols = [c for c, _ in COLUMNS]
        if not self.exists():   # the committed log stands in for an absent store file
            rows = list(records.read(self.records_path))
            if keys is not None:
                order = {k: i for i, k in enumerate(keys)}
                rows = sorted((r for r in rows if r["key"] in order),
                              key=lambda r: order[r["key"]])
            return pd.DataFrame(rows, columns=cols)
        with self.connect() as con:
            if keys is None:
                df = con.execute("SELECT * FROM runs").df()
            else:
                keys = list(keys)
                con.register("wanted", pd.DataFrame({"key": keys, "_order": range(len(keys))}))
                df = con.execute("SELECT runs.*, wanted._order FROM runs JOIN wanted USING "
                                 "(key) ORDER BY wanted._order").df().drop(columns="_order")
        missing = [c for c in cols if c not in df.columns]
        if missing:  # a store of schema 1, read before its first write migrates it
            payloads = [_payload(t) for t in df["payload"]] if "payload" in df else []
            for c in missing:
                if c in ADDED and payloads:
                    conv = _sense if c == "sense" else _num
                    df[c] = [conv(p.get(c)) for p in payloads]
                else:
                    df[c] = None
        return df


def _holder(fd: int) -> str:
    """``pid N`` (and ``on HOST`` when another machine) of the lock file's holder."""
    words = os.pread(fd, 256, 0).decode(errors="replace").split()
    if not words:
        return "pid unknown"
    host = f" on {words[1]}" if len(words) > 1 and words[1] != socket.gethostname() else ""
    return f"pid {words[0]}{host}"


def counts(statuses: dict[str, str], total: int) -> dict[str, int]:
    """``total / done / failed / pending`` of a grid from its stored statuses."""
    failed = sum(s in FAILED for s in statuses.values())
    done = len(statuses) - failed
    return {"total": total, "done": done, "failed": failed, "pending": total - done - failed}
