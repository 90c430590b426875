"""Every notebook runs, cell by cell, and its numbers agree.

The tour checks three solvers and the masked kernel; the experiment notebooks (the template and
one per paper) run their grid with the small parameters below, in this process, and end with
their own checks (weak duality, a certified optimum is the best); a new notebook is picked up
by the glob and runs with ``WORKERS = 0`` unless it is listed here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
SMALL = {  # parameters of the test run, per notebook
    "02_experiments_template.ipynb": {"DATA": ["wine"], "SEEDS": [0, 1]},
    "03_paper_D_fs_linear.ipynb": {"DATA": ["wine"], "B": [2], "ROWS": 80, "TIME_LIMIT": 60},
    "04_paper_A_fs_kernel.ipynb": {"DATA": ["wholesale"], "KERNELS": ["poly"], "STARTS": 2,
                                   "SAMPLES": 20, "ROWS": 120},
    "05_paper_C_sklr.ipynb": {"DATA": ["wine"], "C": [1.0], "ROWS": 100},
    "06_paper_B_smkl.ipynb": {"DATA": ["wine"], "ROWS": 100, "TIME_LIMIT": 60},
    "07_paper_E_minmax_fs.ipynb": {"DATA": ["wine"], "ROWS": 100, "C2": [0.5]},
}
EXPERIMENTS = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb") if p.name != "01_tour.ipynb")


def run_notebook(path: Path, params: dict | None = None) -> dict:
    """Execute the code cells of ``path`` in one namespace; ``params`` override the values of
    the cell tagged ``parameters`` (as papermill does)."""
    ns: dict = {}
    for cell in json.loads(path.read_text())["cells"]:
        if cell["cell_type"] != "code":
            continue
        exec("".join(cell["source"]), ns)  # noqa: S102 - our own notebooks
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            ns.update(params or {})
    return ns


def test_tour_notebook_runs_and_agrees() -> None:
    ns = run_notebook(NOTEBOOKS / "01_tour.ipynb")
    fast, r1, r2 = ns["fast"], ns["r1"], ns["r2"]
    assert r1.objective == pytest.approx(fast.objective, rel=1e-5)
    assert r2.objective == pytest.approx(fast.objective, rel=1e-5)
    mk = ns["mk"]
    assert list(mk.selected) == [0, 7, 12]


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_experiment_notebook_runs_its_grid_and_checks(name: str, tmp_path: Path) -> None:
    params = {"WORKERS": 0, "STORE_DIR": str(tmp_path), **SMALL.get(name, {})}
    ns = run_notebook(NOTEBOOKS / name, params)
    counts = ns["counts"]
    assert counts["total"] > 0 and counts["done"] == counts["total"], counts
    assert ns["checked"] >= counts["total"] // 2  # its own checks ran on the results
    assert any(f.suffix == ".svg" for f in ns["files"])
    assert "|---|" in ns["report"](ns["cfg"], "markdown")
