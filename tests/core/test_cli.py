"""CLI: JSON schema, solver agreement, clear errors without tracebacks."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from sparsekm.cli.app import app

runner = CliRunner()
KEYS = ["problem", "method", "solver", "data", "m", "n", "params", "status", "termination",
        "sense", "objective", "lower_bound", "gap", "gap_tol", "selected", "selected_names",
        "time_s"]


def run_json(*args: str) -> dict:
    res = runner.invoke(app, [*args, "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_solvers_json_lists_open_source_backends_as_usable() -> None:
    rows = {r["name"]: r for r in run_json("solvers")}
    for name in ("highs", "scip", "clarabel", "scs", "ipopt"):
        r = rows[name]
        assert r["installed"] and r["licensed"] and r["version"], r
        assert set(r) >= {"name", "installed", "licensed", "version", "classes"}
    assert "SDP" in rows["clarabel"]["classes"] and "NLP" in rows["ipopt"]["classes"]
    assert "MIQP" not in rows["highs"]["classes"]


def test_datasets_json() -> None:
    rows = {r["name"]: r for r in run_json("datasets")}
    assert rows["breast_cancer_diagnostic"]["m"] == 569
    assert rows["breast_cancer_diagnostic"]["n"] == 30


def test_solve_svm_schema_and_two_solvers_agree() -> None:
    base = ["solve", "svm", "--data", "breast_cancer_diagnostic", "--rows", "120",
            "--kernel", "rbf", "--C", "10"]
    fast = run_json(*base)
    model = run_json(*base, "--solver", "clarabel")
    assert list(fast)[:len(KEYS)] == KEYS
    assert fast["m"] == 120 and fast["n"] == 30 and fast["selected"] is None
    assert fast["status"] == model["status"] == "optimal"
    assert fast["objective"] == pytest.approx(model["objective"], rel=1e-5)
    for out in (fast, model):  # certified: lower bound <= objective, tiny gap
        assert out["lower_bound"] <= out["objective"] + 1e-9 and out["gap"] < 1e-5


def test_solve_svm_linear_primal_with_highs_matches_fast_path() -> None:
    base = ["solve", "svm", "--data", "wine", "--kernel", "linear", "--C", "1"]
    fast, primal = run_json(*base), run_json(*base, "--solver", "highs")
    assert primal["method"] == "primal-qp"
    assert fast["objective"] == pytest.approx(primal["objective"], rel=1e-5)


@pytest.mark.parametrize(("args", "needle"), [
    (["--data", "nosuchdata"], "breast_cancer_diagnostic"),
    (["--solver", "cbc"], "unknown solver 'cbc'"),
    (["--scale", "zscore"], "--scale"),
    (["--kernel", "cosine"], "kernel"),
    (["--C", "-1"], "C"),
    (["--data", "/tmp/does-not-exist.csv"], "no such file"),
])
def test_bad_input_gives_message_and_nonzero_exit(args: list[str], needle: str) -> None:
    res = runner.invoke(app, ["solve", "svm", "--rows", "40", *args])
    assert res.exit_code != 0
    assert needle in res.output
    assert "Traceback" not in res.output
