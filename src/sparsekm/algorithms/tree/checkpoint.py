"""Checkpoints of a tree search: plain arrays and JSON in one ``.npz`` file, never pickle.

A checkpoint holds what a search needs to go on (as UG's checkpoints keep the primitive open
subproblems): the open nodes, the incumbent, the floor of pruned bounds, the counters, the
shared log and the root phase's state, plus the fingerprint of the problem's data and
parameters. It is written atomically (to ``PATH.tmp``, flushed, then renamed over ``PATH``), so
a kill at any moment leaves the previous complete checkpoint. It is loaded with
``allow_pickle=False``: a file passed between colleagues cannot run code.

Groups of records (``list[dict[str, array]]``) are stored field by field as one flat array plus
the lengths (-1 for None), so any number of nodes costs a few arrays.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from .protocol import Data

__all__ = ["CheckpointError", "FORMAT", "load", "save"]

FORMAT = "sparsekm-tree-checkpoint/1"


class CheckpointError(ValueError):
    """A checkpoint that cannot be used (another problem, unreadable, other format)."""


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
    out["meta.json"] = np.frombuffer(json.dumps(doc).encode(), dtype=np.uint8)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        np.savez(fh, **out)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    return path.stat().st_size


def load(path: str | os.PathLike) -> tuple[dict[str, Any], dict[str, list[Data]],
                                           dict[str, np.ndarray]]:
    """(meta, groups, arrays) of a checkpoint written by :func:`save`."""
    try:
        with np.load(Path(path), allow_pickle=False) as z:
            doc = json.loads(bytes(z["meta.json"]).decode())
            if doc.get("format") != FORMAT:
                raise CheckpointError(f"checkpoint {path}: format {doc.get('format')!r}, "
                                      f"expected {FORMAT!r}; delete it or use another path")
            groups = {g: _decode(g, spec, z) for g, spec in doc.pop("groups").items()}
            arrays = {k: z[k] for k in z.files if "." not in k}
    except CheckpointError:
        raise
    except (OSError, ValueError, KeyError) as exc:
        raise CheckpointError(f"checkpoint {path} is unreadable ({exc}); delete it or use "
                              "another path") from None
    return doc, groups, arrays
