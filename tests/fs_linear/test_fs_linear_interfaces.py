"""Paper D interfaces: the scikit-learn estimator and the `fs-linear` CLI commands."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from fs_linear_instances import enum_opt, get, real_instance
from typer.testing import CliRunner

from sparsekm.estimators.fs_linear import CardinalityLinearSVC


def test_estimator_dataframe_names_and_optimum() -> None:
    X, y, names = real_instance("wholesale")
    df = pd.DataFrame(X, columns=names)
    labels = np.where(y > 0, "pos", "neg")
    est = CardinalityLinearSVC(B=3, C=1.0, method="exact", rho=3, s=2).fit(df, labels)
    opt, S, _ = enum_opt("wholesale", 3, 1.0)
    assert math.isclose(est.objective_, opt, rel_tol=1e-5)
    assert est.get_support(indices=True).tolist() == list(S)
    assert est.selected_features() == [names[j] for j in S]
    assert list(est.get_feature_names_out()) == [names[j] for j in S]
    assert est.coef_.shape == (1, 7) and est.intercept_.shape == (1,)
    d = est.decision_function(df)
    assert np.allclose(d, X @ est.coef_[0] + est.intercept_[0])
    pred = est.predict(df)
    assert set(pred) <= {"pos", "neg"}
    assert np.mean(pred == labels) == pytest.approx(np.mean(np.sign(d + 1e-300) == y), abs=1e-9)
    assert est.transform(df).shape == (len(df), 3)


def test_estimator_pipeline_gridsearch() -> None:
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = get("rand0")
    pipe = make_pipeline(StandardScaler(), CardinalityLinearSVC(B=2, method="local-search", k=2))
    g = GridSearchCV(pipe, {"cardinalitylinearsvc__C": [0.1, 1.0]}, cv=3).fit(X, y)
    est = g.best_estimator_[-1]
    assert np.count_nonzero(est.coef_) <= 2
    assert 0.5 < g.best_score_ <= 1.0
    with pytest.raises(ValueError, match="B=0"):
        CardinalityLinearSVC(B=0).fit(X, y)
    full = CardinalityLinearSVC(B=9).fit(X, y)  # "at most B" with B >= n: the plain SVM
    assert full.result_.status.value == "optimal" and full.gap_ < 1e-6
    with pytest.raises(ValueError, match="method='magic': choose one of"):
        CardinalityLinearSVC(method="magic").fit(X, y)


@pytest.fixture(scope="module")
def cli():
    from sparsekm.cli.app import app

    return lambda *args: CliRunner().invoke(app, list(args))


def test_cli_solve_and_relax_json(cli) -> None:
    from sparsekm.models.fs_linear import FSLinearProblem
    from sparsekm.relaxations.fs_linear import solve_relaxation

    r = cli("solve", "fs-linear", "--data", "wholesale", "--B", "2", "--C", "10",
            "--method", "exact", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["problem"] == "fs-linear" and out["status"] == "optimal"
    assert len(out["selected"]) == 2 and len(out["selected_names"]) == 2
    assert out["lower_bound"] <= out["objective"] and out["gap"] < 1e-4
    ks = json.loads(cli("solve", "fs-linear", "--data", "wholesale", "--B", "2", "--C", "10",
                        "--method", "kernel-search", "--json").output)
    assert ks["objective"] >= out["objective"] * (1 - 1e-6)
    assert ks["lower_bound"] <= out["objective"] * (1 + 1e-6)
    rl = json.loads(cli("relax", "fs-linear", "--data", "wholesale", "--B", "2", "--C", "10",
                        "--relaxation", "dscop", "--json").output)
    assert rl["objective"] <= ks["lower_bound"] * (1 + 1e-6)  # KS certifies at least DSCoP
    assert rl["objective"] <= out["objective"]
    box = json.loads(cli("relax", "fs-linear", "--data", "wholesale", "--B", "2", "--C", "10",
                         "--relaxation", "box", "--M", "0.5", "--json").output)
    assert box["params"]["M"] == 0.5
    from sparsekm.data import Scaler, load_dataset

    ds = load_dataset("wholesale")
    Xs = Scaler("standard").fit(ds.X).transform(ds.X)
    assert box["objective"] == pytest.approx(
        solve_relaxation(FSLinearProblem(Xs, ds.y, B=2, C=10.0), "box", M=0.5)
        .extra["bound_under_M"], rel=1e-6)
    assert box["lower_bound"] is None    # M = 0.5 < sqrt(2 UB): bounds (2) only under it


def test_cli_errors(cli) -> None:
    r = cli("solve", "fs-linear", "--data", "wholesale", "--B", "0")
    assert r.exit_code == 2 and "--B 0" in r.output
    r = cli("relax", "fs-linear", "--data", "wholesale", "--relaxation", "foo")
    assert r.exit_code == 2 and "--relaxation foo: choose one of box, dscomp" in r.output
    r = cli("solve", "fs-linear", "--data", "wholesale", "--method", "nope")
    assert r.exit_code == 2 and "choose one of" in r.output and "kernel-search" in r.output
