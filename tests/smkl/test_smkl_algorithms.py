"""Algorithm 1 (ABR) and the exact method of paper B."""

from __future__ import annotations

import numpy as np
import pytest
from smkl_instances import small_problem

from sparsekm import registry
from sparsekm.algorithms.smkl.abr import ABRStopping, abr_run, random_start


def svm_dual_value(K: np.ndarray, y: np.ndarray, C: float) -> float:
    """max SVM dual (7) by scikit-learn's SVC (an independent solver path)."""
    from sklearn.svm import SVC

    clf = SVC(kernel="precomputed", C=C, tol=1e-8).fit(K, y)
    v = np.zeros(y.size)
    v[clf.support_] = clf.dual_coef_[0]
    return float(np.abs(v).sum() - 0.5 * v @ K @ v)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_abr_never_increases_the_objective(seed):
    """Every accepted iterate of (monotone) Algorithm 1 has (4) <= the previous one; (4) is
    re-evaluated with SVC, not with the solver ABR used."""
    p = small_problem(seed=seed, m=40, lam=0.05)
    rng = np.random.default_rng(seed)
    run = abr_run(p, random_start(p.q, p.k0, rng),
                  stop=ABRStopping(tol=0.0, patience=50, max_iter=30))
    values = []
    for h in run["history"]:
        if h["accepted"]:
            b = np.asarray(h["beta"])
            values.append(svm_dual_value(p.dictionary.combine(b).copy(), p.y, p.C)
                          + p.lam * b @ b)
    assert len(values) >= 2
    assert all(b <= a + 1e-6 * max(1, abs(a)) for a, b in zip(values, values[1:]))
    assert run["bound"] <= run["best"].upper + 1e-9


def test_abr_multistart_is_reproducible_and_certified():
    from sparsekm.parallel import Executor
    from sparsekm.solvers import SolverPlan

    p = small_problem(seed=4, m=40)
    abr = registry.get("smkl", "method", "abr")
    r1 = abr(p, starts=4, seed=3)
    r2 = abr(p, SolverPlan(executor=Executor(2)), starts=4, seed=3)
    assert r1.extra["start_objectives"] == pytest.approx(r2.extra["start_objectives"])
    assert np.array_equal(r1.beta, r2.beta)
    assert r1.bound <= r1.objective
    assert len(r1.selected) <= p.k0 and abs(r1.beta.sum() - 1) < 1e-12


def test_abr_warm_start_from_a_relaxation():
    p = small_problem(seed=5, m=30)
    r = registry.get("smkl", "method", "abr")(p, init="sdp-full-cp")
    assert r.extra["init_bound"] <= r.objective + 1e-9
    assert r.bound >= r.extra["init_bound"]


@pytest.mark.parametrize("seed,k0,lam", [(10, 2, 0.1), (11, 2, 1.0), (12, 3, 0.01),
                                         (13, 1, 0.5)])
def test_exact_equals_support_by_support_optimum(seed, k0, lam):
    p = small_problem(seed=seed, m=30, k0=k0, lam=lam,
                      kernels="linear,poly:0.5:1:2,rbf:0.2,rbf:1,laplacian:0.5")
    enum = registry.get("smkl", "method", "enumerate")(p)
    ex = registry.get("smkl", "method", "exact")(p)
    assert ex.status.value == "optimal"
    assert ex.objective == pytest.approx(enum.objective, rel=2e-4)
    assert ex.bound <= enum.objective * (1 + 1e-6)
    assert ex.gap <= 1e-4


def test_exact_time_limit_returns_incumbent_bound_and_gap():
    from sparsekm.solvers import SolverPlan

    p = small_problem(seed=6, m=40)
    r = registry.get("smkl", "method", "exact")(p, SolverPlan(time_limit=0.05), starts=1)
    assert r.has_solution and r.bound is not None and r.bound <= r.objective
    assert r.status.value in ("feasible", "optimal")


