"""CardinalityLinearSVCCV: (B, C) of paper D's FS-SVM (2) chosen by cross-validation."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from sparsekm.estimators import CardinalityLinearSVCCV


def _data(seed: int = 0, m: int = 60, n: int = 40) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    y = np.where(X[:, 0] - X[:, 1] + 0.5 * X[:, 2] + 0.3 * rng.normal(size=m) >= 0, "a", "b")
    return X, y


def test_check_estimator_is_clean() -> None:
    from sklearn.utils.estimator_checks import check_estimator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(CardinalityLinearSVCCV(Bs=(1, 2), Cs=(1.0,), cv=3),
                                  on_fail=None)
    assert not [(r["check_name"], str(r["exception"])[:200]) for r in results
                if r["status"] == "failed"]


@pytest.mark.slow
def test_check_estimator_is_clean_with_the_defaults() -> None:
    from sklearn.utils.estimator_checks import check_estimator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(CardinalityLinearSVCCV(), on_fail=None)
    assert not [r["check_name"] for r in results if r["status"] == "failed"]


def test_grid_results_choice_and_refit() -> None:
    """The grid's scores are the folds' accuracies recomputed by hand, the choice is the best
    mean (ties to the smaller B), and the refit model is the fast method at (B_, C_)."""
    from sklearn.model_selection import StratifiedKFold

    from sparsekm.algorithms.fs_linear.budget_path import fs_linear_path
    from sparsekm.estimators import CardinalityLinearSVC

    X, y = _data()
    est = CardinalityLinearSVCCV(Bs=(1, 3, 8), Cs=(0.1, 10.0), cv=4).fit(X, y)
    res = est.cv_results_
    assert [p["B"] for p in res["params"]] == [1, 1, 3, 3, 8, 8]
    assert res["mean_test_score"].shape == (6,) and res["rank_test_score"].min() == 1
    best = int(np.argmax(res["mean_test_score"]))
    assert (res["params"][best]["B"], res["params"][best]["C"]) == (est.B_, est.C_)
    assert est.best_score_ == res["mean_test_score"].max()
    train, test = next(StratifiedKFold(4).split(X, y))
    ypm = np.where(y[train] == "b", 1.0, -1.0)
    rows = fs_linear_path(X[train], ypm, [1, 3, 8], [0.1, 10.0])
    row = rows[3 * 1 + 1]                                 # C = 10, B = 3
    pred = np.where(X[test] @ row["w"] + row["b"] >= 0, "b", "a")
    assert res["split0_test_score"][3] == pytest.approx(np.mean(pred == y[test]))
    assert est.best_score_ >= 0.85                        # three informative features
    assert est.get_support().sum() <= est.B_
    assert est.score(X, y) == est.best_estimator_.score(X, y)
    assert isinstance(est.best_estimator_, CardinalityLinearSVC)


@pytest.mark.parametrize("method", ["path", "fast"])
def test_folds_score_the_model_the_refit_returns(method: str) -> None:
    """Issue 27: the folds were scored with path entries (no restarts) while the refit ran
    ``fast``. Now each fold's score is the score of the model that the refit's method and
    options give on the fold's training rows (recomputed here with them), and the refit is
    that same method on all rows; ``cv_results_`` names the method and its options."""
    from sklearn.model_selection import StratifiedKFold

    from sparsekm.algorithms.fs_linear import solve_fs_linear
    from sparsekm.algorithms.fs_linear.budget_path import path_results
    from sparsekm.models.fs_linear import FSLinearProblem

    X, y = _data(3, m=48, n=30)
    Bs, Cs, opts = [1, 3], [0.1, 10.0], {"restarts": 2, "seed": 1, "candidates": 10}
    est = CardinalityLinearSVCCV(Bs=Bs, Cs=Cs, cv=3, method=method,
                                 method_options=opts).fit(X, y)
    res = est.cv_results_
    assert list(res["method"]) == [method] * 4
    assert res["method_options"] == [opts] * 4

    def model(Xa: np.ndarray, ya: np.ndarray, B: int, C: float) -> tuple[np.ndarray, float]:
        ypm = np.where(ya == "b", 1.0, -1.0)
        if method == "path":
            r = path_results(Xa, ypm, Bs, Cs, fast=opts)[(B, C)]
        else:
            r = solve_fs_linear(FSLinearProblem(Xa, ypm, B=B, C=C), "fast", **opts)
        return np.asarray(r.values["w"]), float(r.values["b"])

    for k, (train, test) in enumerate(StratifiedKFold(3).split(X, y)):
        for q, p in enumerate(res["params"]):
            w, b = model(X[train], y[train], p["B"], p["C"])
            pred = np.where(X[test] @ w + b >= 0, "b", "a")
            assert res[f"split{k}_test_score"][q] == pytest.approx(np.mean(pred == y[test]))
    w, b = model(X, y, est.B_, est.C_)
    np.testing.assert_array_equal(est.coef_[0], w)
    assert est.intercept_[0] == b


def test_folds_through_the_executor_give_the_same_grid() -> None:
    from sparsekm.parallel import Executor

    X, y = _data(1, m=50, n=20)
    one = CardinalityLinearSVCCV(Bs=(2, 4), Cs=(1.0,), cv=3, refit=False).fit(X, y)
    two = CardinalityLinearSVCCV(Bs=(2, 4), Cs=(1.0,), cv=3, refit=False,
                                 workers=Executor(workers=2)).fit(X, y)
    np.testing.assert_array_equal(one.cv_results_["mean_test_score"],
                                  two.cv_results_["mean_test_score"])
    assert not hasattr(one, "coef_") and one.B_ in (2, 4)


def test_bad_grid_is_a_clear_error() -> None:
    X, y = _data()
    with pytest.raises(ValueError, match="Cs"):
        CardinalityLinearSVCCV(Cs=(0.0,)).fit(X, y)
    with pytest.raises(ValueError, match="Bs"):
        CardinalityLinearSVCCV(Bs=(0,)).fit(X, y)
