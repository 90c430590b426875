"""Render the notebooks for the documentation site: execute each ``notebooks/*.ipynb`` in a
Jupyter kernel (nbclient) and write the executed copy, outputs included, to
``docs/notebooks/``, where mkdocs-jupyter shows it.

The sources stay without outputs (a test runs them with small parameters). Here each runs with
its own defaults except the overrides below, injected after its ``parameters`` cell as
papermill does, and a first cell says when and how it was run. Usage:
``python tools/docs_notebooks.py [name-substring ...]`` (``make docs-notebooks``).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ROOT / "notebooks"
OUT = ROOT / "docs" / "notebooks"
OVERRIDES = {"WORKERS": 0}  # grids in the kernel's process: no cluster to start per notebook


def _injected(store: str) -> str:
    lines = [f"{k} = {v!r}" for k, v in OVERRIDES.items()] + [f"STORE_DIR = {store!r}"]
    return "# injected by tools/docs_notebooks.py (as papermill does)\n" + "\n".join(lines)


def render(path: Path) -> float:
    """Execute one notebook and write its rendered copy; returns its seconds."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory(prefix="sparsekm-nb-") as store:
        cells = nb.cells
        where = next((i for i, c in enumerate(cells) if "parameters" in
                      c.get("metadata", {}).get("tags", [])), None)
        if where is not None:
            cells.insert(where + 1, nbformat.v4.new_code_cell(
                _injected(store), metadata={"tags": ["injected-parameters"]}))
        t0 = time.perf_counter()
        NotebookClient(nb, timeout=3600, kernel_name="python3",
                       resources={"metadata": {"path": str(ROOT)}}).execute()
        seconds = time.perf_counter() - t0
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    note = (f"*Rendered from `notebooks/{path.name}` on {stamp}: executed top to bottom in "
            f"{seconds:.0f} s on {os.cpu_count()} cores (load average "
            f"{os.getloadavg()[0]:.1f}), with its own parameters"
            + (f" except {', '.join(f'{k} = {v!r}' for k, v in OVERRIDES.items())}"
               if where is not None else "") + " (`tools/docs_notebooks.py`).*")
    nb.cells.insert(1, nbformat.v4.new_markdown_cell(note))
    OUT.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, OUT / path.name)
    return seconds


def main(filters: list[str]) -> int:
    for path in sorted(SOURCES.glob("*.ipynb")):
        if filters and not any(f in path.name for f in filters):
            continue
        print(f"{path.name}: {render(path):.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
