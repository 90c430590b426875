"""Reading a point for ``sparsekm check``: a solver's solution file or a JSON of the paper's
variables, into ``{base: {index: value}}`` (``w -> {3: 1.2}``, ``b -> {None: 0.4}``).

Solution files are read by variable name (:func:`sparsekm.solvers.files.read_solution`); a
file written with positional names (NL, CBF: ``x0``, ``x1``, ...) is read through the export's
sidecar (``--sidecar FILE.json``). A JSON file gives the paper's variables as arrays
(``{"w": [...], "b": 0.4}``), as scalars (``{"w_3": 1.2}``), or a support
(``{"support": [2, 7]}``; also ``selected`` / ``selected_names`` as ``sparsekm solve --json``
prints them, with ``w_selected`` and ``b``).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import UserError
from .export import parse_label

__all__ = ["Point", "read_point"]

_PAPER = re.compile(r"^([A-Za-z][A-Za-z0-9]*?)_([0-9]+(?:,[0-9]+)*)$")


@dataclass
class Point:
    """The values read, by base name and index; the support if one was given; the objective
    and status the file states; the format it was read as."""

    values: dict[str, dict[Any, float]] = field(default_factory=dict)
    support: list[int] | None = None
    support_names: list[str] | None = None
    objective: float | None = None
    status: str | None = None
    kind: str = ""
    count: int = 0

    def vector(self, base: str, size: int) -> list[float] | None:
        """``base`` as a dense vector of ``size`` (missing entries 0: solvers omit zeros);
        None when the point has no entry of it."""
        if base not in self.values:
            return None
        out = [0.0] * size
        for idx, val in self.values[base].items():
            out[int(idx)] = val
        return out

    def scalar(self, base: str) -> float | None:
        vals = self.values.get(base)
        return None if not vals else next(iter(vals.values()))


def _bad(src: str, why: str) -> UserError:
    return UserError(f"{src}: {why}")


def _add(point: Point, base: str, index: Any, val: Any, src: str) -> None:
    where = f"{base}{'' if index is None else f'[{index}]'}"
    if isinstance(val, bool) or not isinstance(val, int | float) or math.isnan(float(val)):
        raise _bad(src, f"{where} = {val!r} is not a number")
    if not math.isfinite(float(val)):      # 1e400 is read as inf: not a point of any problem
        raise _bad(src, f"{where} = {val!r} is not a finite number (written as "
                   f"{'-' if val < 0 else ''}inf or beyond 1.8e308)")
    point.values.setdefault(base, {})[index] = float(val)
    point.count += 1


def _from_json(data: Any, src: str) -> Point:
    if not isinstance(data, dict) or not data:
        raise _bad(src, "a JSON solution must be an object of the paper's variables "
                   '({"w": [...], "b": ...} or {"support": [...]})')
    if "problem" in data and "method" in data:  # `sparsekm solve --json`: its point only
        data = {k: data[k] for k in ("selected", "selected_names", "w_selected", "b",
                                     "objective") if k in data}
    point = Point(kind="json")
    for key in ("support", "selected"):
        if isinstance(data.get(key), list):
            if not all(isinstance(j, int) and not isinstance(j, bool) for j in data[key]):
                raise _bad(src, f"{key} must be a list of feature indices (0-based integers)")
            point.support = [int(j) for j in data[key]]
            break
    if point.support is None and isinstance(data.get("selected_names"), list):
        point.support_names = [str(s) for s in data["selected_names"]]
    if point.support is not None and isinstance(data.get("w_selected"), list):
        if len(data["w_selected"]) != len(point.support):
            raise _bad(src, "w_selected and selected differ in length")
        for j, val in zip(point.support, data["w_selected"]):
            _add(point, "w", j, val, src)
    skip = {"support", "selected", "selected_names", "w_selected", "objective", "status",
            "problem", "method", "solver", "data", "m", "n", "params", "termination",
            "sense", "lower_bound", "upper_bound", "gap", "gap_tol", "time_s"}
    for key, val in data.items():
        if key in skip or key.startswith("_"):
            continue
        if isinstance(val, list):
            for i, v in enumerate(val):
                _add(point, key, i, v, src)
        elif isinstance(val, dict):
            for i, v in val.items():
                _add(point, key, _int_index(i, key, src), v, src)
        elif (m := _PAPER.match(key)) is not None:
            parts = tuple(int(p) for p in m.group(2).split(","))
            _add(point, m.group(1), parts[0] if len(parts) == 1 else parts, val, src)
        elif isinstance(val, int | float) and not isinstance(val, bool):
            try:
                base, index = parse_label(key)
            except ValueError:
                raise _bad(src, f"{key!r} is not a variable name") from None
            _add(point, base, index, val, src)
    if isinstance(data.get("objective"), int | float):
        point.objective = float(data["objective"])
    if not point.values and point.support is None and point.support_names is None:
        raise _bad(src, "the JSON holds no variable values and no support")
    return point


def _int_index(text: Any, key: str, src: str) -> int:
    try:
        return int(text)
    except (TypeError, ValueError):
        raise _bad(src, f"{key}: index {text!r} is not an integer") from None


def _sidecar_names(path: str | None) -> dict[str, str]:
    if path is None:
        return {}
    try:
        side = json.loads(Path(path).read_text())
        return {label: entry["model"] for label, entry in
                side["variables"]["names"].items()}
    except (OSError, ValueError, KeyError, TypeError):
        raise UserError(f"--sidecar {path}: not a sparsekm export sidecar (FILE.json)") \
            from None


def read_point(path: str, sidecar: str | None = None) -> Point:
    """The point in ``path`` (see the module doc); a malformed file is a :class:`UserError`
    (one line naming the file and what is wrong: exit 2)."""
    from sparsekm.solvers.files import SolutionFileError, parse_solution

    try:
        text = Path(path).read_text()
    except UnicodeDecodeError:
        raise _bad(path, "not a text file") from None
    if text.lstrip().startswith(("{", "[")):
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise _bad(path, f"not valid JSON ({exc})") from None
        return _from_json(data, path)
    try:
        sol = parse_solution(text, path)
    except SolutionFileError as exc:
        raise UserError(str(exc)) from None
    names = _sidecar_names(sidecar)
    point = Point(kind=sol.kind, objective=sol.objective, status=sol.status)
    for label, val in sol.values.items():
        model_name = names.get(label, label)
        try:
            base, index = parse_label(model_name)
        except ValueError:
            raise _bad(path, f"{label!r} is not a variable name"
                       + ("" if names else " (a file with positional names needs --sidecar)")
                       ) from None
        _add(point, base, index, val, path)
    return point
