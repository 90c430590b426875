"""The runs of a store as a plain log that travels with the repository.

A DuckDB store is a binary file kept out of git; a long grid, though, runs for hours and the
next machine may be a fresh clone. So every row the driver stores is also appended to
``<store>.records.jsonl.gz`` beside it (one JSON object per line, one gzip member per append;
small enough to commit), and a store missing rows of that log gets them back before a run
(:meth:`~sparsekm.experiments.store.Store.reconcile`): a stopped grid resumes on any machine
that has the log, and ``bench report`` can read the log when the store file is absent.

A record is complete or absent. An append writes the log with its new member to a temporary
file beside it, flushes it to the disk and renames it over the log (``os.replace``, atomic):
a kill, a full disk or a read-only folder leaves the old log whole. A log damaged anyway (a
tail cut by an older writer or a copy, bytes that are not gzip) is read up to its last
complete member; :func:`repair` sets the damaged file aside as ``<log>.damaged-<UTC time>``
(nothing is overwritten), keeps the intact members and says so in one line.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import warnings
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

__all__ = ["LogError", "LogWarning", "Scan", "append", "read", "records_path", "repair",
           "scan"]

TIMES = ("started_at", "finished_at")


class LogError(OSError):
    """The log cannot be written (a full disk, no permission): one line naming it."""


class LogWarning(UserWarning):
    """A damaged log was set aside and its intact records kept."""


@dataclass
class Scan:
    """What a log holds: its rows (later rows of a key replace earlier ones), the byte length
    of its intact members, and why the rest is damaged (None: nothing is)."""

    rows: dict[str, dict[str, Any]] = field(default_factory=dict)
    good: int = 0
    damage: str | None = None


def records_path(store: Path) -> Path:
    """``results.duckdb`` -> ``results.records.jsonl.gz`` (same folder)."""
    return store.with_name(store.stem + ".records.jsonl.gz")


def _plain(row: dict[str, Any]) -> dict[str, Any]:
    return {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in row.items()}


def _rows(text: bytes, into: dict[str, dict[str, Any]]) -> bool:
    """Parse one member's lines into ``into``; False when a line is not a record."""
    parsed = []
    for line in text.decode("utf-8").splitlines():
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            return False
        if not isinstance(row, dict) or "key" not in row:
            return False
        parsed.append(row)
    for row in parsed:
        for k in TIMES:
            if isinstance(row.get(k), str):
                row[k] = datetime.fromisoformat(row[k])
        into[row["key"]] = row
    return True


def scan(path: Path) -> Scan:
    """Read the log member by member, stopping at the first one that is not a complete gzip
    member of JSON records (a torn tail, foreign bytes)."""
    out = Scan()
    if not path.is_file():
        return out
    data = path.read_bytes()
    pos = 0
    while pos < len(data):
        d = zlib.decompressobj(wbits=31)
        try:
            text = d.decompress(data[pos:])
        except zlib.error as exc:
            out.damage = f"bytes {pos}-{len(data)} are not gzip ({exc})"
            return out
        if not d.eof:
            out.damage = f"its last record (bytes {pos}-{len(data)}) is cut short"
            return out
        end = len(data) - len(d.unused_data)
        if not _rows(text, out.rows):
            out.damage = f"bytes {pos}-{end} hold a line that is not a record"
            return out
        pos = out.good = end
    return out


def read(path: Path) -> Iterator[dict[str, Any]]:
    """The rows of the log's intact members; a damaged tail is left out, with one
    :class:`LogWarning` line (the next ``bench run`` sets it aside: :func:`repair`)."""
    s = scan(path)
    if s.damage is not None:
        warnings.warn(f"run log {path}: {s.damage}; read its {len(s.rows)} intact records "
                      "(the next `bench run` sets the damaged file aside)", LogWarning,
                      stacklevel=2)
    return iter(s.rows.values())


def repair(path: Path) -> Scan:
    """The log's :class:`Scan`; a damaged log is first set aside (renamed to
    ``<log>.damaged-<UTC time>``, never overwriting a file) and its intact members written
    back in its place, with one :class:`LogWarning` line."""
    s = scan(path)
    if s.damage is None:
        return s
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    aside = path.with_name(f"{path.name}.damaged-{stamp}")
    good = path.read_bytes()[:s.good]
    _atomic_write(aside, path.read_bytes(), exclusive=True)
    _atomic_write(path, good)
    warnings.warn(f"run log {path}: {s.damage}; set aside as {aside.name}, its "
                  f"{len(s.rows)} intact records kept (the store restores the rest)",
                  LogWarning, stacklevel=2)
    return s


def append(path: Path, rows: Iterable[dict[str, Any]]) -> None:
    """Append ``rows`` (store rows) to the log at ``path`` as one gzip member, atomically
    (see the module docstring); a damaged log is repaired first (:func:`repair`), so no record
    goes after bytes that hide it."""
    lines = [json.dumps(_plain(r), sort_keys=True, default=str) for r in rows]
    if not lines:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LogError(f"run log {path}: cannot create its folder ({exc.strerror or exc})") \
            from None
    member = gzip.compress(("\n".join(lines) + "\n").encode("utf-8"), mtime=0)
    if path.is_file() and (not os.access(path, os.W_OK) or not os.stat(path).st_mode & 0o222):
        raise LogError(f"run log {path} is read-only: make it writable (chmod u+w {path}); "
                       "the log is unchanged")
    repair(path)
    old = path.read_bytes() if path.is_file() else b""
    _atomic_write(path, old + member)


def _atomic_write(path: Path, data: bytes, exclusive: bool = False) -> None:
    """``data`` as the file ``path``, whole or not at all: a temporary file in the same folder,
    flushed to the disk, then renamed over ``path`` (``exclusive``: only if ``path`` does not
    exist). A failure (a full disk, a read-only folder) leaves ``path`` as it was."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        if exclusive:
            os.link(tmp, path)       # fails if path exists: nothing is overwritten
            os.unlink(tmp)
        else:
            os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise LogError(f"run log {path}: cannot write it ({exc.strerror or exc}); the log "
                       "is unchanged: free disk space or make its folder writable, then run "
                       "again") from None
