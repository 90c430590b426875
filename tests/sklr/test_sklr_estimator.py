"""SparseKernelLogisticRegression: scikit-learn contract, eq. (3), defaults == CLI defaults."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler
from sklearn.utils.estimator_checks import check_estimator

from sparsekm.data import load_dataset
from sparsekm.estimators import SparseKernelLogisticRegression as SKLR
from sparsekm.models.sklr.dual import dual_objective
from sparsekm.models.sklr.problem import SKLRProblem


def test_check_estimator_passes():
    check_estimator(SKLR())


def test_fit_predict_proba_and_sparsity_on_wisconsin():
    ds = load_dataset("breast_cancer_diagnostic")
    X = MinMaxScaler().fit_transform(ds.X)
    labels = np.where(ds.y > 0, "M", "B")
    clf = SKLR(C=100.0, lam=30.0).fit(X, labels)
    assert list(clf.classes_) == ["B", "M"]
    # the model keeps only the points above the lower bound (Section 5.1)
    assert 0 < clf.support_.size < X.shape[0]
    assert clf.n_support_.sum() == clf.support_.size == clf.dual_coef_.shape[1]
    P = clf.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_allclose(P[:, 1], 1 / (1 + np.exp(-clf.decision_function(X))))
    np.testing.assert_allclose(np.exp(clf.predict_log_proba(X)), P, rtol=1e-10)
    assert (clf.predict(X) == np.where(P[:, 1] > 0.5, "M", "B")).all()
    assert clf.score(X, labels) > 0.95
    pr = SKLRProblem(X, ds.y, C=100.0, lam=30.0)
    assert clf.objective_ == pytest.approx(dual_objective(pr, clf.alpha_), rel=1e-12)


def test_lambda_choice_default_and_warm_start_refit():
    ds = load_dataset("ionosphere")
    X = MinMaxScaler().fit_transform(ds.X)
    clf = SKLR(C=10.0, warm_start=True).fit(X, ds.y)
    assert clf.result_.values["rho"] == pytest.approx(1.0, abs=1e-4)  # lam = C / 10
    cold = clf.n_iter_
    clf.set_params(gamma=0.45).fit(X, ds.y)  # a small kernel change: start from alpha_
    assert clf.n_iter_ < cold
    ref = SKLR(C=10.0, gamma=0.45).fit(X, ds.y)
    assert clf.objective_ == pytest.approx(ref.objective_, rel=1e-5)


def test_pipeline_and_grid_search():
    ds = load_dataset("sonar")
    pipe = make_pipeline(MinMaxScaler(), SKLR())
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    gs = GridSearchCV(pipe, {"sparsekernellogisticregression__C": [1.0, 10.0]}, cv=cv)
    gs.fit(ds.X, ds.y)  # measured: 0.798 (C = 1), 0.861 (C = 10)
    assert gs.best_params_ == {"sparsekernellogisticregression__C": 10.0}
    assert gs.best_score_ > 0.8
