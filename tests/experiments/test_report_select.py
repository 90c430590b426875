"""``[report] select``: the paper's model selection (per seed, the run with the best validation
accuracy over a grid of hyperparameters) and payload values (``support_fraction``) in reports;
``train_rows`` (a stratified sample of N training rows) and the reference CSV's comments."""

from __future__ import annotations

import csv
import io

import pytest

from sparsekm.experiments import load_config, report, run_experiment
from sparsekm.experiments.plots import plot
from sparsekm.experiments.tables import report_frame

GRID = """
name = "select"
[grid]
problem = "svm"
data = ["wine"]
seed = [0, 1]
[grid.params]
C = [0.001, 1.0, 100.0]
kernel = ["rbf"]
gamma = [0.02]
test_size = [0.3]
validation_size = [0.25]
[run]
preload = []
[report]
rows = ["data"]
values = ["test_accuracy", "support_fraction"]
select = ["validation_accuracy", "-validation_loss"]
agg = "mean"
reference = "ref.csv"
"""


def test_select_picks_the_best_validation_run_per_seed(write_config, tmp_path) -> None:
    (tmp_path / "ref.csv").write_text("# Paper Z, Table 9 (a test)\n# more notes\n"
                                      "data,svm:test_accuracy\nwine,0.5\n")
    cfg = load_config(write_config(GRID))
    assert run_experiment(cfg, workers=0, progress=False)["failed"] == 0
    runs = list(csv.DictReader(io.StringIO(report(cfg, "csv"))))
    assert len(runs) == 6 and all(r["validation_accuracy"] for r in runs)
    assert len({r["support_fraction"] for r in runs}) > 2  # the means below can tell runs apart
    chosen = []
    for seed in ("0", "1"):  # by hand: max validation accuracy, then min validation loss
        mine = [r for r in runs if r["seed"] == seed]
        chosen.append(min(mine, key=lambda r: (-float(r["validation_accuracy"]),
                                               float(r["validation_loss"]))))
    tab = report_frame(cfg)
    assert tab.loc["wine", ("svm", "test_accuracy")] == pytest.approx(
        sum(float(r["test_accuracy"]) for r in chosen) / 2)
    assert tab.loc["wine", ("svm", "support_fraction")] == pytest.approx(
        sum(float(r["support_fraction"]) for r in chosen) / 2)
    assert tab.loc["wine", ("svm", "test_accuracy [paper]")] == 0.5
    md = report(cfg, "markdown")
    assert "svm test acc [paper]" in md and "[paper]: Paper Z, Table 9 (a test)." in md
    assert "per seed the run with the best validation_accuracy" in md
    # without select, agg = mean averages a payload value over every run of the row
    every = load_config(write_config(GRID.replace('select = ["validation_accuracy", '
                                                  '"-validation_loss"]', ""), "all.toml"))
    assert every.store_path == cfg.store_path  # the same runs
    assert report_frame(every).loc["wine", ("svm", "support_fraction")] == pytest.approx(
        sum(float(r["support_fraction"]) for r in runs) / 6)
    files = plot(cfg, tmp_path / "figs", kinds=["values"])
    assert [f.suffix for f in files] == [".png", ".svg"]


def test_an_unknown_payload_value_is_refused(write_config) -> None:
    from sparsekm.experiments.config import ConfigError

    cfg = load_config(write_config(GRID.replace('"support_fraction"', '"suport_fraction"')
                                   .replace('reference = "ref.csv"\n', "")))
    run_experiment(cfg, workers=0, progress=False)
    with pytest.raises(ConfigError, match="suport_fraction"):
        report_frame(cfg)


def test_train_rows_is_a_stratified_sample_of_that_many_rows() -> None:
    from sparsekm.declare import ParamError
    from sparsekm.run.data import prepare
    from sparsekm.run.options import RunOptions

    split = prepare(RunOptions(data="sonar", train_rows=10, seed=3))
    assert split.train.m == 10 and split.test.m == 208 - 10
    assert set(split.train.y) == {-1.0, 1.0}  # sonar's first 100 rows are one class
    with pytest.raises(ParamError, match="give one"):
        prepare(RunOptions(data="sonar", train_rows=10, test_size=0.2))
    with pytest.raises(ParamError, match="train_rows=208: give 2 to 207"):
        prepare(RunOptions(data="sonar", train_rows=208))


SERIES = """
name = "series"
[[grid]]
problem = "svm"
series = "small C"
data = ["wine"]
seed = [0, 1]
[grid.params]
C = [0.001]
kernel = ["rbf"]
gamma = [0.02]
test_size = [0.3]
validation_size = [0.25]
[[grid]]
problem = "svm"
series = "tuned"
data = ["wine"]
seed = [0, 1]
[grid.params]
C = [0.001, 1.0, 100.0]
kernel = ["rbf"]
gamma = [0.02]
test_size = [0.3]
validation_size = [0.25]
[run]
preload = []
[report]
rows = ["data"]
values = ["test_accuracy"]
select = ["validation_accuracy", "-validation_loss"]
agg = "mean"
"""


def test_grids_name_series_and_share_their_runs(write_config) -> None:
    """A run in two grids is stored once and counted in both grids' series (paper C's Table 3:
    KLR-2ord is S-KLR's lambda = 0 runs)."""
    cfg = load_config(write_config(SERIES))
    summary = run_experiment(cfg, workers=0, progress=False)
    assert summary["failed"] == 0 and summary["total"] == 6  # C = 0.001 runs once per seed
    runs = list(csv.DictReader(io.StringIO(report(cfg, "csv"))))
    tab = report_frame(cfg)
    assert len(runs) == 8 and {r["series"] for r in runs} == {"small C", "tuned"}  # per view
    small = [float(r["test_accuracy"]) for r in runs if r["series"] == "small C"]
    assert len(small) == 2
    assert tab.loc["wine", ("small C", "test_accuracy")] == pytest.approx(sum(small) / 2)
    chosen = []
    for seed in ("0", "1"):
        mine = [r for r in runs if r["seed"] == seed and r["series"] == "tuned"]
        chosen.append(min(mine, key=lambda r: (-float(r["validation_accuracy"]),
                                               float(r["validation_loss"]))))
    assert tab.loc["wine", ("tuned", "test_accuracy")] == pytest.approx(
        sum(float(r["test_accuracy"]) for r in chosen) / 2)
