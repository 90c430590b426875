"""Solvers' solution files read by variable name: SCIP, HiGHS, Gurobi, CPLEX, plain lists.

:func:`read_solution` recognises the kind from the content:

* SCIP (``write solution``, ``writeBestSol``): ``solution status: ...``, ``objective value:
  V``, then ``name value (obj:c)``; variables at zero are omitted;
* HiGHS (``writeSolution``, raw style): ``Model status`` ... ``# Primal solution values``,
  ``Objective V``, ``# Columns N`` and N lines ``name value``; the pretty style (a table with
  ``Primal`` and ``Name`` columns) too;
* Gurobi (``.sol``): ``# Objective value = V`` and ``name value`` lines;
* CPLEX (``.sol``, XML): ``<variable name="..." ... value="..."/>``;
* any other text of ``name value`` lines (``#`` comments).

A line that is none of these, a value that is not a number, a name given twice with two
values, or a file with no variable at all is a :class:`SolutionFileError` naming the file and
the line: a malformed file is refused, never read in part.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["SolutionFile", "SolutionFileError", "parse_solution", "read_solution"]

_XML_VAR = re.compile(r"<variable\b([^>]*)/?>")
_XML_ATTR = re.compile(r'(\w+)\s*=\s*"([^"]*)"')
_SCIP_OBJ = re.compile(r"^objective value:\s*(\S+)\s*$")
_GUROBI_OBJ = re.compile(r"^#\s*objective value\s*=\s*(\S+)\s*$", re.IGNORECASE)


class SolutionFileError(ValueError):
    """A solution file that cannot be read: one line naming the file, the line and why."""


@dataclass
class SolutionFile:
    """Values by the file's variable names, the objective the file states (None if none),
    its status line and which solver's format it was."""

    values: dict[str, float]
    kind: str
    objective: float | None = None
    status: str | None = None
    lines: int = 0
    notes: list[str] = field(default_factory=list)


def _number(text: str, where: str) -> float:
    try:
        val = float(text)
    except ValueError:
        raise SolutionFileError(f"{where}: {text!r} is not a number") from None
    if math.isnan(val):
        raise SolutionFileError(f"{where}: the value is NaN")
    return val


def _put(values: dict[str, float], name: str, val: float, where: str) -> None:
    if name in values and values[name] != val:
        raise SolutionFileError(f"{where}: variable {name!r} is given twice ({values[name]} "
                                f"and {val})")
    values[name] = val


def _pairs(lines: list[tuple[int, str]], src: str, values: dict[str, float],
           scip: bool = False) -> None:
    """``name value [rest]`` lines (SCIP's rest is ``(obj:c)``)."""
    for no, line in lines:
        parts = line.split()
        where = f"{src}:{no}"
        if len(parts) < 2 or (len(parts) > 2 and not (scip and parts[2].startswith("(obj:"))):
            raise SolutionFileError(f"{where}: expected 'name value', got {line.strip()!r}")
        _put(values, parts[0], _number(parts[1], where), where)


def _scip(body: list[tuple[int, str]], src: str) -> SolutionFile:
    out = SolutionFile({}, "scip")
    rest = []
    for no, line in body:
        text = line.strip()
        if text.startswith("solution status:"):
            out.status = text.split(":", 1)[1].strip()
        elif (m := _SCIP_OBJ.match(text)) is not None:
            out.objective = _number(m.group(1), f"{src}:{no}")
        elif text.startswith("no solution available"):
            raise SolutionFileError(f"{src}:{no}: the file holds no solution ({text})")
        else:
            rest.append((no, line))
    _pairs(rest, src, out.values, scip=True)
    return out


