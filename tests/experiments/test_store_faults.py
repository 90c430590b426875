"""Stores and run logs under faults: a record is complete or absent, nothing is lost.

* A torn run log (a member cut short, foreign bytes at its end) is read up to its intact
  records with one warning line, set aside on the next run, and the store and log reconciled
  (it crashed ``bench run/status/report`` with "Error -3 while decompressing").
* A full disk (a write raising ENOSPC) leaves the log whole and stops the run with one line;
  a store write that failed keeps the run in the log, a log write that failed keeps it in the
  store, and the next run puts both in step (a fresh clone ran the point again).
* A read-only store, a text or CSV file, another program's DuckDB: one line naming the file,
  what is wrong and the fix, exit 2; the file is not changed.
"""

from __future__ import annotations

import errno
import gzip
import os
import subprocess
import sys
import textwrap
import warnings

import pytest

from sparsekm.experiments import records
from sparsekm.experiments.config import check_runners, loads_config
from sparsekm.experiments.execute import run_experiment, status
from sparsekm.experiments.store import Store, StoreError

CLI = [sys.executable, "-c", "from sparsekm.cli.app import main; main()"]
GRID = """
    name = "faults"
    store = "s.duckdb"
    [grid]
    problem = "svm"
    data = ["wine"]
    seed = [0, 1]
    [grid.params]
    C = [1.0]
    test_size = [0.3]
"""


def _cfg(tmp_path):
    (tmp_path / "grid.toml").write_text(textwrap.dedent(GRID))
    return check_runners(loads_config(textwrap.dedent(GRID), base_dir=tmp_path))


def _bench(tmp_path, *args):
    return subprocess.run([*CLI, "bench", *args, str(tmp_path / "grid.toml")],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)


def _rows(keys):
    return [{"key": k, "status": "optimal", "objective": float(i)} for i, k in enumerate(keys)]


def _one_line_error(run) -> str:
    assert run.returncode == 2 and run.stdout == "" and "Traceback" not in run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), run.stderr
    return lines[0]


def test_append_is_atomic_under_a_full_disk(tmp_path, monkeypatch):
    """A write raising ENOSPC mid-append: LogError in one line, the log byte for byte as it
    was, no temporary file left."""
    log = tmp_path / "s.records.jsonl.gz"
    records.append(log, _rows(["a", "b"]))
    before = log.read_bytes()

    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(records.os, "write", full)
    with pytest.raises(records.LogError, match="No space left on device"):
        records.append(log, _rows(["c"]))
    assert log.read_bytes() == before and os.listdir(tmp_path) == [log.name]
    assert sorted(r["key"] for r in records.read(log)) == ["a", "b"]


@pytest.mark.parametrize("damage", ["cut", "garbage"])
def test_a_torn_log_is_read_set_aside_and_repaired(tmp_path, damage):
    """Three appends, the last one torn (cut in the middle) or followed by foreign bytes: the
    intact records are read with one warning; repair sets the file aside (not overwritten)
    and keeps them; a later append is readable again (before, every later record was lost)."""
    log = tmp_path / "s.records.jsonl.gz"
    for keys in (["a"], ["b"], ["c"]):
        records.append(log, _rows(keys))
    data = log.read_bytes()
    torn = data[:-9] if damage == "cut" else data + b"not gzip at all\n"
    log.write_bytes(torn)
    with pytest.warns(records.LogWarning, match="run log"):
        got = sorted(r["key"] for r in records.read(log))
    assert got == (["a", "b"] if damage == "cut" else ["a", "b", "c"])
    with pytest.warns(records.LogWarning, match="set aside as"):
        records.append(log, _rows(["d"]))
    aside = [p for p in tmp_path.iterdir() if ".damaged-" in p.name]
    assert len(aside) == 1 and aside[0].read_bytes() == torn
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # repaired: no warning any more
        assert sorted(r["key"] for r in records.read(log)) == sorted({*got, "d"})


def test_failed_store_write_is_kept_in_the_log_and_restored(tmp_path, monkeypatch):
    """The store's insert fails (a full disk): one-line StoreError, the rows in the log; the
    next run's reconcile inserts them and runs nothing again."""
    cfg = _cfg(tmp_path)
    store = Store(tmp_path / "s.duckdb")
    real = Store._insert
    calls = []

    def failing(self, rows):
        calls.append(len(rows))
        if len(calls) == 2:                       # the second run's insert
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, rows)

    monkeypatch.setattr(Store, "_insert", failing)
    with pytest.raises(StoreError, match="kept in its log") as err:
        run_experiment(cfg, workers=0, progress=False)
    assert "\n" not in str(err.value)
    monkeypatch.setattr(Store, "_insert", real)
    assert len(list(records.read(store.records_path))) == 2
    again = run_experiment(cfg, workers=0, progress=False)
    assert again["ran"] == 0 and again["done"] == 2


