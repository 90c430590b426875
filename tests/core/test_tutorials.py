"""What the tutorials rely on beyond their commands running (tests/core/test_docs_commands.py):
the compare tutorial's grid is the committed config whose report and figures it shows, and
`sparsekm check` reads the JSON that `sparsekm solve --json` printed, as the certify tutorial
does."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_blocks import ROOT, blocks  # noqa: E402

from sparsekm.cli.app import app  # noqa: E402

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib


def _titled(page: str, title: str) -> str:
    found = [b.code for b in blocks((ROOT / page).read_text()) if b.title == title]
    assert len(found) == 1, (page, title)
    return found[0]


def test_the_compare_tutorial_shows_the_run_of_its_own_grid() -> None:
    shown = tomllib.loads(_titled("docs/tutorials/compare.md", "compare.toml"))
    committed = tomllib.loads((ROOT / "benchmarks/configs/tutorial_compare.toml").read_text())
    for key in ("grid", "run", "report"):
        assert shown[key] == committed[key], key
    assert (ROOT / "benchmarks/results/tutorial-compare.md").exists()
    assert (ROOT / "benchmarks/results/stores/tutorial-compare.records.jsonl.gz").exists()


def test_check_reads_the_json_a_bnb_solve_printed(tmp_path, monkeypatch) -> None:
    """A bnb payload carries extra keys (nodes, node_time, labels, params): check takes its
    point (selected, w_selected, b) and finds the same support and value."""
    monkeypatch.chdir(tmp_path)
    flags = ["--data", "wholesale", "--rows", "120", "--B", "2", "--C", "1"]
    res = CliRunner().invoke(app, ["solve", "fs-linear", *flags, "--method", "bnb", "--json"])
    assert res.exit_code == 0, res.output
    solved = json.loads(res.stdout)
    assert solved["status"] == "optimal" and isinstance(solved.get("node_time"), dict)
    (tmp_path / "bnb.json").write_text(res.stdout)
    res = CliRunner().invoke(app, ["check", "fs-linear", "bnb.json", *flags, "--json"])
    assert res.exit_code == 0, res.output
    checked = json.loads(res.stdout)
    assert checked["feasible"] and checked["support"] == solved["selected"]
    assert checked["support_objective"] == pytest.approx(solved["objective"], rel=1e-7)
