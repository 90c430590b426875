"""What a results store's files must be before a run touches them, each refusal one line.

A store path that is a folder, a store file that is not a DuckDB database (text, CSV), a DuckDB
database of another program (no ``runs`` table, or a ``runs`` table without ``status``), a
read-only store or run log (its write bits cleared: root would otherwise write it anyway), a
folder that cannot be written: each is a :class:`StoreError` naming the file, what is wrong and
the fix, and the file is never changed (:class:`~.store.Store` calls these before any write).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

__all__ = ["StoreBusyError", "StoreError", "StoreIOError", "check_magic", "check_path",
           "check_tables", "check_writable", "shown", "unusable"]


DUCKDB_MAGIC = b"DUCK"   # bytes 8-12 of every DuckDB database file


class StoreError(ValueError):
    """A store path that cannot hold a store (a folder, a file where a folder is needed)."""


class StoreIOError(StoreError):
    """The store file could not be opened or written (permissions, a full disk)."""


class StoreBusyError(StoreError):
    """Another ``bench run`` holds the store (its lock): a user's situation, exit 2."""


def check_path(path: Path) -> None:
    """StoreError unless a store can be created or written at ``path``."""
    name = shown(path)
    if path.is_dir():
        raise StoreError(f"store {name} is a folder; set `store` in the config to a file "
                         "name such as results.duckdb")
    check_magic(path)
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise StoreError(f"store {name}: {shown(parent)} is a file, not a "
                                 "folder; set `store` in the config to a path in a folder")
            break


def check_magic(path: Path) -> None:
    """StoreError for a non-empty file that is not a DuckDB database, before DuckDB opens it
    (DuckDB attaches an SQLite file, fetching an extension over the network to do so)."""
    if not path.is_file() or not path.stat().st_size:
        return
    with path.open("rb") as fh:
        head = fh.read(24)
    if head[8:12] != DUCKDB_MAGIC:
        kind = "an SQLite database" if head.startswith(b"SQLite format 3") else \
            f"it starts with {head!r}: text, CSV or another format?"
        raise StoreError(f"store {shown(path)} is not a DuckDB database ({kind}); move it "
                         "aside or set another `store` in the config (it is left as it is)")


def check_writable(store: Path, log: Path) -> None:
    """StoreError unless the store, its log and their folder can be written: a read-only
    file (no write bit, which root would otherwise ignore) is refused before any run, not
    found after the first one (it finished, then was lost with a traceback)."""
    name = shown(store)
    for path, what in ((store, "store"), (log, "run log")):
        if path.is_file() and (not os.access(path, os.W_OK)
                               or not os.stat(path).st_mode & 0o222):
            raise StoreError(f"{what} {shown(path)} is read-only: make it writable "
                             f"(chmod u+w {shown(path)}) or set another `store` in the "
                             "config; nothing was run")
    folder = store.parent if store.parent.exists() else None
    if folder is not None and not os.access(folder, os.W_OK | os.X_OK):
        raise StoreError(f"store {name}: its folder {shown(folder)} is not writable; make "
                         "it writable or set another `store` in the config")


def unusable(path: Path, exc: Exception) -> StoreError:
    """One line: why DuckDB could not open the store file, and the fix."""
    name, text = shown(path), " ".join(str(exc).split())
    if "not a valid DuckDB database" in text:
        head = path.read_bytes()[:24] if path.is_file() else b""
        kind = "an empty file" if not head else f"it starts with {head!r}"
        return StoreError(f"store {name} is not a DuckDB database ({kind}: text, CSV or "
                          "another format?); move it aside or set another `store` in the "
                          "config (it is left as it is)")
    return StoreIOError(f"store {name} cannot be opened ({text}); make it readable and "
                        "writable, or set another `store` in the config")


def check_tables(path: Path, con: Any) -> None:
    """StoreError for a DuckDB file that is not a results store (another program's): it is
    never changed. An empty database (a new store) passes."""
    tables = {r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables").fetchall()}
    name = shown(path)
    if tables and not tables & {"runs", "meta"}:
        raise StoreError(f"store {name} is a DuckDB database of another program (tables "
                         f"{', '.join(sorted(tables)[:5])}; no `runs` table); set another "
                         "`store` in the config (it is left as it is)")
    if "runs" in tables:
        have = {r[0] for r in con.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = "
            "'runs'").fetchall()}
        lack = [c for c in ("key", "status", "payload") if c not in have]
        if lack:
            raise StoreError(f"store {name} has a `runs` table without the column(s) "
                             f"{', '.join(lack)}: not a sparsekm results store; set another "
                             "`store` in the config (it is left as it is)")


def shown(path: Path) -> str:
    """``path`` relative to the working directory when under it (as a user would type it)."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
