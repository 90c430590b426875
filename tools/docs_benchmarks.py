"""The benchmarks page of the documentation site, written from ``benchmarks/`` at build time:
each script with its docstring and the result files it wrote, each bench config with its
description and its committed report."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"


def _first_paragraph(path: Path) -> str:
    doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    return " ".join(doc.split("\n\n")[0].split()).replace("|", "\\|")


def _results(stem: str) -> list[str]:
    found = sorted(p.name for p in (BENCH / "results").glob(f"{stem}*")
                   if p.suffix in (".md", ".json", ".csv"))
    return [f"`benchmarks/results/{n}`" for n in found]


def _configs() -> list[str]:
    import tomllib

    rows = ["| config | what it runs | report |", "|---|---|---|"]
    for path in sorted((BENCH / "configs").glob("*.toml")):
        cfg = tomllib.loads(path.read_text())
        name = cfg.get("name", path.stem)
        report = BENCH / "results" / f"{name}.md"
        shown = f"`benchmarks/results/{name}.md`" if report.exists() else "not committed"
        rows.append(f"| `benchmarks/configs/{path.name}` | "
                    f"{cfg.get('description', '').replace('|', '/')} | {shown} |")
    return rows


def markdown() -> str:
    """The page."""
    scripts = ["| script | what it measures | results |", "|---|---|---|"]
    for path in sorted(BENCH.glob("bench_*.py")):
        stem = path.stem.removeprefix("bench_")
        scripts.append(f"| `benchmarks/{path.name}` | {_first_paragraph(path)} | "
                       f"{', '.join(_results(stem)) or 'printed'} |")
    return "\n".join([
        "# Benchmark scripts and configs", "",
        "Written from `benchmarks/` when the site is built (`tools/docs_benchmarks.py`). "
        "Speed is part of correctness here: each script measures against a baseline run in "
        "the same process and reports CPU time beside wall time, because this project's "
        "machine (2 cores) is shared with other jobs. `make bench` runs every config and "
        "script (`python benchmarks/run_all.py [--quick] [--workers N] [name ...]`).", "",
        "## Bench configs (the papers' tables and studies)", "",
        "Each config is a grid run by `sparsekm bench run` into a locked DuckDB store, with "
        "a committed run log beside it from which a fresh clone rebuilds the store; "
        "`sparsekm bench report` and `bench plot` write the tables and figures "
        "([experiments](../topics/experiments.md)); the paper's values stand beside ours in "
        "[Reproducing the papers](../reproduce.md).", "", *_configs(), "",
        "## Scripts (what a grid cannot measure)", "", *scripts, ""]) + "\n"


if __name__ == "__main__":
    print(markdown())
