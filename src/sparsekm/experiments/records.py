"""The runs of a store as a plain log that travels with the repository.

A DuckDB store is a binary file kept out of git; a long grid, though, runs for hours and the
next machine may be a fresh clone. So every row the driver stores is also appended to
``<store>.records.jsonl.gz`` beside it (one JSON object per line, gzip members appended;
small enough to commit), and a store missing rows of that log gets them back before a run
(:meth:`~sparsekm.experiments.store.Store.restore`): a stopped grid resumes on any machine
that has the log, and ``bench report`` can read the log when the store file is absent.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

__all__ = ["append", "read", "records_path"]

TIMES = ("started_at", "finished_at")


def records_path(store: Path) -> Path:
    """``results.duckdb`` -> ``results.records.jsonl.gz`` (same folder)."""
    return store.with_name(store.stem + ".records.jsonl.gz")


def _plain(row: dict[str, Any]) -> dict[str, Any]:
    return {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in row.items()}


def append(path: Path, rows: Iterable[dict[str, Any]]) -> None:
    """Append ``rows`` (store rows) to the log at ``path`` (one gzip member per call)."""
    lines = [json.dumps(_plain(r), sort_keys=True, default=str) for r in rows]
    if not lines:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "at", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


def read(path: Path) -> Iterator[dict[str, Any]]:
    """The rows of the log, later rows of a key replacing earlier ones (a retried run);
    a line cut short by a kill (the last one) is skipped."""
    if not path.is_file():
        return iter(())
    rows: dict[str, dict[str, Any]] = {}
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for line in fh:
                try:
                    row = json.loads(line)
                except ValueError:
                    continue
                for k in TIMES:
                    if isinstance(row.get(k), str):
                        row[k] = datetime.fromisoformat(row[k])
                rows[row["key"]] = row
    except (EOFError, OSError):   # a gzip member cut short by a kill: keep what was read
        pass
    return iter(rows.values())
