"""Mistakes refused (issue 21): exit 2, one line naming the fix (the CLI's own flags), empty
stdout, no traceback; grids checked before their first run; defaults that serve (fs-linear with
B >= n is the plain SVM; check_estimator(CardinalityLinearSVC()) passes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
from cli_checks import refused, runner

from sparsekm.cli.app import app

CLI = [sys.executable, "-c", "from sparsekm.cli.app import main; main()"]


def run_cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONWARNINGS": "default"}
    return subprocess.run([*CLI, *args], capture_output=True, text=True, env=env,
                          timeout=timeout)


@pytest.mark.parametrize("args,needle", [
    (["solve", "smkl", "--rows", "40", "--solver", "gurobbi"], "--solver gurobbi: unknown"),
    (["solve", "sklr", "--rows", "40", "--solver", "gurobbi"], "--solver gurobbi: unknown"),
    (["relax", "smkl", "--rows", "40", "--solver", "highs"], "SOCP model; solvers that can"),
    (["solve", "sklr", "--rows", "40", "--lam", "-0.1"], "--lam"),
    (["solve", "smkl", "--rows", "40", "--starts", "0"], "--starts 0"),
    (["solve", "fs-kernel", "--rows", "40", "--B", "3", "--starts", "-2"], "--starts -2"),
    (["solve", "svm", "--rows", "40", "--label", "foo"], "--label foo"),
    (["solve", "fs-linear", "--data", "wholesale", "--B", "0"], "--B 0"),
    (["solve", "fs-linear", "--data", "wholesale", "--relax-solver", "nope"], "--relax-solver"),
    (["solve", "svm", "--rows", "40", "-o", "tol=1"], "No such option: -o"),
])
def test_mistakes_exit_2_with_one_line(args, needle) -> None:
    assert needle in refused(*args)


def test_estimator_refuses_an_unknown_solver() -> None:
    from sparsekm.estimators import SparseMKLClassifier

    X = np.random.default_rng(0).normal(size=(20, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    with pytest.raises(ValueError, match="solver='gurobbi': unknown solver"):
        SparseMKLClassifier(kernels="rbf:0.5,linear", solver="gurobbi").fit(X, y)


def test_csv_messages_name_the_cli_flags(tmp_path) -> None:
    path = tmp_path / "three.csv"
    path.write_text("a,b,label\n1,2,x\n2,1,y\n3,3,z\n4,1,x\n5,2,y\n6,3,z\n1,1,x\n2,2,y\n")
    assert "--positive-class" in refused("solve", "svm", "--data", str(path))
    out = runner.invoke(app, ["solve", "svm", "--data", str(path), "--positive-class", "x",
                              "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["m"] == 8
    gaps = tmp_path / "gaps.csv"
    gaps.write_text("a,b,label\n1,,1\n2,1,0\n3,3,1\n4,1,0\n")
    assert "--missing" in refused("solve", "svm", "--data", str(gaps))
    ok = runner.invoke(app, ["solve", "svm", "--data", str(gaps), "--missing", "drop", "--json"])
    assert ok.exit_code == 0 and json.loads(ok.stdout)["m"] == 3


def test_solve_svm_json_has_termination() -> None:
    out = runner.invoke(app, ["solve", "svm", "--rows", "60", "--json"])
    assert json.loads(out.stdout)["termination"] == "converged"


@pytest.mark.parametrize("solver,dataset", [("xpress", "ionosphere"), ("gurobi", "ionosphere"),
                                            ("cplex", "german")])
def test_size_limited_licence_gets_a_message(solver, dataset) -> None:
    """A model over a free licence's size limit: the limit, the model's size and the solvers
    that can take it, on one line; stdout empty (Xpress used to end in a traceback)."""
    from sparsekm.solvers import BACKENDS

    avail = BACKENDS[solver].availability()
    if not avail.usable or "limit" not in avail.note.lower() and "ommunity" not in avail.note:
        pytest.skip(f"{solver}: no size-limited licence here ({avail.note})")
    r = run_cli("relax", "fs-linear", "--data", dataset, "--B", "5", "--relaxation", "dscop",
                "--solver", solver, "--json")
    assert r.returncode == 2 and r.stdout == "", r.stderr
    assert "size limit" in r.stderr and "variables" in r.stderr and "clarabel" in r.stderr
    assert "Traceback" not in r.stderr


def test_no_xpress_deprecation_warning_on_solver_commands() -> None:
    """Xpress's DeprecationWarning (raised when Pyomo's or CVXPY's plugin imports xpress) and
    CVXPY's RuntimeWarnings are silenced by the CLI (PYTHONWARNINGS=default shows the rest)."""
    r = run_cli("solve", "fs-linear", "--data", "wine", "--B", "2", "--method", "local-search",
                "--json")
    assert r.returncode == 0, r.stderr
    assert "Deprecated in Xpress" not in r.stderr and "DeprecationWarning" not in r.stderr
    json.loads(r.stdout)


