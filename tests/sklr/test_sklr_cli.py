"""``sparsekm solve sklr``: JSON contract, smo2 == smo1 == conic, clear errors."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from sparsekm.cli.app import app

runner = CliRunner()
BASE = ["solve", "sklr", "--data", "breast_cancer_diagnostic", "--rows", "150", "--C", "10",
        "--lam", "2", "--test-size", "0.3", "--json"]
SMO = ["--tol", "1e-8", "--max-iter", "-1"]   # SMO's own flags: conic takes neither


def run_json(*args: str) -> dict:
    res = runner.invoke(app, [*args])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_solve_sklr_json_and_three_methods_agree():
    out = {m: run_json(*BASE, "--method", m, *(SMO if m != "conic" else []))
           for m in ("smo2", "smo1", "conic")}
    for m, o in out.items():
        assert o["problem"] == "sklr" and o["method"] == m and o["status"] == "optimal"
        assert o["objective"] == pytest.approx(out["conic"]["objective"], rel=1e-6)
        assert o["lower_bound"] <= o["objective"] + 1e-9
        assert 0 < o["support_fraction"] <= 1 and o["m"] == 150
        assert o["train_accuracy"] > 0.9 and 0 < o["test_log_loss"] < 1
        assert o["rho"] == pytest.approx(2.0, abs=1e-4)  # Observation 1
        assert o["params"]["gamma"] == 0.5 and o["params"]["scale"] == "minmax01"
    assert out["smo2"]["iterations"] < out["smo1"]["iterations"]


@pytest.mark.parametrize(("args", "needle"), [
    (["--method", "newton"], "conic, smo1, smo2"),
    (["--C", "-1"], "--C -1: give a finite number >= 1e-08"),
    (["--kernel", "cosine"], "--kernel cosine: choose one of linear, poly, rbf"),
    (["--method", "conic", "--tol", "1e-8"], "--tol 1e-8: method conic takes no tol"),
])
def test_user_errors_are_one_line(args, needle):
    res = runner.invoke(app, ["solve", "sklr", "--rows", "60", *args])
    assert res.exit_code == 2 and needle in res.output and "Traceback" not in res.output
