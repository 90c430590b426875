"""MinMaxFeatureWeightingSVC (paper E) and ``sparsekm solve minmax-fs``."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from minmax_fs_data import make_instance
from typer.testing import CliRunner

from sparsekm.cli.app import app
from sparsekm.estimators import MinMaxFeatureWeightingSVC

runner = CliRunner()


def test_check_estimator_is_clean():
    from sklearn.utils.estimator_checks import check_estimator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(MinMaxFeatureWeightingSVC(C=1.0, gamma0=0.5), on_fail=None)
    failed = [(r["check_name"], str(r["exception"])[:200]) for r in results
              if r["status"] == "failed"]
    assert not failed


@pytest.mark.slow
def test_check_estimator_is_clean_with_the_default_cv():
    from sklearn.utils.estimator_checks import check_estimator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(MinMaxFeatureWeightingSVC(), on_fail=None)
    assert not [r["check_name"] for r in results if r["status"] == "failed"]


def test_weights_ranking_support_and_pipeline():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MinMaxScaler

    X, y = make_instance(m=80, n=6, seed=7, informative=2)
    labels = np.where(y > 0, "yes", "no")
    est = MinMaxFeatureWeightingSVC(C=10.0, gamma0=0.2, C2=0.5).fit(X, labels)
    assert est.feature_weights_.shape == (6,) and np.all(est.feature_weights_ >= 0)
    assert set(est.ranking_[:2]) == {0, 1}
    np.testing.assert_array_equal(est.get_support(k=2, indices=True), [0, 1])
    assert est.get_support(2).sum() == 2
    assert est.get_support(indices=True).tolist() == np.flatnonzero(est.support_).tolist()
    assert est.score(X, labels) > 0.85
    assert est.objective_ < est.result_.extra["start_objective"]
    pipe = make_pipeline(MinMaxScaler((-1, 1)), MinMaxFeatureWeightingSVC(C=10.0, gamma0=0.2))
    assert pipe.fit(X, labels).score(X, labels) > 0.85
    with pytest.raises(ValueError, match="k=7"):
        est.get_support(7)


def _json(*args: str) -> dict:
    res = runner.invoke(app, ["solve", "minmax-fs", *args, "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_cli_json_objective_is_14_at_the_returned_gamma():
    from sparsekm.models.minmax_fs import MinMaxFSProblem, lower_level
    from sparsekm.run import RunOptions
    from sparsekm.run.data import load_data, scale_fit_transform

    out = _json("--data", "wine", "--rows", "80", "--gamma0", "0.3", "--C", "5", "--C2", "0.4",
                "--test-size", "0.25")
    assert out["problem"] == "minmax-fs" and out["method"] == "fast"
    assert out["status"] == "locally_optimal" and len(out["gamma"]) == out["n"] == 13
    g = np.array(out["gamma"])
    assert out["selected"] == [int(j) for j in np.flatnonzero(g > 1e-4 * g.max())]
    assert out["kkt_residual"] < 1e-3 and out["objective"] <= out["start_objective"]
    for key in ("train_accuracy", "test_accuracy", "nofs_train_accuracy", "nofs_test_accuracy"):
        assert 0.0 <= out[key] <= 1.0
    from sparsekm.data import train_test_split

    ds = load_data(RunOptions(data="wine", rows=80))
    train, _ = train_test_split(ds, test_size=0.25, seed=0)
    train = scale_fit_transform("minmax11", train)
    pb = MinMaxFSProblem(train.X, train.y, C=5.0, C2=0.4)
    ll = lower_level(pb, g, tol=1e-10)
    assert out["objective"] == pytest.approx(pb.objective(g, ll.value), rel=1e-6)


@pytest.mark.parametrize(("args", "needle"), [
    (["--C2", "1.0", "--gamma0", "0.1"], "--C2 1.0: give a finite number > 0 and < 1"),
    (["--p", "0", "--gamma0", "0.1"], "--p 0: give a finite number > 0"),
    (["--gamma0", "-0.5"], "--gamma0 -0.5: give a finite number >= 0"),
    (["--method", "bfgs", "--gamma0", "0.1"], "fast, ipopt, nofs, scip"),
    (["--method", "scip", "--gamma0", "0.1"], "method='fast'"),
    (["--solver", "gurobi", "--gamma0", "0.1"], "solvers that can: libsvm, smo; methods that "
                                                "take gurobi: scip")])
def test_cli_user_errors_are_one_line_exit_2(args, needle):
    res = runner.invoke(app, ["solve", "minmax-fs", "--data", "wine", *args, "--json"])
    assert res.exit_code == 2, res.output
    assert needle in res.stderr and "Traceback" not in res.output
