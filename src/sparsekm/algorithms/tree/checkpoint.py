"""Checkpoints of a tree search: plain arrays and JSON in one ``.npz`` file, never pickle.

A checkpoint holds what a search needs to go on (as UG's checkpoints keep the primitive open
subproblems): the open nodes, the incumbent, the floor of pruned bounds, the counters, the
shared log and the root phase's state, plus the fingerprint of the problem's data and
parameters (and the parameters themselves, to name the ones that differ). It is written
atomically (to ``PATH.tmp``, flushed, then renamed over ``PATH``), so a kill at any moment
leaves the previous complete checkpoint. It is read with ``allow_pickle=False``, and only once
its first bytes say it is a zip archive: a file passed between colleagues cannot run code, and
a file that is not a checkpoint (empty, a CSV, a damaged copy) is refused in one line
(:class:`CheckpointError`) saying which.

Groups of records (``list[dict[str, array]]``) are stored field by field as one flat array plus
the lengths (-1 for None), so any number of nodes costs a few arrays.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from sparsekm.declare import ParamError

from .interface import Data

__all__ = ["CheckpointError", "FORMAT", "load", "save"]

FORMAT = "sparsekm-tree-checkpoint/1"
FORMAT_FAMILY = "sparsekm-tree-checkpoint/"
ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
META = "meta.json"


class CheckpointError(ParamError):
    """A checkpoint that cannot be used: in use by another search, unreadable, not a
    checkpoint, or written for other data or parameters.

    A :class:`~sparsekm.declare.ParamError` of the option ``checkpoint``, so that every front
    end names it as the user wrote it (``--checkpoint run.ckpt: is in use by another search
    ...``); ``str()`` starts with the path, ``reason`` is what is wrong and the fix.
    """

    def __init__(self, path: str | os.PathLike, reason: str) -> None:
        self.path, self.reason = str(path), reason
        ParamError.__init__(self, "checkpoint", self.path, reason)
        self.args = (f"{self.path} {reason}",)

    def __str__(self) -> str:
        return f"{self.path} {self.reason}"

    def __reduce__(self) -> tuple[Any, ...]:  # picklable (worker processes)
        return (type(self), (self.path, self.reason))


def _encode(group: str, records: list[Data], out: dict[str, np.ndarray]) -> dict[str, Any]:
    fields: dict[str, dict[str, Any]] = {}
    for rec in records:
        for name, val in rec.items():
            if val is not None and name not in fields:
                a = np.asarray(val)
                if a.ndim > 1:
                    raise ValueError(f"checkpoint field {group}.{name}: 0-d or 1-d arrays only")
                fields[name] = {"ndim": a.ndim, "dtype": a.dtype.str}
    for name, spec in fields.items():
        parts, lens = [], np.empty(len(records), np.int64)
        for i, rec in enumerate(records):
            val = rec.get(name)
            if val is None:
                lens[i] = -1
                continue
            a = np.asarray(val, dtype=spec["dtype"]).ravel()
            lens[i] = a.size
            parts.append(a)
        out[f"{group}.{name}.len"] = lens
        out[f"{group}.{name}.data"] = np.concatenate(parts) if parts else \
            np.zeros(0, spec["dtype"])
    return {"count": len(records), "fields": fields}


def _decode(group: str, spec: dict[str, Any], arrays: Any) -> list[Data]:
    records: list[Data] = [{} for _ in range(spec["count"])]
    for name, f in spec["fields"].items():
        lens = arrays[f"{group}.{name}.len"]
        data = arrays[f"{group}.{name}.data"]
        pos = 0
        for i, n in enumerate(lens.tolist()):
            if n < 0:
                records[i][name] = None
                continue
            a = data[pos:pos + n].copy()
            pos += n
            records[i][name] = a.reshape(()) if f["ndim"] == 0 else a
    return records


def save(path: str | os.PathLike, meta: dict[str, Any], groups: dict[str, list[Data]],
         arrays: dict[str, np.ndarray] | None = None) -> int:
    """Write ``meta`` (JSON), record ``groups`` and plain ``arrays`` to ``path`` atomically;
    returns the file size in bytes."""
    path = Path(path)
    out: dict[str, np.ndarray] = {k: np.asarray(v) for k, v in (arrays or {}).items()}
    specs = {g: _encode(g, recs, out) for g, recs in groups.items()}
    doc = {"format": FORMAT, **meta, "groups": specs}
    out[META] = np.frombuffer(json.dumps(doc).encode(), dtype=np.uint8)
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "wb") as fh:
            np.savez(fh, **out)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        raise CheckpointError(path, f"cannot be written ({exc.strerror or exc})") from None
    return path.stat().st_size


def _what(head: bytes) -> str:
    """What a file that is not a zip archive looks like, from its first bytes."""
    if head.startswith(b"\x93NUMPY"):
        return "a .npy array"
    if head.startswith(b"\x80"):
        return "a pickle file"
    if head.startswith(b"\x1f\x8b"):
        return "a gzip file"
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return "binary data of another kind"
    line = text.splitlines()[0] if text.strip() else ""
    if line and line.isprintable():
        shown = line if len(line) <= 40 else line[:40] + "..."
        return f"a text file starting {shown!r}"
    return "a text file"


def _sniff(path: Path) -> None:
    """CheckpointError unless ``path`` is a non-empty zip archive holding the meta record."""
    if path.is_dir():
        raise CheckpointError(path, "is a folder, not a checkpoint file; give a file path "
                              "(--checkpoint FOLDER/run.ckpt)")
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            head = fh.read(256)
    except OSError as exc:
        raise CheckpointError(path, f"cannot be read ({exc.strerror or exc})") from None
    if size == 0:
        raise CheckpointError(path, "is empty, not a checkpoint (sparsekm writes its "
                              "checkpoints whole); delete it or use another --checkpoint path")
    if not head.startswith(ZIP_MAGIC):
        raise CheckpointError(path, f"is not a sparsekm checkpoint ({_what(head)}); use "
                              "another --checkpoint path")
    try:
        with zipfile.ZipFile(path) as zf:
            names = zf.namelist()
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        why = "truncated: its zip directory is missing" if "not a zip file" in str(exc) \
            else f"damaged: {exc}"
        raise CheckpointError(path, f"is corrupt ({why}); delete it to start over, or use "
                              "another --checkpoint path") from None
    if f"{META}.npy" not in names:
        raise CheckpointError(path, "is not a sparsekm checkpoint (a zip archive without "
                              f"its {META}); use another --checkpoint path")


def load(path: str | os.PathLike) -> tuple[dict[str, Any], dict[str, list[Data]],
                                           dict[str, np.ndarray]]:
    """(meta, groups, arrays) of a checkpoint written by :func:`save`; CheckpointError (one
    line: empty, corrupt, not a checkpoint, another format) for anything else."""
    path = Path(path)
    _sniff(path)
    try:
        with np.load(path, allow_pickle=False) as z:
            doc = json.loads(bytes(z[META]).decode())
            fmt = doc.get("format") if isinstance(doc, dict) else None
            if not (isinstance(fmt, str) and fmt.startswith(FORMAT_FAMILY)):
                raise CheckpointError(path, "is not a sparsekm checkpoint (an .npz file of "
                                      "another program); use another --checkpoint path")
            if fmt != FORMAT:
                raise CheckpointError(path, f"is a checkpoint of another sparsekm version "
                                      f"(format {fmt}, this version reads {FORMAT}); delete "
                                      "it or use another --checkpoint path")
            groups = {g: _decode(g, spec, z) for g, spec in doc.pop("groups").items()}
            arrays = {k: z[k] for k in z.files if "." not in k}
    except CheckpointError:
        raise
    except (OSError, ValueError, KeyError, TypeError, AttributeError, EOFError,
            zipfile.BadZipFile) as exc:
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if "pickle" in why:     # an object array: never written by save()
            raise CheckpointError(path, "is not a sparsekm checkpoint (it holds Python "
                                  "objects); use another --checkpoint path") from None
        raise CheckpointError(path, f"is corrupt (damaged: {why}); delete it to start over, "
                              "or use another --checkpoint path") from None
    return doc, groups, arrays
