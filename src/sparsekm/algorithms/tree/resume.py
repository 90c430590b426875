"""A search to and from its checkpoint (:mod:`.checkpoint`), and why a checkpoint is refused.

The meta record keeps the fingerprint of the problem (:func:`~.interface.fingerprint`) and,
beside it, what it was made of: the problem's class, its parameters (``key()``'s, as JSON) and
a digest of each data array. A checkpoint whose fingerprint differs is refused with the
parameters that differ (``run.ckpt was written for B = 5; this run has B = 3``), or, when
only the arrays differ, with the arrays named (another data set, split or scaling).
"""

from __future__ import annotations

import heapq
import json
import math
import os
import time
from typing import Any

import numpy as np

from . import checkpoint as ckpt
from .interface import TreeProblem, array_digests, jsonable
from .state import Search

__all__ = ["load_search", "mismatch", "save_search"]

ADVICE = "use another --checkpoint path, or delete it to start over"


def _kind(problem: TreeProblem) -> str:
    return f"{type(problem).__module__}.{type(problem).__qualname__}"


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def _inf(x: float | None) -> float:
    return math.inf if x is None else float(x)


def save_search(search: Search, path: str, elapsed: float) -> int:
    """Write ``search`` (open nodes, nodes in flight, incumbent, shared log, root state) to
    ``path``; returns the file size."""
    entries = list(search.heap) + [e for b in search.inflight for e in b.nodes]
    arrays_key, params = search.problem.key()
    meta = {"fingerprint": search.fp, "problem": search.problem.describe(),
            "kind": _kind(search.problem), "params": jsonable(params),
            "arrays": array_digests(arrays_key),
            "ub": _finite(search.ub), "best_key": list(search.best_key),
            "floor": _finite(search.floor), "counter": search.counter,
            "nodes_total": search.nodes_before + search.nodes, "stats": search.stats,
            "info": search.info, "root_done": search.root_done,
            "stages": list(search.stages),
            "seconds_total": search.timing.get("before", 0.0) + elapsed,
            "saved": time.strftime("%Y-%m-%d %H:%M:%S")}
    groups = {"nodes": [e[2] for e in entries], "shared": search.shared,
              "best": [] if search.best is None else [search.best],
              "root": [search.root_arrays], "stages": list(search.stages.values())}
    arrays = {"nodes_bound": np.array([e[0] for e in entries], float),
              "nodes_order": np.array([e[1] for e in entries], np.int64)}
    return ckpt.save(path, meta, groups, arrays)


def _show(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, int | str):
        return str(value)
    return json.dumps(value)


def mismatch(meta: dict[str, Any], problem: TreeProblem) -> str:
    """Why the checkpoint of meta record ``meta`` does not belong to ``problem`` (one line,
    to follow the checkpoint's path)."""
    arrays, params = problem.key()
    kind = meta.get("kind")
    if kind is not None and kind != _kind(problem):
        return (f"was written by another method ({meta.get('problem')}); this run is "
                f"{problem.describe()}: {ADVICE}")
    stored = meta.get("params")
    if not isinstance(stored, dict):          # a checkpoint without its parameters
        return (f"belongs to another problem or other parameters "
                f"({meta.get('problem')}); this run is {problem.describe()}: {ADVICE}")
    now = jsonable(params)
    missing = object()
    differ = [k for k in sorted(set(stored) | set(now))
              if stored.get(k, missing) != now.get(k, missing)]
    if differ:
        then = ", ".join(f"{k} = {_show(stored.get(k))}" for k in differ)
        here = ", ".join(f"{k} = {_show(now.get(k))}" for k in differ)
        return f"was written for {then}; this run has {here}: {ADVICE}"
    digests, stored_digests = array_digests(arrays), meta.get("arrays") or {}
    names = [k for k in sorted(set(digests) | set(stored_digests))
             if digests.get(k) != stored_digests.get(k)] or sorted(digests)
    verb = "differs" if len(names) == 1 else "differ"
    return (f"was written for other data ({' and '.join(names)} {verb}: another data "
            f"set, split or scaling): {ADVICE}")


def load_search(problem: TreeProblem, fp: str, path: str) -> Search | None:
    """The search saved at ``path`` (None when there is no file); CheckpointError for a file
    that is not a checkpoint, or one of another problem (naming what differs)."""
    if not os.path.lexists(path):
        return None
    meta, groups, arrays = ckpt.load(path)
    if meta.get("fingerprint") != fp:
        raise ckpt.CheckpointError(path, mismatch(meta, problem))
    try:
        s = Search(problem, fp, counter=int(meta["counter"]), ub=_inf(meta["ub"]),
                   best_key=tuple(meta["best_key"]), floor=_inf(meta["floor"]),
                   shared=groups["shared"], stats=dict(meta["stats"]), info=dict(meta["info"]),
                   root_arrays=groups["root"][0] if groups["root"] else {},
                   nodes_before=int(meta["nodes_total"]), resumed=True,
                   root_done=bool(meta["root_done"]),
                   stages=dict(zip(meta["stages"], groups["stages"])))
        s.best = groups["best"][0] if groups["best"] else None
        s.heap = [(float(b), int(o), d) for b, o, d in
                  zip(arrays["nodes_bound"], arrays["nodes_order"], groups["nodes"])]
    except (KeyError, TypeError, ValueError) as exc:
        raise ckpt.CheckpointError(path, f"is corrupt (its record lacks {exc}); delete it "
                                   "to start over, or use another --checkpoint path") from None
    heapq.heapify(s.heap)
    s.timing["before"] = float(meta.get("seconds_total", 0.0))
    return s
