"""The tour notebook runs and its numbers agree (three solvers, masked vs rebuilt kernel)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

NB = Path(__file__).resolve().parents[2] / "notebooks" / "01_tour.ipynb"


def test_tour_notebook_runs_and_agrees() -> None:
    ns: dict = {}
    for cell in json.loads(NB.read_text())["cells"]:
        if cell["cell_type"] == "code":
            exec("".join(cell["source"]), ns)  # noqa: S102 - our own notebook
    fast, r1, r2 = ns["fast"], ns["r1"], ns["r2"]
    assert r1.objective == pytest.approx(fast.objective, rel=1e-5)
    assert r2.objective == pytest.approx(fast.objective, rel=1e-5)
    mk = ns["mk"]
    assert list(mk.selected) == [0, 7, 12]
