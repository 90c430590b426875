"""Inputs tried as a new user would: messages in the front door's words, writes kept in place,
sparse files kept at the size of their entries.

* A message names the parameter the way the user's front door does: ``--positive-class`` on
  the CLI, ``positive_class='p'`` in Python (it said "pass positive_class=<one class> (CLI:
  --positive-class CLASS)" to both); scikit-learn's own text ("... or stratify=False") no
  longer leaks through a split that cannot be made.
* ``export --out /dev/null`` wrote ``/dev/null.json``: a write path that exists and is not a
  regular file is refused.
* A 200-row svmlight file naming feature index 1,349,942 became a 2 GB dense matrix (7 GB
  with its copies, 90 s under a 10 s limit): indices no row uses are left out.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sparsekm.data import DataError, load_csv, load_svmlight
from sparsekm.data import files as data_files

CLI = [sys.executable, "-c", "from sparsekm.cli.app import main; main()"]
THREE = "a,b,c,label\n1,2,x,p\n2,1,y,q\n3,3,z,r\n4,1,x,p\n5,2,y,q\n6,3,z,r\n1,1,x,p\n2,2,y,q\n"


def _cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout)


def _refused(run: subprocess.CompletedProcess) -> str:
    assert run.returncode == 2 and run.stdout == "" and "Traceback" not in run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    return lines[0]


@pytest.fixture
def three(tmp_path: Path) -> Path:
    path = tmp_path / "three.csv"
    path.write_text(THREE)
    return path


def test_cli_messages_name_flags(three: Path):
    line = _refused(_cli("solve", "svm", "--data", str(three)))
    assert "--drop-columns c" in line and "drop_columns" not in line
    line = _refused(_cli("solve", "svm", "--data", str(three), "--drop-columns", "c"))
    assert "--positive-class CLASS" in line and "positive_class" not in line
    line = _refused(_cli("solve", "svm", "--data", str(three), "--drop-columns", "c",
                         "--positive-class", "p", "--test-size", "0.9"))
    assert line.startswith("error: --test-size 0.9: cannot split 8 rows")
    assert "stratify" not in line and "test_size" not in line and "fraction between" in line
    line = _refused(_cli("solve", "svm", "--data", str(three), "--drop-columns", "nope"))
    assert line.startswith("error: --drop-columns nope: not found")


def test_python_messages_name_parameters(three: Path):
    with pytest.raises(DataError, match=r"drop_columns=\['c'\]") as err:
        load_csv(three)
    assert "--" not in str(err.value)
    with pytest.raises(DataError, match=r"positive_class='p'") as err:
        load_csv(three, drop_columns=["c"])
    assert "--" not in str(err.value) and "CLI" not in str(err.value)


def test_a_write_path_that_is_a_device_is_refused():
    line = _refused(_cli("export", "fs-linear", "--form", "bigm", "--data", "wholesale",
                         "--B", "3", "--format", "lp", "--out", "/dev/null"))
    assert line.startswith("error: --out /dev/null: is in /dev, a system folder")
    assert not Path("/dev/null.json").exists()


def _wide(path: Path, rows: int = 200, top: int = 1_349_942) -> None:
    """Labels +-1; feature 7 carries the class, five random sparse features per row, and one
    row names the index ``top``."""
    rng = np.random.default_rng(0)
    with path.open("w") as fh:
        for i in range(rows):
            y = 1 if i % 2 else -1
            feats = {int(j): rng.normal() for j in rng.choice(top - 1, 5, replace=False) + 1}
            feats[7] = y + 0.3 * rng.normal()
            if i == 0:
                feats[top] = 1.0
            fh.write(f"{y} " + " ".join(f"{j}:{v:.4f}" for j, v in sorted(feats.items()))
                     + "\n")


def test_svmlight_memory_follows_the_entries(tmp_path: Path):
    """Only the indices that occur become columns, named by their index; a warning says how
    many were left out."""
    path = tmp_path / "wide.svm"
    _wide(path)
    with pytest.warns(data_files.DataWarning, match="have no entry in any row"):
        ds = load_svmlight(path)
    assert ds.n <= 200 * 6 and "x7" in ds.feature_names and "x1349942" in ds.feature_names
    col = ds.feature_names.index("x7")
    assert np.corrcoef(ds.X[:, col], ds.y)[0, 1] > 0.9      # the values stay with their name


def test_svmlight_too_large_dense_is_refused_naming_its_size(tmp_path: Path, monkeypatch):
    path = tmp_path / "wide.svm"
    _wide(path, rows=50)
    monkeypatch.setattr(data_files, "DENSE_MAX_BYTES", 1000)
    with pytest.raises(DataError, match=r"needs 0\.0 GB") as err, pytest.warns(
            data_files.DataWarning):
        load_svmlight(path)
    assert "keep fewer features" in str(err.value)


def test_cli_wide_svmlight_keeps_its_limit(tmp_path: Path):
    path = tmp_path / "wide.svm"
    _wide(path)
    run = _cli("solve", "fs-linear", "--data", str(path), "--B", "3", "--method", "fast",
               "--time-limit", "10", "--json")
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["time_s"] <= 10.0 and "x7" in out["selected_names"]
    assert run.stderr.count("warning:") == 1
