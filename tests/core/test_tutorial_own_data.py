"""The own-data tutorial's commands, as written on the page, on a fresh CSV (and svmlight file)
with string labels that the tutorial's script did not write: each runs, records the label
mapping by the stated rule, and `bnb` certifies what it returns."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_blocks import ROOT, SHELL, blocks, commands  # noqa: E402

from sparsekm.cli.app import app  # noqa: E402

PAGE = ROOT / "docs" / "tutorials" / "own_data.md"


def _commands() -> list[str]:
    return [cmd for b in blocks(PAGE.read_text()) if b.lang in SHELL
            for cmd, _ in commands(b.code)]


@pytest.fixture
def fresh_files(tmp_path, monkeypatch):
    """tumours.csv / tumours.svm of new random data: 90 rows, 10 features, labels M and B in
    the CSV (M where a noisy linear rule is positive), 4 and 2 in the svmlight file."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(90, 10))
    label = X[:, 1] - 0.8 * X[:, 4] + 0.6 * X[:, 7] + 0.5 * rng.normal(size=90) > 0
    header = ",".join(f"f{j}" for j in range(10)) + ",diagnosis\n"
    rows = "".join(",".join(f"{v:.6f}" for v in x) + ("," + ("M" if lab else "B")) + "\n"
                   for x, lab in zip(X, label))
    (tmp_path / "tumours.csv").write_text(header + rows)
    (tmp_path / "tumours.svm").write_text("".join(
        f"{4 if lab else 2} " + " ".join(f"{j + 1}:{v:.6f}" for j, v in enumerate(x)) + "\n"
        for x, lab in zip(X, label)))
    monkeypatch.chdir(tmp_path)
    return label


def test_the_tutorial_commands_run_as_written_on_fresh_files(fresh_files) -> None:
    cmds = _commands()
    assert len(cmds) == 4, cmds   # fast, bnb, bnb with --positive-class, bnb on svmlight
    out = []
    for cmd in cmds:
        res = CliRunner().invoke(app, shlex.split(cmd)[1:])
        assert res.exit_code == 0, (cmd, res.output)
        out.append(json.loads(res.stdout))
    fast, bnb, flipped, svm = out
    # the rule: two classes, the larger (alphabetically: M over B; numerically: 4 over 2) is +1
    assert fast["labels"] == bnb["labels"] == {"M": 1, "B": -1}
    assert list(bnb["labels"]) == ["M", "B"]          # the +1 class first
    assert flipped["labels"] == {"B": 1, "M": -1}
    assert svm["labels"] == {"4": 1, "2": -1}
    for r in (bnb, flipped, svm):                      # certified within bnb's tolerance
        assert r["status"] == "optimal" and r["gap"] <= r["gap_tol"]
        assert len(r["selected"]) <= 3
    # bnb is never above fast, and the svmlight rows are the CSV's: the same optimum
    assert bnb["objective"] <= fast["objective"] * (1 + 1e-9)
    assert fast["lower_bound"] <= bnb["objective"] * (1 + 1e-9)
    assert svm["objective"] == pytest.approx(bnb["objective"], rel=1e-6)
    assert svm["selected"] == bnb["selected"]
