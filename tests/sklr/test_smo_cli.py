"""CLI: the native kernel-dual solvers, ``sparsekm solve svm --solver smo|libsvm``."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from sparsekm.cli.app import app

runner = CliRunner()


def run_json(*args: str) -> dict | list:
    res = runner.invoke(app, [*args, "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_solvers_lists_the_native_kernel_dual_solvers():
    rows = {r["name"]: r for r in run_json("solvers")}
    for name in ("smo", "libsvm"):
        r = rows[name]
        assert r["installed"] and r["usable"] and r["version"]
        assert r["classes"] == ["kernel-dual"] and r["note"].startswith("native:")
    assert "logistic" in rows["smo"]["note"] and "warm" in rows["smo"]["note"]


@pytest.mark.parametrize("C", ["1", "100"])
def test_solve_svm_smo_and_libsvm_agree_and_time_the_solve_alone(C):
    args = ["solve", "svm", "--data", "twonorm", "--rows", "600", "--C", C]
    smo = run_json(*args, "--solver", "smo")
    lib = run_json(*args, "--solver", "libsvm")
    default = run_json(*args)
    assert (smo["method"], smo["solver"]) == ("smo-dual", "sparsekm-smo") == (
        default["method"], default["solver"])   # the engine by default: it keeps a limit
    assert (lib["method"], lib["solver"]) == ("libsvm-dual", "libsvm")
    for out in (smo, lib):
        assert out["status"] == "optimal"
        assert 0.0 < out["solve_s"] <= out["time_s"] and out["load_s"] >= 0.0
    # the dual values (lower bounds) agree; libsvm's primal is looser (float32 kernel cache:
    # its gap stalls near 1e-5 at C = 100, the engine's is ~1e-7 at the same tol 1e-6)
    assert smo["lower_bound"] == pytest.approx(lib["lower_bound"], rel=1e-8)
    assert smo["objective"] == pytest.approx(lib["objective"], rel=1e-4)


def test_solve_svm_returns_the_trivial_point_when_the_limit_ends_the_kernel(monkeypatch):
    """A limit that runs out before the kernel matrix: the incumbent alpha = 0 with b the
    majority's sign (primal 2 C min(m+, m-), by hand) and the dual value 0 as its bound;
    feasible, exit 0. Before, the run was an error with exit 1."""
    import numpy as np

    from sparsekm.models.svm import SVMProblem
    from sparsekm.run import svm
    from sparsekm.solvers.plan import Deadline

    monkeypatch.setattr(svm, "KERNEL_BLOCK", 5)
    rng = np.random.default_rng(0)
    y = np.array([1.0] * 7 + [-1.0] * 13)
    p = SVMProblem(rng.normal(size=(20, 3)), y, C=3.0)
    out = svm.solve_svm(p, None, Deadline(1e-9), 1e-6)
    assert (out["status"], out["termination"]) == ("feasible", "time_limit")
    assert out["b"] == -1.0 and out["objective"] == 2 * 3.0 * 7
    assert out["bound"] == 0.0 and out["gap"] == 1.0 and not out["alpha"].any()
    monkeypatch.setattr(svm, "KERNEL_BLOCK", 50)
    cli = run_json("solve", "svm", "--data", "twonorm", "--rows", "600", "--C", "3",
                   "--time-limit", "1e-9")
    assert (cli["status"], cli["termination"], cli["n_support"]) == ("feasible", "time_limit", 0)
    assert cli["lower_bound"] == 0.0 and cli["objective"] > 0
