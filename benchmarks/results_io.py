"""Write a benchmark's report: ``results/<stem>.md`` (the table) and ``results/<stem>.json``
(the rows behind it), and print the table."""

from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).resolve().parent / "results"


def write_results(stem: str, lines: list[str], data: object) -> None:
    OUT.mkdir(exist_ok=True)
    (OUT / f"{stem}.md").write_text("\n".join(lines) + "\n")
    (OUT / f"{stem}.json").write_text(json.dumps(data, indent=1))
    print("\n".join(lines))
