"""The tree-search engine (papers A, B and D): one vs two workers, kill -9 + resume, refused
checkpoints, plain-data checkpoints, Dask; every certified optimum against enumeration."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from sparsekm import registry
from sparsekm.algorithms.tree import CheckpointError, checkpoint
from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.parallel import Executor
from sparsekm.solvers import SolverPlan

INSTANCES = """
import numpy as np
from sparsekm.models.fs_kernel import FSKernelProblem
from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.models.smkl.problem import SMKLProblem

def fs_linear():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 8))
    y = np.where(X[:, :3] @ np.array([1.0, -0.7, 0.5]) + 0.5 * rng.normal(size=30) >= 0,
                 1.0, -1.0)
    return FSLinearProblem(X, y, B=3, C=1.0)

def fs_kernel():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(50, 14))
    f = X[:, 0] ** 2 + X[:, 1] - 0.8 * X[:, 2] * X[:, 3] + 0.3 * rng.normal(size=50)
    y = np.where(f > np.median(f), 1.0, -1.0)
    return FSKernelProblem(X, y, B=5, C=10.0, kernel="poly", sense="margin", degree=2)

def smkl():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] * X[:, 1] + 0.5 * X[:, 2] + 0.3 * rng.normal(size=40) > 0, 1.0, -1.0)
    return SMKLProblem(X, y, "linear,poly:0.5:1:2,rbf:0.2,rbf:1,laplacian:0.5,laplacian:0.1",
                       3, 1.0, 0.02)

# fs-linear branches on the fractional rule here: strong branching (the default with the
# active-set node bound) closes this tiny tree in 5 nodes, too few to kill it mid-search
OPTIONS = {"fs-linear": {"root_search": "none", "branching": "fractional"},
           "fs-kernel": {"n_samples": 20, "leaf_masks": 16},
           "smkl": {"starts": 1, "node_abr_iter": 0}}
METHOD = {"fs-linear": "bnb", "fs-kernel": "bnb", "smkl": "exact"}
"""
ns: dict = {}
exec(INSTANCES, ns)    # the same instances in this process and in the child that is killed
PROBLEMS = {"fs-linear": ns["fs_linear"], "fs-kernel": ns["fs_kernel"], "smkl": ns["smkl"]}
OPTIONS, METHOD = ns["OPTIONS"], ns["METHOD"]
MODULE = {"fs-linear": ("sparsekm.algorithms.fs_linear.bnb", "LinearTree"),
          "fs-kernel": ("sparsekm.algorithms.fs_kernel.bnb", "KernelTree"),
          "smkl": ("sparsekm.algorithms.smkl.exact", "SMKLTree")}


def _enumerated(name: str) -> float:
    """The optimum by exhaustive enumeration (an independent route)."""
    p = PROBLEMS[name]()
    if name == "fs-kernel":
        from sparsekm.algorithms.fs_kernel.enumerate import enumerate_masks

        return enumerate_masks(p, SolverPlan(), workers=1).objective
    return registry.get(name, "method", "enumerate")(p, SolverPlan()).objective


def _solve(name: str, plan: SolverPlan | None = None, **kw):
    return registry.get(name, "method", METHOD[name])(PROBLEMS[name](), plan or SolverPlan(),
                                                      **OPTIONS[name], **kw)


def _same_optimum(name: str, res, opt: float) -> None:
    assert res.status.value == "optimal", res.status
    rel = 2e-4 if name == "smkl" else 1e-6
    assert res.objective == pytest.approx(opt, rel=rel)
    tol = 1e-6 * abs(opt)
    assert res.bound <= opt + tol if res.sense == "min" else res.bound >= opt - tol


@pytest.fixture(scope="module")
def two_workers():
    """Two local worker processes, spawned once for the module's parallel tests."""
    ex = Executor(workers=2)
    with ex.session() as pool:
        t0 = time.monotonic()           # they start in the background: wait, so that the
        while pool.starting:            # tests below run their nodes on them
            assert time.monotonic() - t0 < 120, "the workers never started"
            pool.wait(1.0)
        assert pool.ready_slots() == [0, 1]
        yield ex


