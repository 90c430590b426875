"""The instance library's page of the documentation site (``reference/library.md``), written
from ``benchmarks/library/manifest.json`` at build time: the counts by paper and table
(instances, certified, confirmed), then one row per confirmed instance and one per certified
instance, each value as the manifest holds it (``sparsekm library manifest`` writes it from
the records in ``benchmarks/library/records/``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "benchmarks" / "library" / "manifest.json"
COUNTED = ("instances", "certified", "confirmed", "certified_and_confirmed")


def load(path: Path = MANIFEST) -> dict[str, Any]:
    """The manifest as written by ``sparsekm library manifest``."""
    return json.loads(path.read_text())


def counts(rows: list[dict[str, Any]]) -> dict[str, int]:
    """Instances, certified, confirmed, and both, counted from the rows themselves."""
    return {"instances": len(rows),
            "certified": sum(bool(r["certified"]) for r in rows),
            "confirmed": sum(bool(r["confirmed"]) for r in rows),
            "certified_and_confirmed": sum(bool(r["certified"] and r["confirmed"])
                                           for r in rows)}


def by_table(rows: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, int]]:
    """:func:`counts` per (paper, table), in the manifest's order."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["paper"], r["table"]), []).append(r)
    return {key: counts(group) for key, group in groups.items()}


def _num(x: Any) -> str:
    return "" if x is None else f"{x:.10g}"


def _gap(x: Any) -> str:
    return "" if x is None else f"{x:.2e}"


def _cell(text: Any) -> str:
    return " ".join(str(text or "").split()).replace("|", "\\|")


def _row(r: dict[str, Any], confirmed: bool) -> str:
    cells = [f"`{r['instance']}`", f"{r['m']} x {r['n']}", r["class"],
             _num(r["best_objective"]), _num(r["certified_bound"]), _gap(r["gap"]),
             _cell(r["objective_by"])]
    if r["bound_by"] != r["objective_by"]:
        cells[-1] += f"; bound: {_cell(r['bound_by'])}"
    if confirmed:
        cells.append(f"{_cell(r['confirmed_by'])} ({_cell(r['confirmation_kind'])})")
    return "| " + " | ".join(cells) + " |"


def markdown(path: Path = MANIFEST) -> str:
    """The page."""
    doc = load(path)
    rows = doc["instances"]
    total = counts(rows)
    rel = "benchmarks/library/manifest.json"
    out = ["# The instance library", "",
           f"Written from `{rel}` when the site is built (`tools/docs_library.py`); how the "
           "instances are chosen, certified and confirmed is in "
           "[the instance library](../topics/library.md). Certified: "
           f"{doc['certified_when']}. Confirmed: {doc['confirmed_when']}.", "",
           f"**{total['instances']} instances, {total['certified']} certified, "
           f"{total['confirmed']} confirmed by a second solver "
           f"({total['certified_and_confirmed']} certified and confirmed).**", "",
           "## Counts by paper and table", "",
           "| paper | table | instances | certified | confirmed |", "|---|---|---|---|---|"]
    for (paper, table), c in by_table(rows).items():
        out.append(f"| {paper} | {table} | {c['instances']} | {c['certified']} | "
                   f"{c['confirmed']} |")
    out.append(f"| all | | {total['instances']} | {total['certified']} | "
               f"{total['confirmed']} |")
    head = "| instance | m x n | class | best objective | certified bound | gap | by |"
    out += ["", "## Certified and confirmed", "",
            "The best objective and the bound were found by sparsekm; a second solver read "
            "the exported file (outside sparsekm) and found the value in the last column.", "",
            head + " confirmed by |", "|---|---|---|---|---|---|---|---|"]
    out += [_row(r, True) for r in rows if r["confirmed"]]
    out += ["", "## Every certified instance", "", head, "|---|---|---|---|---|---|---|"]
    out += [_row(r, False) for r in rows if r["certified"]]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(markdown())
