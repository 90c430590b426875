"""`bench plot --out` and `bench report -o/--output` are checked before any work: a file where
a folder is needed, a folder where a file is needed or a missing folder is one line on stderr
naming the flag as typed and the fix, exit 2, stdout empty."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from sparsekm.cli.app import app

CONFIG = """
name = "paths"
[grid]
problem = "svm"
data = ["wine"]
[grid.params]
kernel = ["linear"]
[run]
preload = []
"""


@pytest.fixture
def config(write_config, tmp_path):
    (tmp_path / "FILE").write_text("a regular file\n")
    (tmp_path / "folder").mkdir()
    return write_config(CONFIG)


CASES = [
    (["plot", "--out", "FILE/figs"], "--out FILE/figs: FILE is a file, not a folder"),
    (["plot", "--out", "FILE"], "--out FILE: is a file, not a folder"),
    (["plot", "--out", "missing/figs"], "--out missing/figs: folder missing does not exist"),
    (["report", "-o", "FILE/r.md"], "-o FILE/r.md: FILE is a file, not a folder"),
    (["report", "--output", "FILE/r.md"], "--output FILE/r.md: FILE is a file, not a folder"),
    (["report", "--output", "FILE/sub/r.md"], "--output FILE/sub/r.md: FILE is a file"),
    (["report", "-o", "folder"], "-o folder: is a folder; give a file name"),
    (["report", "-o", "missing/r.md"], "-o missing/r.md: folder missing does not exist"),
    (["report", "-o", "a.md", "--output", "b.md"], "-o a.md and --output b.md: give one"),
]


@pytest.mark.parametrize(("args", "expected"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_bad_output_paths_exit_2_with_one_line(config, tmp_path, monkeypatch, args,
                                               expected) -> None:
    monkeypatch.chdir(tmp_path)  # paths as a user types them, relative to here
    res = CliRunner().invoke(app, ["bench", args[0], str(config), *args[1:]])
    assert res.exit_code == 2, res.output
    assert res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("error: " + expected), lines[0]
    assert not (tmp_path / "results.duckdb").exists()  # refused before any work


def test_a_folder_as_config_is_refused(tmp_path) -> None:
    res = CliRunner().invoke(app, ["bench", "status", str(tmp_path)])
    assert res.exit_code == 2 and res.stdout == ""
    assert "is a folder; give the experiment's TOML config file" in res.stderr


def test_plot_into_a_file_from_python_is_one_line(config, tmp_path) -> None:
    from sparsekm.experiments import load_config
    from sparsekm.experiments.plots import plot

    with pytest.raises(ValueError, match="FILE is a file, not a folder"):
        plot(load_config(config), tmp_path / "FILE" / "figs")