@pytest.mark.parametrize("name", ["fs-linear", "fs-kernel", "smkl"])
def test_one_and_two_workers_certify_the_enumerated_optimum(name, two_workers):
    """Same certified optimum as enumeration on 1 and 2 workers; with the same batch size
    the two runs are the same run (same nodes, same incumbent)."""
    opt = _enumerated(name)
    one = _solve(name, batch=2)
    two = _solve(name, SolverPlan(executor=two_workers), batch=2)
    for res in (one, two):
        _same_optimum(name, res, opt)
    assert one.extra["workers"] == 1 and two.extra["workers"] == 2
    assert one.extra["nodes"] == two.extra["nodes"] >= 2
    assert one.selected == two.selected and one.objective == two.objective
    assert one.bound == two.bound
    serial = _solve(name)                      # batch 1: the classic serial best-first order
    _same_optimum(name, serial, opt)
    assert serial.extra["batch"] == 1 and serial.extra["open_nodes"] == 0


def test_parallel_time_limit_returns_incumbent_and_valid_bound(two_workers):
    """Nodes abandoned at the limit go back to the open set: the bound stays certified."""
    opt = _enumerated("fs-linear")
    res = _solve("fs-linear", SolverPlan(time_limit=0.3, executor=two_workers))
    # the enumeration's optima come from a QP solver: equal to ~1e-12, so 1e-9 either way
    assert res.has_solution and res.bound <= opt * (1 + 1e-9)
    assert opt * (1 - 1e-9) <= res.objective


CHILD = """
import sys, time
{instances}
import dataclasses, importlib
import sparsekm.algorithms.tree.engine as engine
mod = importlib.import_module("{module}")
run = engine.run
engine.run = lambda tree, plan, opts: run(tree, plan,
                                          dataclasses.replace(opts, checkpoint_every=0.02))
cls = getattr(mod, "{cls}")
process = cls.process
def slow(self, *args):
    time.sleep(0.5)             # slow nodes, so the kill lands mid-search
    return process(self, *args)
cls.process = slow
from sparsekm import registry
from sparsekm.solvers import SolverPlan
registry.get("{name}", "method", METHOD["{name}"]).run(
    {name_fn}(), SolverPlan(), checkpoint=sys.argv[1], **OPTIONS["{name}"])
"""


def _nodes_saved(path: Path) -> int:
    try:
        meta, _, _ = checkpoint.load(path)
    except (CheckpointError, FileNotFoundError):
        return 0
    return int(meta["nodes_total"])


def _kill_after_two_nodes(code: str, path: Path, watch: Path) -> None:
    """Run ``code`` (a search checkpointing to ``path``) in a child process and SIGKILL it
    once the checkpoint ``watch`` holds two bounded nodes."""
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), str(path)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        t0 = time.monotonic()
        while _nodes_saved(watch) < 2:
            assert child.poll() is None, child.stderr.read().decode()[-2000:]
            assert time.monotonic() - t0 < 240, "the child never checkpointed 2 nodes"
            time.sleep(0.02)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == -signal.SIGKILL


@pytest.mark.parametrize("name", ["fs-linear", "fs-kernel", "smkl"])
def test_kill_9_then_resume_certifies_the_enumerated_optimum(name, tmp_path):
    """A search killed with SIGKILL after a few nodes resumes from its checkpoint (root phase
    not redone, the nodes done before counted) and certifies the enumerated optimum."""
    path = tmp_path / f"{name}.ckpt"
    module, cls = MODULE[name]
    code = CHILD.format(instances=INSTANCES, module=module, cls=cls, name=name,
                        name_fn=name.replace("-", "_"))
    _kill_after_two_nodes(code, path, path)
    before = _nodes_saved(path)
    meta, groups, _ = checkpoint.load(path)
    assert meta["fingerprint"] and len(groups["nodes"]) > 0      # killed with open nodes
    res = _solve(name, checkpoint=str(path))
    _same_optimum(name, res, _enumerated(name))
    assert res.extra["resumed"] and res.extra["root_s"] is None   # root phase not redone
    assert res.extra["nodes_total"] == before + res.extra["nodes"]
    again = _solve(name, checkpoint=str(path))                      # finished: nothing to do
    assert again.extra["nodes"] == 0 and again.objective == res.objective
    with np.load(path, allow_pickle=False) as z:                    # plain arrays only
        assert all(z[k].dtype != object for k in z.files)


