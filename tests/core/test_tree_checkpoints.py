"""Checkpoints of the tree search that cannot be used are refused in one line: one held by
another live search (an advisory lock on ``PATH.lock``), an empty, truncated or foreign file.
A stale lock of a dead process is taken over."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from sparsekm import registry
from sparsekm.algorithms.tree import CheckpointError, checkpoint, lock
from sparsekm.declare import ParamError
from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.solvers import SolverPlan


def _problem() -> FSLinearProblem:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 8))
    y = np.where(X[:, :3] @ np.array([1.0, -0.7, 0.5]) + 0.5 * rng.normal(size=30) >= 0,
                 1.0, -1.0)
    return FSLinearProblem(X, y, B=3, C=1.0)


def _solve(path: Path | str):
    return registry.get("fs-linear", "method", "bnb")(_problem(), SolverPlan(),
                                                      root_search="none", checkpoint=str(path))


def _one_line(err: CheckpointError, path: Path | str) -> str:
    text = str(err)
    assert text.startswith(str(path)) and "\n" not in text
    assert "pickle" not in text and "Traceback" not in text
    return text


HOLDER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1] + ".lock", os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
os.write(fd, f"{os.getpid()}\\n".encode())
print("locked", flush=True)
time.sleep(120)
"""


def test_checkpoint_held_by_a_live_process_is_refused_and_a_dead_ones_taken_over(tmp_path):
    """Another process holds the lock: refused in one line naming its pid; once it is killed
    (-9: its lock file stays), the search takes the lock over, runs, and removes the file."""
    path = tmp_path / "run.ckpt"
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(HOLDER), str(path)],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "locked"
        with pytest.raises(CheckpointError) as err:
            _solve(path)
        text = _one_line(err.value, path)
        assert f"is in use by another search (pid {child.pid}); wait for it or use another " \
               "--checkpoint path" in text
        assert not path.exists()                 # nothing written while refused
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    assert Path(f"{path}.lock").exists()         # stale: its owner is dead
    res = _solve(path)
    assert res.status.value == "optimal" and path.exists()
    assert not Path(f"{path}.lock").exists()     # released on exit


def test_checkpoint_held_in_this_process_is_refused(tmp_path):
    """A second search on the same path in the same process (another file descriptor) is
    refused too; after the first releases it, the path is free."""
    path = str(tmp_path / "run.ckpt")
    with lock.hold(path), pytest.raises(CheckpointError, match=rf"pid {os.getpid()}\)"):
        _solve(path)
    assert _solve(path).status.value == "optimal"


def test_unusable_files_are_refused_in_one_line_saying_which(tmp_path):
    good = tmp_path / "good.ckpt"
    _solve(good)
    data = good.read_bytes()
    meta, groups, arrays = checkpoint.load(good)
    cases = {
        "empty.ckpt": (b"", "is empty"),
        "truncated.ckpt": (data[: len(data) // 2], "is corrupt (truncated"),
        "cut.ckpt": (data[:40], "is corrupt ("),
        "data.csv": (b"sepal,width,label\n1.0,2.0,1\n", "is not a sparsekm checkpoint (a text "
                     "file starting 'sepal,width,label')"),
        "notes.txt": ("résumé of the run\n".encode(), "is not a sparsekm checkpoint (a text "
                      "file"),
        "binary.bin": (bytes(range(256)), "is not a sparsekm checkpoint (binary data"),
    }
    for name, (content, words) in cases.items():
        path = tmp_path / name
        path.write_bytes(content)
        with pytest.raises(CheckpointError) as err:
            _solve(path)
        assert words in _one_line(err.value, path), (name, str(err.value))
        assert path.read_bytes() == content                   # never overwritten
    npy = tmp_path / "array.npy"
    np.save(npy, np.arange(3))
    other = tmp_path / "other.npz"
    np.savez(other, a=np.arange(3))
    objects = tmp_path / "objects.npz"
    np.savez(objects, **{"meta.json": np.array([{"format": checkpoint.FORMAT}], object)})
    newer = tmp_path / "newer.ckpt"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(checkpoint, "FORMAT", "sparsekm-tree-checkpoint/9")
        checkpoint.save(newer, {k: v for k, v in meta.items() if k != "format"}, groups,
                        arrays)
    damaged = tmp_path / "damaged.ckpt"        # a byte changed inside: its CRC says so
    damaged.write_bytes(data.replace(b'"root_done"', b'"root_dune"'))
    for path, words in ((npy, "is not a sparsekm checkpoint (a .npy array)"),
                        (other, "is not a sparsekm checkpoint (a zip archive without its "
                                "meta.json)"),
                        (objects, "is not a sparsekm checkpoint"),
                        (newer, "is a checkpoint of another sparsekm version (format "
                                "sparsekm-tree-checkpoint/9"),
                        (damaged, "is corrupt (damaged: Bad CRC-32")):
        with pytest.raises(CheckpointError) as err:
            checkpoint.load(path)
        assert words in _one_line(err.value, path), str(err.value)
    folder = tmp_path / "folder"
    folder.mkdir()
    with pytest.raises(ParamError, match="is a folder"):   # the declaration checks the path
        _solve(folder)
    with pytest.raises(ParamError, match="does not exist"):
        _solve(tmp_path / "missing" / "run.ckpt")
    assert json.loads(json.dumps(meta["params"]))["B"] == 3      # plain JSON parameters