def test_failed_log_write_is_written_on_the_next_run(tmp_path, monkeypatch):
    """The log's append fails after the store took the rows: one-line StoreError; the next
    run writes the missing records, so a fresh clone (the log alone) runs nothing again."""
    cfg = _cfg(tmp_path)
    real = records.append

    def full(path, rows):
        raise records.LogError(f"run log {path}: cannot write it (No space left on device)")

    monkeypatch.setattr(records, "append", full)
    with pytest.raises(StoreError, match="not yet in its log"):
        run_experiment(cfg, workers=0, progress=False)
    monkeypatch.setattr(records, "append", real)
    store = Store(tmp_path / "s.duckdb")
    run_experiment(cfg, workers=0, progress=False)       # reconciles, then runs the other
    assert len(list(records.read(store.records_path))) == 2
    (tmp_path / "s.duckdb").unlink()                     # a fresh clone: the log alone
    assert status(cfg)["done"] == 2
    assert run_experiment(cfg, workers=0, progress=False)["ran"] == 0


def test_cli_torn_log_then_bench_status_report_run(tmp_path):
    """Subprocess: a torn committed log with no store file; status and report read the intact
    records (one warning line), run sets the log aside and completes the grid."""
    cfg = _cfg(tmp_path)
    run_experiment(cfg, workers=0, progress=False)
    (tmp_path / "s.duckdb").unlink()
    log = tmp_path / "s.records.jsonl.gz"
    log.write_bytes(log.read_bytes()[:-7])
    st = _bench(tmp_path, "status")
    assert st.returncode == 0 and "Traceback" not in st.stderr
    assert st.stderr.count("warning: run log") == 1
    rep = _bench(tmp_path, "report")
    assert rep.returncode == 0 and "Traceback" not in rep.stderr
    run = _bench(tmp_path, "run", "--workers", "0", "--quiet")
    assert run.returncode == 0 and "set aside as" in run.stderr
    assert "done 2" in run.stdout and any(".damaged-" in p.name for p in tmp_path.iterdir())


@pytest.mark.parametrize("kind", ["text", "csv", "foreign", "no-status", "read-only"])
def test_cli_unusable_store_is_one_line_and_left_alone(tmp_path, kind):
    """bench run / status on a store file that is not a results store: one line naming the
    file and the fix, exit 2, the file byte for byte unchanged."""
    import duckdb

    path = tmp_path / "s.duckdb"
    _cfg(tmp_path)
    if kind == "text":
        path.write_text("these are my notes\n")
    elif kind == "csv":
        path.write_text("a,b\n1,2\n")
    else:
        con = duckdb.connect(str(path))
        con.execute({"foreign": "CREATE TABLE things (x INT)",
                     "no-status": "CREATE TABLE runs (key VARCHAR, x INT)",
                     "read-only": "CREATE TABLE runs (key VARCHAR, status VARCHAR, "
                                  "payload VARCHAR)"}[kind])
        con.close()
    if kind == "read-only":
        path.chmod(0o444)
    before = path.read_bytes()
    for action in (["run", "--workers", "0", "--quiet"], ["status"]):
        run = _bench(tmp_path, *action)
        if kind == "read-only" and action[0] == "status":
            assert run.returncode == 0        # reading a read-only store is fine
            continue
        line = _one_line_error(run)
        assert "s.duckdb" in line and ("config" in line or "chmod" in line)
        assert path.read_bytes() == before
    expected = {"text": "not a DuckDB database", "csv": "not a DuckDB database",
                "foreign": "another program", "no-status": "without the column(s) status",
                "read-only": "read-only"}[kind]
    assert expected in _one_line_error(_bench(tmp_path, "run", "--workers", "0", "--quiet"))


def test_a_store_gzip_log_of_an_older_writer_still_reads(tmp_path):
    """Logs written before (gzip.open in append mode: one member per call) read as before."""
    log = tmp_path / "s.records.jsonl.gz"
    for keys in (["a"], ["b"]):
        with gzip.open(log, "at", encoding="utf-8") as fh:
            fh.write(f'{{"key": "{keys[0]}", "status": "optimal"}}\n')
    assert sorted(r["key"] for r in records.read(log)) == ["a", "b"]