def _highs(body: list[tuple[int, str]], src: str) -> SolutionFile:
    out = SolutionFile({}, "highs")
    texts = [line.strip() for _, line in body]
    if "Model status" in texts:
        i = texts.index("Model status")
        out.status = texts[i + 1] if i + 1 < len(texts) else None
    if "# Primal solution values" not in texts:
        if "Columns" in texts:
            return _highs_pretty(body, texts, src, out)
        raise SolutionFileError(f"{src}: a HiGHS file without '# Primal solution values'")
    i = texts.index("# Primal solution values") + 1
    while i < len(texts) and not texts[i].startswith("# Columns"):
        if texts[i].startswith("Objective"):
            out.objective = _number(texts[i].split()[-1], f"{src}:{body[i][0]}")
        elif texts[i] == "None":
            raise SolutionFileError(f"{src}:{body[i][0]}: the file holds no primal solution")
        i += 1
    if i >= len(texts):
        raise SolutionFileError(f"{src}: a HiGHS file without '# Columns N'")
    count = int(_number(texts[i].split()[-1], f"{src}:{body[i][0]}"))
    block = body[i + 1:i + 1 + count]
    if len(block) < count:
        raise SolutionFileError(f"{src}: '# Columns {count}' but only {len(block)} lines follow")
    _pairs(block, src, out.values)
    return out


def _highs_pretty(body: list[tuple[int, str]], texts: list[str], src: str,
                  out: SolutionFile) -> SolutionFile:
    i = texts.index("Columns") + 1
    header = texts[i].split() if i < len(texts) else []
    if "Primal" not in header or "Name" not in header:
        raise SolutionFileError(f"{src}: a HiGHS table without Primal and Name columns")
    p, n = header.index("Primal"), header.index("Name")
    for no, line in body[i + 1:]:
        parts = line.split()
        if not parts or parts[0] in ("Rows", "Model"):
            break
        if len(parts) != len(header):
            raise SolutionFileError(f"{src}:{no}: expected {len(header)} columns")
        _put(out.values, parts[n], _number(parts[p], f"{src}:{no}"), f"{src}:{no}")
    return out


def _gurobi(body: list[tuple[int, str]], src: str) -> SolutionFile:
    out = SolutionFile({}, "gurobi")
    rest = []
    for no, line in body:
        text = line.strip()
        if (m := _GUROBI_OBJ.match(text)) is not None:
            out.objective = _number(m.group(1), f"{src}:{no}")
        elif text.startswith("#"):
            continue
        else:
            rest.append((no, line))
    _pairs(rest, src, out.values)
    return out


def _cplex(text: str, src: str) -> SolutionFile:
    out = SolutionFile({}, "cplex")
    m = re.search(r'objectiveValue\s*=\s*"([^"]*)"', text)
    if m is not None:
        out.objective = _number(m.group(1), src)
    m = re.search(r'solutionStatusString\s*=\s*"([^"]*)"', text)
    out.status = m.group(1) if m else None
    for k, var in enumerate(_XML_VAR.finditer(text)):
        attrs = dict(_XML_ATTR.findall(var.group(1)))
        if "name" not in attrs or "value" not in attrs:
            raise SolutionFileError(f"{src}: <variable> {k} has no name or value")
        _put(out.values, attrs["name"], _number(attrs["value"], f"{src}: variable "
                                                 f"{attrs['name']}"), src)
    return out


def parse_solution(text: str, src: str = "solution") -> SolutionFile:
    """The solution in ``text`` (see the module doc); ``src`` names it in messages."""
    if "<CPLEXSolution" in text or "<variables>" in text:
        out = _cplex(text, src)
    else:
        body = [(no, line) for no, line in enumerate(text.splitlines(), start=1)
                if line.strip()]
        first = body[0][1].strip() if body else ""
        if first.startswith(("solution status:", "objective value:", "no solution")):
            out = _scip(body, src)
        elif first in ("Model status", "Columns") or any(line.strip() == "# Primal solution values"
                                            for _, line in body):
            out = _highs(body, src)
        elif first.startswith("#") and any(_GUROBI_OBJ.match(line.strip())
                                           for _, line in body):
            out = _gurobi(body, src)
        else:
            out = SolutionFile({}, "plain")
            _pairs([(no, line) for no, line in body if not line.strip().startswith("#")],
                   src, out.values)
    if not out.values:
        raise SolutionFileError(f"{src}: no variable values in the file")
    out.lines = text.count("\n") + 1
    return out


def read_solution(path: str | Path) -> SolutionFile:
    """The solution file at ``path`` (:func:`parse_solution`)."""
    path = Path(path)
    try:
        text = path.read_text()
    except UnicodeDecodeError:
        raise SolutionFileError(f"{path}: not a text file") from None
    return parse_solution(text, str(path))
