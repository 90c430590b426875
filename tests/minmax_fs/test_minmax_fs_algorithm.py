"""Paper E, Algorithm 1 and the Section 4.2 protocol: CV choice, ranking, curves, determinism."""

from __future__ import annotations

import numpy as np
import pytest
from minmax_fs_data import make_instance

from sparsekm.algorithms.minmax_fs.algorithm1 import Start, algorithm1, predict_scores
from sparsekm.algorithms.minmax_fs.cv import cv_start, decision_values, svm_fit
from sparsekm.algorithms.minmax_fs.outer_folds import F_grid, ranking, ranking_curve, run_protocol
from sparsekm.algorithms.minmax_fs.summary import curve, frontier, table2
from sparsekm.models.minmax_fs.lower import kernel
from sparsekm.parallel import Executor
from sparsekm.solvers import SolverPlan

GRIDS = ((0.1, 1.0, 10.0), (0.01, 0.1, 1.0))


def test_cv_start_is_the_argmax_of_mean_validation_accuracy_by_hand():
    X, y = make_instance(m=40, n=3, seed=2, informative=1)
    cv = cv_start(X, y, folds=4, seed=0, C_grid=GRIDS[0], gamma_grid=GRIDS[1])
    from sparsekm.data import kfold_splits

    table = np.zeros((3, 3))
    for tr, va in kfold_splits(y, k=4, seed=0):
        for a, C in enumerate(GRIDS[0]):
            for b, g in enumerate(GRIDS[1]):
                gv = np.full(3, g)
                alpha, b0 = svm_fit(kernel(X[tr], gv), y[tr], C)
                d = decision_values(X[tr], y[tr], alpha, b0, gv, X[va])
                table[a, b] += np.mean(np.where(d >= 0, 1, -1) == y[va]) / 4
    np.testing.assert_allclose(cv.table, table)
    ties = np.argwhere(table >= table.max() - 1e-12)
    a = ties[:, 0].max()                      # largest C among the ties, then smallest gamma
    assert (cv.C, cv.gamma) == (GRIDS[0][a], GRIDS[1][ties[ties[:, 0] == a, 1].min()])


def test_given_C_and_gamma0_skip_the_cv_and_a_vector_start_needs_C():
    X, y = make_instance(m=30, n=3, seed=1)
    res = algorithm1(X, y, start=Start(C=2.0, gamma0=0.3), C2=0.5)
    assert res.extra["C"] == 2.0 and res.extra["cv"]["gamma"] == 0.3
    assert res.extra["cv"]["cv_accuracy"] != res.extra["cv"]["cv_accuracy"]      # NaN: no CV
    with pytest.raises(ValueError, match="needs C"):
        algorithm1(X, y, start=Start(gamma0=np.ones(3)))
    with pytest.raises(ValueError, match="unknown method"):
        algorithm1(X, y, start=Start(C=1.0, gamma0=0.1), method="nope")


def test_ranking_curve_with_all_features_equals_the_full_model():
    X, y = make_instance(m=60, n=4, seed=3, informative=2)
    Xtr, ytr, Xte, yte = X[:40], y[:40], X[40:], y[40:]
    res = algorithm1(Xtr, ytr, start=Start(C=5.0, gamma0=0.3), C2=0.3)
    g = np.asarray(res.gamma)
    order = ranking(g)
    assert np.all(np.diff(g[order]) <= 0)
    full = int(np.sum(np.where(predict_scores(Xtr, ytr, res, Xte) >= 0, 1, -1) == yte))
    counts = ranking_curve(Xtr, ytr, Xte, yte, g, 5.0, [1, 4])
    assert counts[1] == full
    assert F_grid(30) == list(range(1, 31)) and F_grid(4026)[-1] == 4026


def test_informative_features_rank_first():
    X, y = make_instance(m=80, n=6, seed=7, informative=2)
    res = algorithm1(X, y, start=Start(C=10.0, gamma0=0.2), C2=0.5)
    assert set(ranking(res.gamma)[:2]) == {0, 1}


def test_protocol_is_deterministic_across_workers_and_summaries_add_up():
    X, y = make_instance(m=60, n=3, seed=5, informative=1)
    opts = {"grids": GRIDS, "folds": [0, 1], "outer": 3, "inner": 3}
    kw = {"C2_grid": (0.2, 0.8)}
    serial = run_protocol(X, y, **kw, options=opts)
    para = run_protocol(X, y, **kw, options=opts, plan=SolverPlan(executor=Executor(2)))
    for a, b in zip(serial, para):
        assert a["C"] == b["C"] and a["gamma_ini"] == b["gamma_ini"]
        assert [r["objective"] for r in a["runs"]] == [r["objective"] for r in b["runs"]]
    rows = frontier(serial)
    n_test = sum(f["n_test"] for f in serial)
    assert [r["C2"] for r in rows] == [0.2, 0.8]
    for r in rows:
        correct = sum(x["test_correct"] for f in serial for x in f["runs"] if x["C2"] == r["C2"])
        assert r["accuracy"] == pytest.approx(correct / n_test)
        assert r["objective"] <= r["start_objective"]
    t2 = table2(serial)
    assert t2["mmfs"] == max(r["accuracy"] for r in rows)
    Fs, acc = curve(serial, 0.2)
    assert Fs == [1, 2, 3] and acc[-1] == pytest.approx(rows[0]["accuracy"])


def test_a_time_limited_cv_leaves_time_for_the_route_and_the_nofs_svm_is_returned(
        monkeypatch):
    """Under a limit the CV start gets CV_SHARE of the time left (before, all of it, and the
    route and the predictions ran past the limit); the NO-FS SVM of the chosen (C, gamma) is
    returned, equal to a direct fit."""
    import time

    from sparsekm.algorithms.minmax_fs import algorithm1 as a1

    X, y = make_instance(m=40, n=3, seed=4, informative=1)
    seen, cv0 = [], a1.cv_start

    def cv_start(*a, deadline=None, **kw):
        seen.append((deadline.remaining(), time.perf_counter()))
        return cv0(*a, deadline=deadline, **kw)

    monkeypatch.setattr(a1, "cv_start", cv_start)
    plan = SolverPlan(time_limit=30.0).start()
    res = algorithm1(X, y, start=Start(), C2=0.5, plan=plan)
    given, at = seen[0]
    assert given <= a1.CV_SHARE * (plan.clock.end - at) + 1e-3 < 20.0
    C, g = res.extra["cv"]["C"], res.extra["cv"]["gamma"]
    alpha, b = svm_fit(kernel(X, np.full(3, g)), y, C)
    a0, b0 = res.extra["nofs_svm"]
    np.testing.assert_allclose(a0, alpha) and np.testing.assert_allclose(b0, b)


def test_a_fold_of_the_cv_does_no_work_after_the_limit(monkeypatch):
    """Past the deadline a fold returns NaN for every pair without computing its distances
    (0.5 s a fold on madelon, five folds past the limit before)."""
    import scipy.spatial.distance as dist

    from sparsekm.algorithms.minmax_fs import cv
    from sparsekm.solvers.plan import Deadline

    X, y = make_instance(m=30, n=3, seed=6)
    monkeypatch.setattr(dist, "cdist", lambda *a, **k: pytest.fail("distances computed"))
    spent = Deadline(1e-9)
    out = cv._fold_table(X, y, np.arange(20), np.arange(20, 30), (1.0, 10.0), (0.1,), spent)
    assert out.shape == (2, 1) and np.isnan(out).all()