def test_kill_9_in_the_root_phase_resumes_its_stages(tmp_path):
    """fs-linear's root phase (relaxation, top-B incumbent, the local-bnb sub-search) is
    checkpointed stage by stage: killed inside the sub-search, the rerun keeps the finished
    stages, resumes the sub-search from its own checkpoint, and certifies the optimum."""
    path = tmp_path / "root.ckpt"
    module, cls = MODULE["fs-linear"]
    code = CHILD.format(instances=INSTANCES, module=module, cls=cls, name="fs-linear",
                        name_fn="fs_linear").replace('**OPTIONS["fs-linear"]',
                                                     'root_search="local-bnb", k=2')
    sub = Path(f"{path}.local-bnb")
    _kill_after_two_nodes(code, path, sub)
    meta, _, _ = checkpoint.load(path)
    assert not meta["root_done"] and meta["stages"] == ["node-bound context", "relaxation", "top-B"]
    res = registry.get("fs-linear", "method", "bnb").run(PROBLEMS["fs-linear"](), SolverPlan(),
                                                         root_search="local-bnb", k=2,
                                                         checkpoint=str(path))
    _same_optimum("fs-linear", res, _enumerated("fs-linear"))
    assert res.extra["resumed"] and not sub.exists()


def test_checkpoint_of_other_data_or_parameters_is_refused(tmp_path):
    """The checkpoint's meta keeps the tree's parameters: a run with others is refused with
    the ones that differ (one line, starting with the path); other data with the arrays."""
    path = str(tmp_path / "run.ckpt")
    p = PROBLEMS["fs-linear"]()
    solve = registry.get("fs-linear", "method", "bnb")
    first = solve(p, SolverPlan(), root_search="none", checkpoint=path)
    assert first.status.value == "optimal"
    meta, _, _ = checkpoint.load(path)
    assert meta["params"]["B"] == 3 and set(meta["arrays"]) == {"X", "y"}
    cases = [(FSLinearProblem(p.X, p.y, B=2, C=1.0), {},
              "was written for B = 3; this run has B = 2"),
             (FSLinearProblem(p.X, p.y, B=2, C=2.0), {},
              "was written for B = 3, C = 1; this run has B = 2, C = 2"),
             (p, {"gap_tol": 1e-3}, "was written for gap_tol = 0.0001; this run has "
              "gap_tol = 0.001"),
             (FSLinearProblem(2 * p.X, p.y, B=3, C=1.0), {},
              "was written for other data (X differs: another data set, split or scaling)")]
    for problem, options, words in cases:
        with pytest.raises(CheckpointError) as err:
            solve(problem, SolverPlan(), root_search="none", checkpoint=path, **options)
        text = str(err.value)
        assert text.startswith(f"{path} {words}") and "--checkpoint" in text
        assert "\n" not in text and err.value.path == path
    Path(path).write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match="is not a sparsekm checkpoint"):
        solve(p, SolverPlan(), root_search="none", checkpoint=path)


def test_checkpoint_round_trip(tmp_path):
    """Ragged records with None, 0-d and bool fields come back equal, without pickle."""
    recs = [{"a": np.arange(3, dtype=np.int32), "k": np.int64(2), "m": np.array([True, False]),
             "x": None},
            {"a": np.zeros(0, np.int32), "k": np.int64(5), "m": np.array([False]),
             "x": np.array([1.5, 2.5], np.float32)}]
    path = tmp_path / "c.npz"
    checkpoint.save(path, {"fingerprint": "f", "ub": 1.0}, {"nodes": recs},
                    {"nodes_bound": np.array([0.5, 0.7])})
    meta, groups, arrays = checkpoint.load(path)
    assert meta["ub"] == 1.0 and arrays["nodes_bound"].tolist() == [0.5, 0.7]
    for a, b in zip(recs, groups["nodes"]):
        for key in a:
            if a[key] is None:
                assert b[key] is None
            else:
                assert np.array_equal(a[key], b[key]) and np.asarray(a[key]).dtype == b[key].dtype
    assert groups["nodes"][0]["k"].shape == ()


def test_progress_line_on_stderr(capsys):
    _solve("fs-linear", SolverPlan(verbose=True))
    line = [s for s in capsys.readouterr().err.splitlines() if "nodes/s" in s][-1]
    for word in ("nodes", "open", "LB", "UB", "gap", "workers 1"):
        assert word in line


