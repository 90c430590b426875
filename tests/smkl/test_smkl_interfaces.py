"""Kernel dictionary, problem validation, estimator and CLI of paper B."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from smkl_instances import small_problem
from typer.testing import CliRunner

from sparsekm.kernels import KernelDictionary, parse_kernels
from sparsekm.models.smkl.problem import SMKLProblem


def test_spec_language_and_named_dictionaries():
    ks = parse_kernels("rbf:0.05, linear,poly:0.1:1:2,laplacian:2,sigmoid:0.5:-1")
    assert [k.name for k in ks] == ["rbf", "linear", "poly", "laplacian", "sigmoid"]
    assert (ks[2].gamma, ks[2].coef0, ks[2].degree) == (0.1, 1.0, 2)
    p10 = KernelDictionary("paper10")
    assert p10.q == 10 and p10.labels[1] == "poly:0.01:1:2" and p10.labels[-1] == "laplacian:0.3"
    p50 = KernelDictionary("paper50")
    counts = {n: sum(lab.startswith(n) for lab in p50.labels)
              for n in ("linear", "poly", "rbf", "sigmoid", "laplacian")}
    assert counts == {"linear": 1, "poly": 18, "rbf": 12, "sigmoid": 12, "laplacian": 7}
    for bad, msg in [("rbf", "takes 1"), ("gauss:1", "unknown kernel spec"),
                     ("poly:0.1:1:2.5", "DEGREE"), ("rbf:-1", "GAMMA"), ("", "empty")]:
        with pytest.raises(ValueError, match=msg):
            parse_kernels(bad)


def test_dictionary_symmetrizes_adds_jitter_and_combines_without_copy():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3))
    D = KernelDictionary("linear,rbf:0.5,sigmoid:0.7:1").fit(X)
    assert np.array_equal(D.K, D.K.transpose(0, 2, 1))
    assert np.allclose(D.K[0], X @ X.T + 1e-6 * np.eye(20))  # nothing else by default
    b = np.array([0.25, 0.0, 0.75])
    K1 = D.combine(b)
    assert np.allclose(K1, 0.25 * D.K[0] + 0.75 * D.K[2])
    assert np.shares_memory(K1, D.combine(np.array([1.0, 0, 0])))  # one reused buffer
    Z = rng.normal(size=(5, 3))
    assert np.allclose(D.cross(Z)[1], np.exp(-0.5 * ((Z[:, None] - X[None]) ** 2).sum(-1)))
    coef = np.where(rng.random(20) < 0.5, 0.0, rng.normal(size=20))
    T = KernelDictionary("linear,rbf:0.5", normalize="trace").fit(X)
    for dic in (D, T):  # the decision on new rows: the cross stack's, kernels and rows skipped
        beta = np.array([0.0, 0.6, 0.4][:dic.q])
        assert np.allclose(dic.decision(beta, coef, Z), dic.combine(beta, dic.cross(Z)) @ coef)
    T = KernelDictionary("linear", normalize="trace").fit(X)
    assert np.trace(T.K[0]) == pytest.approx(20 + 20e-6)
    assert np.allclose(D.quad_forms(np.ones(20)), [np.ones(20) @ k @ np.ones(20) for k in D.K])


def test_combine_buffer_is_one_per_thread_and_copy():
    """In-process workers share a dictionary: a thread's combination survives another
    thread's combine (a 2-worker in-process Dask search once changed its leaf's value in the
    9th digit through the one shared buffer); a pickled or copied dictionary gets its own."""
    import copy
    import pickle
    import threading

    D = KernelDictionary("linear,rbf:0.5").fit(np.random.default_rng(1).normal(size=(12, 3)))
    got: dict[str, np.ndarray] = {}

    def run(name: str, beta: list[float]) -> None:
        got[name] = D.combine(np.array(beta))

    for name, beta in (("a", [1.0, 0.0]), ("b", [0.0, 1.0])):
        t = threading.Thread(target=run, args=(name, beta))
        t.start()
        t.join()
    assert np.array_equal(got["a"], D.K[0]) and np.array_equal(got["b"], D.K[1])
    for other in (copy.copy(D), pickle.loads(pickle.dumps(D))):
        assert not np.shares_memory(other.combine(np.array([0.5, 0.5])), D.combine(np.ones(2)))
        assert np.allclose(other.combine(np.array([0.5, 0.5])), 0.5 * (D.K[0] + D.K[1]))


@pytest.mark.parametrize("kw,msg", [({"k0": 0}, "k0=0: give an integer >= 1"),
                                    ({"k0": 5}, "k0=5: at most q = 4"),
                                    ({"lam": -1}, "lam=-1"), ({"C": 0}, "C=0"),
                                    ({"kernels": "rbf:1,foo"}, "unknown kernel spec")])
def test_problem_validation_messages(kw, msg):
    p = small_problem()
    args = {"kernels": p.kernels, "k0": 2, "C": 1.0, "lam": 0.1, **kw}
    with pytest.raises(ValueError, match=msg):
        SMKLProblem(p.X, p.y, **args)


def test_estimator_check_estimator_pipeline_gridsearch():
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.utils.estimator_checks import check_estimator

    from sparsekm.estimators import SparseMKLClassifier

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_estimator(SparseMKLClassifier())
    p = small_problem(seed=3, m=60)
    y = np.where(p.y > 0, "yes", "no")
    pipe = make_pipeline(StandardScaler(), SparseMKLClassifier(kernels="rbf:0.5,linear,rbf:2"))
    gs = GridSearchCV(pipe, {"sparsemklclassifier__k0": [1, 2],
                             "sparsemklclassifier__C": [1.0, 10.0]}, cv=3).fit(p.X, y)
    est = gs.best_estimator_[-1]
    assert set(gs.predict(p.X)) <= {"yes", "no"}
    assert len(est.support_) <= est.k0 and abs(est.weights_.sum() - 1) < 1e-12
    assert est.lower_bound_ <= est.objective_
    ex = SparseMKLClassifier(kernels="rbf:0.5,linear,rbf:2", method="exact").fit(p.X, y)
    assert ex.gap_ <= 1e-4


def _cli(args):
    from sparsekm.cli.app import app

    return CliRunner().invoke(app, args)


def test_cli_solve_json_and_errors():
    out = _cli(["solve", "smkl", "--data", "wine", "--rows", "80", "--test-size", "0.25",
                "--kernels", "rbf:0.5,linear,poly:0.01:1:2", "--k0", "2", "--method", "exact",
                "--json"])
    assert out.exit_code == 0, out.output
    d = json.loads(out.stdout)
    assert d["status"] == "optimal" and d["gap"] <= 1e-4
    assert len(d["beta"]) == 3 and sum(d["beta"]) == pytest.approx(1.0)
    assert d["support"] == [i for i, b in enumerate(d["beta"]) if b > 0]
    assert d["lower_bound"] <= d["objective"] and 0 <= d["test_accuracy"] <= 1
    for args, msg in [(["--k0", "4"], "--k0 4: at most q = 3"), (["--lam", "-1"], "--lam -1"),
                      (["--C", "0"], "--C 0"), (["--kernels", "rbf"], "takes 1"),
                      (["--method", "nope"], "--method nope: choose one of")]:
        base = ["solve", "smkl", "--data", "wine", "--rows", "100", "--kernels",
                "rbf:0.5,linear,rbf:2"]
        r = _cli(base + args)
        assert r.exit_code == 2 and msg in r.output, (args, r.output)


def test_cli_relax_json():
    out = _cli(["relax", "smkl", "--data", "wine", "--rows", "60", "--kernels",
                "rbf:0.5,linear,poly:0.01:1:2", "--relaxation", "sdp-3x3", "--json"])
    assert out.exit_code == 0, out.output
    d = json.loads(out.stdout)
    assert d["method"] == "sdp-3x3" and d["lower_bound"] is not None