GRIDS = {
    "C2": ('problem = "minmax-fs"\ndata = ["wine"]\n[grid.params]\nC2 = [0.5, 2.0]',
           "grid.params.C2[1] = 2.0: give a finite number > 0 and < 1"),
    "kernels": ('problem = "smkl"\ndata = ["wine"]\n[grid.params]\n'
                'kernels = ["rbf:-1,linear"]', "rbf:-1"),
    "solver": ('problem = "smkl"\ndata = ["wine"]\n[grid.params]\nsolver = ["gurobbi"]',
               "solver = 'gurobbi': unknown solver"),
    "B": ('problem = "fs-linear"\ndata = ["wine"]\n[grid.params]\nB = [0]',
          "grid.params.B[0] = 0: give an integer >= 1"),
    "outer": ('problem = "minmax-fs"\ndata = ["wine"]\n[grid.params]\nouter_folds = [10]\n'
              'C2 = [2.0]', "grid.params.C2[0] = 2.0"),
}


def test_outer_folds_dry_run_stops_before_the_nested_cv(monkeypatch) -> None:
    """A grid's validation of paper E's protocol (``outer_folds``) builds the problem and stops
    before the nested CV (it ran the whole protocol once: 7 of paperE_table2_quick's 8
    minutes)."""
    import sparsekm.algorithms.minmax_fs.outer_folds as protocol
    from sparsekm.run import dry_run

    def ran(*args, **kwargs):
        raise AssertionError("the dry run ran the protocol")

    monkeypatch.setattr(protocol, "run_protocol", ran)
    t0 = time.perf_counter()
    dry_run("solve", "minmax-fs", {"data": "colorectal", "C2": 0.9, "outer_folds": 10,
                                   "method": "fast"})
    assert time.perf_counter() - t0 < 30


@pytest.mark.parametrize("case", sorted(GRIDS))
def test_grid_mistakes_fail_before_the_first_run(tmp_path, case) -> None:
    from sparsekm.experiments.config import ConfigError, check_runners, loads_config
    from sparsekm.experiments.execute import run_experiment

    grid, needle = GRIDS[case]
    cfg = loads_config(f'name = "bad"\nstore = "s.duckdb"\n[grid]\n{grid}\n',
                       base_dir=tmp_path)
    with pytest.raises(ConfigError) as err:
        cfg = check_runners(cfg)
        run_experiment(cfg, workers=0, progress=False)
    assert needle in str(err.value)
    assert not (tmp_path / "s.duckdb").exists()  # nothing ran, nothing stored


def test_unreachable_scheduler_fails_fast_without_traceback(tmp_path) -> None:
    cfg = tmp_path / "g.toml"
    cfg.write_text(textwrap.dedent("""
        name = "sched"
        store = "s.duckdb"
        [grid]
        problem = "svm"
        data = ["wine"]
    """))
    t0 = time.perf_counter()
    r = run_cli("bench", "run", str(cfg), "--scheduler", "tcp://127.0.0.1:9", timeout=120)
    took = time.perf_counter() - t0
    assert r.returncode == 2 and took < 60, (took, r.stderr)
    assert "Traceback" not in r.stderr and "--scheduler tcp://127.0.0.1:9" in r.stderr


def test_fs_linear_budget_at_least_n_is_the_plain_svm() -> None:
    """FS-SVM (2) says "at most B": with B >= n it is the SVM (1), certified, whatever the
    method; paper A's "exactly B" still refuses B > n."""
    out = json.loads(runner.invoke(app, ["solve", "fs-linear", "--data", "haberman", "--B", "5",
                                         "--C", "10", "--json"]).stdout)
    svm = json.loads(runner.invoke(app, ["solve", "svm", "--data", "haberman", "--kernel",
                                         "linear", "--C", "10", "--json"]).stdout)
    assert out["status"] == "optimal" and out["params"]["B"] == 5 and out["n"] == 3
    assert out["objective"] == pytest.approx(svm["objective"], rel=1e-6)
    assert out["lower_bound"] <= out["objective"] and out["gap"] < 1e-6
    assert "--B 5: at most n = 3" in refused("solve", "fs-kernel", "--data", "haberman",
                                             "--B", "5")


def test_check_estimator_passes_for_cardinality_linear_svc() -> None:
    from sklearn.utils.estimator_checks import check_estimator

    from sparsekm.estimators import CardinalityLinearSVC

    results = check_estimator(CardinalityLinearSVC(), on_fail=None)
    assert not [r["check_name"] for r in results if r["status"] == "failed"]
