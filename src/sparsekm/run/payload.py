"""The JSON contract of a run: the fixed keys of every payload, then a method's extras."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["FIXED_KEYS", "clean", "payload_from", "result_payload"]


def clean(x: Any) -> Any:
    """Make numpy scalars/arrays and non-finite floats JSON-safe."""
    if isinstance(x, dict):
        return {str(k): clean(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [clean(v) for v in x]
    if isinstance(x, np.ndarray):
        return clean(x.tolist())
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if hasattr(x, "value") and x.__class__.__module__.startswith("sparsekm"):
        return x.value  # enums
    if x is None or isinstance(x, str | int | float | bool):
        return x
    return str(x)  # anything else a method put in its extras: readable, never a crash


def result_payload(*, problem: str, method: str, ds: Any, params: dict,
                   **fields: Any) -> dict[str, Any]:
    """The CLI's JSON contract: the fixed keys first, problem-specific extras after.

    ``fields`` holds the outcome (``solver, status, termination, sense, objective, bound, gap,
    gap_tol, selected, time_s``; a missing one is null) and any extras. The bound is written
    on its side: ``lower_bound`` when minimising, ``upper_bound`` when maximising.
    """
    sel = fields.pop("selected", None)
    sel = None if sel is None else sorted(int(j) for j in sel)
    sense = fields.pop("sense", "min")
    bound_key = "lower_bound" if sense == "min" else "upper_bound"
    payload = {
        "problem": problem, "method": method, "solver": fields.pop("solver", None),
        "data": ds.name, "m": int(ds.m), "n": int(ds.n), "params": params,
        "status": str(fields.pop("status", "error")),
        "termination": str(fields.pop("termination", "error")), "sense": sense,
        "objective": fields.pop("objective", None), bound_key: fields.pop("bound", None),
        "gap": fields.pop("gap", None), "gap_tol": fields.pop("gap_tol", None),
        "selected": sel,
        "selected_names": None if sel is None else [ds.feature_names[j] for j in sel],
        "time_s": round(float(fields.pop("time_s", 0.0)), 6),
    }
    if getattr(ds, "labels", None):  # how the file's classes became -1 / +1
        payload["labels"] = ds.labels
    payload.update(fields)
    return clean(payload)


FIXED_KEYS = ("problem", "method", "solver", "data", "m", "n", "params", "status",
              "termination", "sense", "objective", "lower_bound", "upper_bound", "gap",
              "gap_tol", "selected", "selected_names", "time_s")


def payload_from(res: Any, *, problem: str, method: str, ds: Any, params: dict,
                 **extra: Any) -> dict[str, Any]:
    """:func:`result_payload` filled from a :class:`~sparsekm.solvers.Result`: the fixed keys,
    the runner's ``extra`` and then every key of ``res.extra`` (no hand-written list: a new
    method's extras reach the JSON), a runner's key winning over the method's."""
    if res.message and res.status.value in ("error", "bound_only", "feasible"):
        extra.setdefault("message", res.message)
    if res.local is not None:
        extra.setdefault("local_optimality", res.local)
    for key, val in res.extra.items():
        if key not in FIXED_KEYS:
            extra.setdefault(key, val)
    return result_payload(
        problem=problem, method=method, solver=res.solver or None, ds=ds, params=params,
        status=res.status.value, termination=res.termination.value, sense=res.sense,
        objective=res.objective, bound=res.bound, gap=res.gap, gap_tol=res.gap_tol,
        selected=res.selected, time_s=res.time_s, **extra)