def test_baselines_return_simplex_weights(tiny):
    for name in ("average", "easymkl", "cka", "single"):
        kw = {"folds": 3} if name == "single" else {}
        r = registry.get("smkl", "method", name)(tiny, **kw)
        assert r.beta.min() >= 0 and abs(r.beta.sum() - 1) < 1e-9, name
        assert r.objective is not None, name


@pytest.mark.parametrize("k0", [1, 2])
def test_abr_ranking_stops_at_the_time_limit(monkeypatch, k0):
    """The ranking's q single-kernel SVMs read the clock: with each SVM made slow (0.1 s), a
    0.25 s limit evaluates a few kernels and returns the best of them, not certified (k0 = 1
    would be an enumeration only when complete). The old ranking solved all q first."""
    import time

    from sparsekm.algorithms.smkl import methods
    from sparsekm.solvers import SolverPlan

    slow = methods.evaluate

    def evaluate(*a, **kw):
        time.sleep(0.1)
        return slow(*a, **kw)

    monkeypatch.setattr(methods, "evaluate", evaluate)
    p = small_problem(seed=7, m=30, k0=k0,
                      kernels="linear,poly:0.5:1:2,rbf:0.2,rbf:1,laplacian:0.5,rbf:3,rbf:0.05")
    t0 = time.perf_counter()
    r = registry.get("smkl", "method", "abr")(p, SolverPlan(time_limit=0.25))
    assert time.perf_counter() - t0 < 0.6
    assert r.termination.value == "time_limit" and r.status.value != "optimal"
    evaluated = [v for v in r.extra["single_values"] if v is not None]
    assert 1 <= len(evaluated) < p.q
    if k0 == 1:
        assert r.bound is None and not r.extra["enumerated"]


def test_enumerate_stops_at_the_time_limit_with_a_valid_bound(monkeypatch):
    """Stopped by its limit, enumerate skips the supports left (it solved them all before,
    past the limit) and bounds (4) by the Lagrangian bound of the alphas met: at most the
    full enumeration's optimum."""
    import math
    import time

    from sparsekm.algorithms.smkl import exact
    from sparsekm.solvers import SolverPlan

    kernels = "linear,poly:0.5:1:2,rbf:0.2,rbf:1,laplacian:0.5,rbf:3"
    p = small_problem(seed=8, m=30, k0=2, kernels=kernels)
    full = registry.get("smkl", "method", "enumerate")(p)
    slow = exact.kelley

    def kelley(*a, **kw):
        time.sleep(0.1)
        return slow(*a, **kw)

    monkeypatch.setattr(exact, "kelley", kelley)
    t0 = time.perf_counter()
    r = registry.get("smkl", "method", "enumerate")(p, SolverPlan(time_limit=0.25))
    assert time.perf_counter() - t0 < 0.6
    assert r.termination.value == "time_limit"
    assert 1 <= len(r.extra["supports"]) < math.comb(p.q, 2) == len(full.extra["supports"])
    assert r.bound is not None and r.bound <= full.objective * (1 + 1e-9)
    assert r.objective >= full.objective * (1 - 1e-6)


def test_abr_starts_on_workers_keep_the_time_limit():
    """The starts run by an executor get the plan's clock (it crosses the process boundary
    as wall time): with a limit already spent each start stops at its first look, where
    before the workers ran every start to convergence."""
    import pickle
    import time

    from sparsekm.parallel import Executor
    from sparsekm.solvers import SolverPlan
    from sparsekm.solvers.plan import Deadline

    d = Deadline(10.0)
    time.sleep(0.05)
    e = pickle.loads(pickle.dumps(d))
    assert abs(e.remaining() - d.remaining()) < 0.01 and abs(e.elapsed() - d.elapsed()) < 0.01
    p = small_problem(seed=9, m=40)
    r = registry.get("smkl", "method", "abr")(
        p, SolverPlan(time_limit=1e-3, executor=Executor(2)), init="random", starts=3)
    assert r.termination.value == "time_limit"
    assert len(r.extra["history"]) == 1      # the start only: no iteration past the limit
