"""Runs that fail, overshoot or crash are stored with their status and the grid goes on;
status counts, resume, reports and plots read the store."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from sparsekm.cli.app import app
from sparsekm.experiments import Store, load_config, report, run_experiment, status
from sparsekm.experiments.plots import plot, profile_ratios
from sparsekm.experiments.tables import report_frame, runs_frame

FAILING = """
name = "failing"
store = "failing.duckdb"
[grid]
problem = "probe"
data = ["wine"]
seed = [0]
[grid.params]
fail = ["none", "raise", "crash"]
sleep = [0.0, 30.0]
test_size = [0.3]
[run]
imports = ["PLUGIN"]
preload = []  # SVM only: no Pyomo / CVXPY in the forkserver
time_limit = 1.0
grace = 0.5
"""


def test_failures_are_stored_and_the_grid_goes_on(write_config) -> None:
    cfg = load_config(write_config(FAILING))
    out = run_experiment(cfg, workers=0, progress=False)
    # 6 runs: 1 solved, 1 raised, 1 crashed, 3 slept past the hard limit 1 + 0.5 s
    assert out == {**out, "total": 6, "done": 1, "failed": 5, "pending": 0, "ran": 6}
    df = runs_frame(cfg).set_index(["fail", "sleep"])
    assert df.loc[("none", 0.0), "status"] == "optimal"
    assert df.loc[("raise", 0.0), "status"] == "error"
    assert df.loc[("raise", 0.0), "message"] == "ValueError: boom (C = 1.0)"
    assert df.loc[("crash", 0.0), "status"] == "crashed"
    assert "exit code -9" in df.loc[("crash", 0.0), "message"]
    for fail in ("none", "raise", "crash"):
        row = df.loc[(fail, 30.0)]
        assert row["status"] == "timeout" and "killed after 1.5 s" in row["message"]
        assert 1.5 <= row["wall_s"] < 4.0  # killed at the hard limit, not after 30 s
    # the solved run is the SVM the CLI solves (same runner): primal = dual within 1e-5
    assert df.loc[("none", 0.0), "gap"] < 1e-5
    assert status(cfg) == {"total": 6, "done": 1, "failed": 5, "pending": 0}

    # running again does nothing; --retry-failed reruns exactly the 5 failures
    assert run_experiment(cfg, workers=0, progress=False)["ran"] == 0
    # (retry only the quick ones: drop the sleepers from the grid for speed)
    quick = load_config(write_config(FAILING.replace("sleep = [0.0, 30.0]", "sleep = [0.0]"),
                                     "quick.toml"))
    again = run_experiment(quick, workers=0, progress=False, retry_failed=True)
    assert again["ran"] == 2 and again["failed"] == 2
    assert len(Store(cfg.store_path).load()) == 6  # replaced, not duplicated


def test_status_json_report_csv_and_plots(write_config, tmp_path) -> None:
    text = """
    name = "tiny"
    [grid]
    problem = "svm"
    data = ["wine", "iris"]
    seed = [0, 1]
    [grid.params]
    C = [1.0, 10.0]
    kernel = ["linear"]
    test_size = [0.3]
    [run]
    preload = []
    [report]
    """
    path = write_config(text)
    cli = CliRunner()
    res = cli.invoke(app, ["bench", "status", str(path), "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout) == {
        "total": 8, "done": 0, "failed": 0, "pending": 8}
    res = cli.invoke(app, ["bench", "run", str(path), "--workers", "0", "--quiet", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["done"] == 8
    res = cli.invoke(app, ["bench", "status", str(path), "--json"])
    assert json.loads(res.stdout) == {"total": 8, "done": 8, "failed": 0, "pending": 0}

    cfg = load_config(path)
    rows = list(csv.DictReader(io.StringIO(report(cfg, "csv"))))
    assert len(rows) == 8
    assert list(rows[0])[:14] == ["problem", "action", "data", "method", "seed", "C", "kernel",
                                  "test_size", "status", "objective", "lower_bound",
                                  "upper_bound", "gap", "time_s"]
    assert {(r["data"], r["seed"], r["C"]) for r in rows} == {
        (d, s, c) for d in ("wine", "iris") for s in ("0", "1") for c in ("1.0", "10.0")}
    # the stored objective is the CLI's: `sparsekm solve svm` with the same options
    res = cli.invoke(app, ["solve", "svm", "--data", "iris", "--seed", "1", "--kernel",
                           "linear", "--C", "10", "--test-size", "0.3", "--json"])
    direct = json.loads(res.stdout)["objective"]
    mine = [float(r["objective"]) for r in rows
            if (r["data"], r["seed"], r["C"]) == ("iris", "1", "10.0")]
    assert mine == [pytest.approx(direct, rel=1e-12)]

    # paper-shaped table: one row per (data, C), best over the 2 seeds
    tab = report_frame(cfg)
    assert list(tab.index) == [("wine", 1.0), ("wine", 10.0), ("iris", 1.0), ("iris", 10.0)]
    best = min(float(r["objective"]) for r in rows if (r["data"], r["C"]) == ("iris", "10.0"))
    assert tab.loc[("iris", 10.0), ("svm", "objective")] == pytest.approx(best)
    md = report(cfg, "markdown")
    assert "| data | C | svm obj | svm gap % | svm time s |" in md
    tex = report(cfg, "latex")
    assert r"\multicolumn{3}{c}{svm}" in tex and tex.count(r"\\") == 2 + 4

    # published values beside the measured ones ([report] reference)
    (tmp_path / "ref.csv").write_text("data,C,svm:objective\niris,10.0,4.5\n")
    with_ref = load_config(write_config(text + 'reference = "ref.csv"\n', "ref.toml"))
    tab = report_frame(with_ref)
    assert tab.loc[("iris", 10.0), ("svm", "objective [paper]")] == 4.5
    assert tab[("svm", "objective [paper]")].isna().sum() == 3
    assert "svm obj [paper]" in report(with_ref, "markdown")

    # one series, two seeds, every gap closed: only the report's values are worth a chart
    # (no box of two points, no profile or objective dots of a single series, no gap plot)
    files = plot(cfg, tmp_path / "figs")
    assert {f.name for f in files} == {"tiny_values.png", "tiny_values.svg"}
    assert all(f.stat().st_size > 1000 for f in files)


def test_performance_profile_ratios() -> None:
    import pandas as pd

    inf = float("inf")
    df = pd.DataFrame({
        "data": ["a", "a", "b", "b", "c", "c"], "method": ["x", "y"] * 3,
        "status": ["optimal", "feasible", "optimal", "timeout", "error", "pending"],
        "objective": [2.0, 3.0, -4.0, None, None, None],
        "time_s": [1.0, 2.0, 1.0, 9.0, 3.0, None]})
    r = profile_ratios(df, "objective", "min")
    # instance c, solved by neither, counts with ratio infinity for both (Dolan and More)
    assert list(r["x"]) == [1.0, 1.0, inf] and list(r["y"]) == [1.5, inf, inf]
    t = profile_ratios(df, "time_s")
    assert list(t["x"]) == [1.0, 1.0, inf] and list(t["y"]) == [inf] * 3  # y never optimal


PROFILED = """
name = "profiled"
store = "profiled.duckdb"
[grid]
problem = "probe"
data = DATA
[grid.params]
fail = ["none", "raise"]
C = [1.0, 10.0]
test_size = [0.3]
[run]
imports = ["PLUGIN"]
preload = []
[report]
columns = ["C"]
plots = ["profile"]
"""


def test_a_profile_counts_every_instance_of_its_config(write_config, tmp_path) -> None:
    """The grid has 4 instances (data x fail) and 2 series (C): runs stored for wine only,
    where fail = raise fails for both series; the profile still counts all 4, and says that
    3 were solved by no series (iris is not run yet)."""
    from sparsekm.experiments.plot_profile import draw_profile
    from sparsekm.experiments.plots import grid_frame

    ran = load_config(write_config(PROFILED.replace("DATA", '["wine"]'), "ran.toml"))
    assert run_experiment(ran, workers=0, progress=False)["done"] == 2
    cfg = load_config(write_config(PROFILED.replace("DATA", '["wine", "iris"]')))
    assert status(cfg) == {"total": 8, "done": 2, "failed": 2, "pending": 4}
    df = grid_frame(cfg)
    assert len(df) == 8 and (df["status"] == "pending").sum() == 4
    ratios = profile_ratios(df, "objective", "min")
    assert {k: len(v) for k, v in ratios.items()} == {"1.0": 4, "10.0": 4}
    assert sum(np.isinf(ratios["1.0"]) & np.isinf(ratios["10.0"])) == 3
    fig = draw_profile(df, cfg)
    assert "(4 instances, 3 solved by none)" in fig.axes[0].get_title().replace("\n", " ")
    files = plot(cfg, tmp_path / "figs")
    assert {f.name for f in files} == {"profiled_profile.png", "profiled_profile.svg"}