def test_dask_workers_certify_the_same_optimum():
    """The same search on a 2-worker Dask cluster (tasks pinned to workers, problem sent to
    each once) gives the serial run's certificate."""
    from dask.distributed import Client, LocalCluster

    serial = _solve("smkl", batch=2)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        res = _solve("smkl", scheduler=client, batch=2)
    assert res.extra["workers"] == 2 and res.status.value == "optimal"
    # the same tree, bound, support and value, to the bit (the in-process workers share the
    # problem: each thread combines its kernels in its own buffer)
    assert res.bound == serial.bound and res.extra["nodes"] == serial.extra["nodes"]
    assert sorted(res.selected) == sorted(serial.selected)
    assert res.objective == serial.objective
    assert math.isfinite(res.bound)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from sparsekm.cli.app import main; main()",
                           *args], capture_output=True, text=True, timeout=600)


def test_cli_workers_and_checkpoint(tmp_path):
    """`solve fs-linear --method bnb --workers 2 --checkpoint PATH --json` (a real process):
    one JSON object with nodes / open_nodes / workers and the node solver; the same command
    resumes (nothing left: 0 nodes); another problem on that path, or --workers on a method
    without a tree, exits 2 with one line on stderr and nothing on stdout."""
    from typer.testing import CliRunner

    from sparsekm.cli.app import app

    path = str(tmp_path / "cli.ckpt")
    base = ["solve", "fs-linear", "--data", "wine", "--rows", "80", "--json"]
    r = _cli(*base, "--B", "2", "--method", "bnb", "--workers", "2", "--checkpoint", path)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["status"] == "optimal" and out["solver"] == "sparsekm node-active-set"
    assert isinstance(out["nodes"], int) and out["nodes"] >= 1
    assert out["open_nodes"] == 0 and out["workers"] == 2
    runner = CliRunner()
    again = runner.invoke(app, [*base, "--B", "2", "--method", "bnb", "--checkpoint", path])
    assert again.exit_code == 0, again.output
    again = json.loads(again.stdout)
    assert again["nodes"] == 0 and again["resumed"] and again["objective"] == out["objective"]
    for args, words in ((["--B", "3", "--method", "bnb", "--checkpoint", path],
                         "was written for B = 2; this run has B = 3"),
                        (["--B", "2", "--method", "kernel-search", "--workers", "2"],
                         "--workers 2: method kernel-search takes no workers; methods that "
                         "do: bnb")):
        bad = runner.invoke(app, [*base, *args])
        assert bad.exit_code == 2 and bad.stdout == "" and words in bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1


def test_estimators_take_workers_and_checkpoint(tmp_path):
    from sparsekm.estimators import CardinalityLinearSVC, SparseMKLClassifier

    p = PROBLEMS["fs-linear"]()
    est = CardinalityLinearSVC(B=3, C=1.0, method="bnb", checkpoint=str(tmp_path / "e.ckpt"))
    est.fit(p.X, p.y)
    assert est.result_.extra["nodes"] >= 1 and (tmp_path / "e.ckpt").exists()
    assert est.objective_ == pytest.approx(_enumerated("fs-linear"), rel=1e-6)
    # an estimator ignores a method option its method does not take (scikit-learn's way:
    # a grid over methods must work); the CLI refuses it (above)
    CardinalityLinearSVC(B=3, method="local-search", workers=2).fit(p.X, p.y)
    SparseMKLClassifier(kernels="rbf:0.5,linear", method="abr",
                        checkpoint=str(tmp_path / "x.ckpt")).fit(p.X, p.y)
    assert not (tmp_path / "x.ckpt").exists()


def test_smkl_leaves_send_only_new_cuts_to_the_shared_log(monkeypatch):
    """Paper B's exact search: every entry a task sends to the shared log is new (a leaf's
    cutting planes start from the pool's 10 best cuts, which were sent back each time), and
    the search still certifies."""
    from sparsekm.algorithms.smkl import exact

    sent: list[bytes] = []
    original = exact._Pool.new_entries

    def spy(self):
        out = original(self)
        sent.extend(e["alpha"].tobytes() + np.asarray(e["d"]).tobytes() for e in out)
        return out

    monkeypatch.setattr(exact._Pool, "new_entries", spy)
    res = _solve("smkl")
    assert res.status.value == "optimal" and res.extra["leaves_solved"] > 0
    assert len(sent) == len(set(sent)) > 0
