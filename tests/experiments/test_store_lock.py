"""One `bench run` per store: a second one on a store in use refuses at once with one line
(exit 2) and runs nothing, while `bench status` and `bench report` still read the store."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sparsekm.cli.app import app
from sparsekm.experiments import Store, load_config, run_experiment
from sparsekm.experiments.store import StoreBusyError

GRID = """
name = "locked"
store = "locked.duckdb"
[grid]
problem = "probe"
data = ["wine"]
seed = [0, 1, 2]
[grid.params]
C = [1.0, 2.0]
sleep = [SLEEP]
log = ["LOG"]
[run]
imports = ["PLUGIN"]
preload = []  # SVM only: no Pyomo / CVXPY in the forkserver
"""

HOLD = """
import fcntl, os, socket, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
fcntl.flock(fd, fcntl.LOCK_EX)
os.write(fd, f"{os.getpid()} {socket.gethostname()}\\n".encode())
print("held", flush=True)
time.sleep(120)
"""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}


def _bench(*args: str) -> list[str]:
    return [sys.executable, "-c", "from sparsekm.cli.app import main; main()", "bench", *args]


@contextlib.contextmanager
def _held(lock_path: Path):
    """Another process holding the store's lock (as a running `bench run` does)."""
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(lock_path)],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        yield proc
    finally:
        proc.kill()
        proc.wait(10)


def test_a_second_run_on_a_held_store_refuses_in_one_line(write_config, tmp_path) -> None:
    log = tmp_path / "runs.log"
    path = write_config(GRID.replace("LOG", str(log)).replace("SLEEP", "0.0"))
    cfg = load_config(path)
    store = Store(cfg.store_path)
    cli = CliRunner()
    with _held(store.lock_path) as holder:
        res = cli.invoke(app, ["bench", "run", str(path), "--workers", "0", "--quiet"])
        assert res.exit_code == 2, res.output
        assert res.stdout == ""
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1, res.stderr
        assert "is in use by another `bench run`" in lines[0]
        assert f"(pid {holder.pid})" in lines[0] and "locked.duckdb" in lines[0]
        assert not log.exists() and not store.exists()  # nothing ran, nothing stored
        with pytest.raises(StoreBusyError):  # the Python API refuses the same way
            run_experiment(cfg, workers=0, progress=False)
    # the holder is killed (the kernel drops its lock, its file stays): the grid runs, each
    # point once, and the lock file goes with the run
    assert store.lock_path.exists()
    out = run_experiment(cfg, workers=0, progress=False)
    assert out["ran"] == 6 and out["done"] == 6
    assert not store.lock_path.exists()
    assert Counter(log.read_text().splitlines()).most_common(1)[0][1] == 1

    # status and report read the store while a run holds it
    with store.lock():
        res = cli.invoke(app, ["bench", "status", str(path), "--json"])
        assert res.exit_code == 0 and '"done": 6' in res.stdout
        res = cli.invoke(app, ["bench", "report", str(path), "--format", "csv"])
        assert res.exit_code == 0 and len(res.stdout.strip().splitlines()) == 7
        with pytest.raises(StoreBusyError, match="in use"):
            run_experiment(cfg, workers=0, progress=False)
    assert run_experiment(cfg, workers=0, progress=False)["ran"] == 0


def test_two_runs_at_once_run_each_point_once(write_config, tmp_path) -> None:
    """Two `bench run` of one config started together: one runs the grid, the other refuses
    at once (exit 2, one line naming the first's pid); every grid point ran exactly once."""
    log = tmp_path / "runs.log"
    path = write_config(GRID.replace("LOG", str(log)).replace("SLEEP", "0.2"))
    cfg = load_config(path)
    cmd = _bench("run", str(path), "--workers", "0", "--quiet")
    procs = [subprocess.Popen(cmd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    try:
        outs = [p.communicate(timeout=240) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    codes = sorted(p.returncode for p in procs)
    assert codes == [0, 2], outs
    ran, refused = (0, 1) if procs[0].returncode == 0 else (1, 0)
    out, err = outs[refused]
    assert out == "" and len(err.strip().splitlines()) == 1, err
    assert f"in use by another `bench run` (pid {procs[ran].pid})" in err
    runs = Counter(log.read_text().splitlines())
    assert len(runs) == 6 and set(runs.values()) == {1}
    with Store(cfg.store_path).connect() as con:
        assert con.execute("SELECT count(*) FROM runs").fetchone()[0] == 6


def test_a_store_path_through_a_file_is_refused(write_config, tmp_path) -> None:
    (tmp_path / "afile").write_text("x")
    path = write_config(GRID.replace('store = "locked.duckdb"', 'store = "afile/s.duckdb"')
                        .replace("LOG", "").replace("SLEEP", "0.0"))
    res = CliRunner().invoke(app, ["bench", "run", str(path), "--workers", "0", "--quiet"])
    assert res.exit_code == 2 and res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "afile is a file, not a folder" in lines[0], res.stderr
