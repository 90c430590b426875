"""A grid killed with kill -9 mid-run resumes: every configuration ends up in the store exactly
once, and no run stored before the kill runs again."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from sparsekm.experiments import Store, load_config, run_experiment

GRID = """
name = "resume"
store = "resume.duckdb"
[grid]
problem = "probe"
data = ["wine"]
seed = [0, 1, 2, 3]
[grid.params]
C = [1.0, 2.0, 3.0]
sleep = [0.3]
log = ["LOG"]
[run]
imports = ["PLUGIN"]
preload = []  # SVM only: no Pyomo / CVXPY in the forkserver
"""


def _stored(store: Store) -> set[str]:
    return set(store.statuses()) if store.exists() else set()


def test_kill_9_mid_grid_then_resume(write_config, tmp_path: Path) -> None:
    log = tmp_path / "runs.log"
    path = write_config(GRID.replace("LOG", str(log)))
    cfg = load_config(path)
    store = Store(cfg.store_path, retry_s=10)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    cmd = [sys.executable, "-c", "from sparsekm.cli.app import main; main()", "bench", "run",
           str(path), "--workers", "0", "--quiet"]
    proc = subprocess.Popen(cmd, env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        t0 = time.monotonic()
        while len(_stored(store)) < 4 and proc.poll() is None and time.monotonic() - t0 < 120:
            time.sleep(0.1)
        os.kill(proc.pid, signal.SIGKILL)  # the driver dies mid-grid, mid-run
        proc.wait(10)
    finally:
        # its forkserver and in-flight run die with it (parent-death signal); make sure
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    before = _stored(store)
    assert 4 <= len(before) < 12, "the kill must land mid-grid"
    lines_before = log.read_text().splitlines()

    out = run_experiment(cfg, workers=0, progress=False)
    assert out["ran"] == 12 - len(before)
    assert (out["total"], out["done"], out["failed"], out["pending"]) == (12, 12, 0, 0)
    with store.connect() as con:
        per_key = con.execute("SELECT key, count(*) FROM runs GROUP BY key").fetchall()
    assert len(per_key) == 12 and all(n == 1 for _, n in per_key)
    # the runs finished after the restart are exactly the ones not stored before the kill
    after = Counter(log.read_text().splitlines()[len(lines_before):])
    df = Store(cfg.store_path).load()
    labels = {r.key: f"{r.seed} {json.loads(r.config)['params']['C']}" for r in df.itertuples()}
    assert set(after) == {labels[k] for k in set(labels) - before}
    assert all(n == 1 for n in after.values())
