"""CardinalityKernelSVC (Paper A) -- scikit-learn contract and agreement with SVC."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import check_estimator

from sparsekm.estimators import CardinalityKernelSVC


def _data(seed=0, m=60, n=8):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    y = np.where(X[:, 0] ** 2 + X[:, 1] > 1.0, "yes", "no")
    return X, y


def test_sklearn_check_estimator():
    check_estimator(CardinalityKernelSVC(method="ls"))


@pytest.mark.parametrize("kernel,sense,method", [("poly", "margin", "ls-star"),
                                                 ("rbf", "paper", "ls"),
                                                 ("poly", "paper", "decsub"),
                                                 ("rbf", "margin", "rfe2")])
def test_fit_predict_matches_svc_on_selected_features(kernel, sense, method):
    X, y = _data()
    est = CardinalityKernelSVC(kernel=kernel, degree=2, B=3, sense=sense, method=method,
                               starts=2, method_options={"n_samples": 30}
                               if method == "ls-star" else None).fit(X, y)
    mask = est.get_support()
    assert mask.sum() == 3 and est.get_support(indices=True).tolist() == np.flatnonzero(
        mask).tolist()
    ref = SVC(kernel=kernel, degree=2, gamma=0.1, coef0=1.0, C=10.0).fit(X[:, mask], y)
    np.testing.assert_allclose(est.decision_function(X), ref.decision_function(X[:, mask]),
                               atol=2e-2)
    assert (est.predict(X) == ref.predict(X[:, mask])).mean() >= 0.97
    assert est.objective_ < 0
    assert set(est.predict(X)) <= {"yes", "no"}
    if method != "rfe2":
        assert len(est.result_.extra["starts"]) == 2


def test_margin_sense_finds_the_informative_features():
    X, y = _data(1, m=120, n=8)
    est = CardinalityKernelSVC(kernel="poly", degree=2, B=2, method="enumerate").fit(X, y)
    assert est.get_support(indices=True).tolist() == [0, 1]
    assert est.score(X, y) > 0.9


def test_errors():
    X, y = _data()
    with pytest.raises(ValueError, match="Only binary"):
        CardinalityKernelSVC().fit(X, np.arange(len(y)) % 3)
    with pytest.raises(ValueError, match="B=9: at most n = 8"):
        CardinalityKernelSVC(B=9).fit(X, y)
    with pytest.raises(ValueError, match="sense='paper' only"):
        CardinalityKernelSVC(method="decsub", sense="margin").fit(X, y)
    with pytest.raises(ValueError, match="method='greedy': choose one of"):
        CardinalityKernelSVC(method="greedy").fit(X, y)
    with pytest.raises(ValueError, match="takes no option 'sol_pool'"):
        CardinalityKernelSVC(method="ls", method_options={"sol_pool": 3}).fit(X, y)
