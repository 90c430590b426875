"""Paper E's routes to (14): fast (value function + Danskin, L-BFGS-B), Ipopt and SCIP on (20).

Each asserts a real value: the KKT residual of (20) at the returned point (alpha solves the SVM
dual at the found gamma), the objective against the NO-FS start, agreement of the two routes
from the same start, SCIP's certified bound below every local solution.
"""

from __future__ import annotations

import numpy as np
import pytest
from minmax_fs_data import make_instance

from sparsekm.algorithms.minmax_fs.nlp_routes import ipopt, scip
from sparsekm.algorithms.minmax_fs.value_function import fast
from sparsekm.models.minmax_fs import MinMaxFSProblem, lower_level
from sparsekm.solvers import SolverPlan

KKT_TOL = 1e-3      # absolute, objective units; the instances' objectives are O(1..10)


@pytest.fixture(scope="module")
def instance():
    X, y = make_instance(m=24, n=5, seed=4, informative=2)
    return X, y


@pytest.mark.parametrize("C2", [0.1, 0.5, 0.9])
def test_fast_and_ipopt_agree_from_the_same_start_and_satisfy_kkt_of_20(instance, C2):
    pb = MinMaxFSProblem(*instance, C=5.0, C2=C2)
    f, i = fast(pb, gamma0=0.2), ipopt(pb, gamma0=0.2)
    for res in (f, i):
        # local methods: locally optimal with (20)'s KKT residual as the measure, never optimal
        assert res.status.value == "locally_optimal", res.message
        kkt = res.extra["kkt"]
        assert res.local["residual"] == kkt["kkt_residual"]
        assert kkt["kkt_residual"] < KKT_TOL, kkt
        assert kkt["feasibility"] < 1e-10
        # alpha solves the SVM dual at the returned gamma: its value is V(gamma)
        ll = lower_level(pb, res.gamma, tol=1e-12)
        assert res.objective == pytest.approx(pb.objective(ll.gamma, ll.value), rel=1e-7)
        assert res.objective < res.extra["start_objective"]        # better than NO-FS
    assert f.objective == pytest.approx(i.objective, rel=1e-6)
    np.testing.assert_allclose(f.gamma, i.gamma, atol=1e-3 * max(1.0, i.gamma.max()))
    # Ipopt's own (alpha, nu, lambda) already solved the lower level: (20a) there = (14a)
    assert abs(i.extra["lower_level_gap"]) < 1e-6   # >= 0 up to Ipopt's feasibility tol


def test_pyomo_route_of_ipopt_equals_the_callbacks(instance):
    X, y = instance
    pb = MinMaxFSProblem(X[:12], y[:12], C=5.0, C2=0.3)
    a = ipopt(pb, gamma0=0.2)
    b = ipopt(pb, gamma0=0.2, model="pyomo")
    assert a.objective == pytest.approx(b.objective, rel=1e-6)
    assert b.extra["kkt"]["kkt_residual"] < KKT_TOL


@pytest.mark.parametrize("p", [2.0, 0.5])
def test_other_exponents_never_end_worse_than_the_start(instance, p):
    pb = MinMaxFSProblem(*instance, C=5.0, C2=0.5, p=p)
    res = fast(pb, gamma0=0.2)
    assert res.objective <= res.extra["start_objective"]
    assert res.extra["kkt"]["complementarity"] < 1e-4
    if p > 1:
        assert res.extra["kkt"]["stationarity"] < KKT_TOL
        other = ipopt(pb, gamma0=0.2)
        assert other.objective == pytest.approx(res.objective, rel=1e-5)


def test_scip_bound_is_below_every_local_solution():
    X, y = make_instance(m=8, n=2, seed=1)
    pb = MinMaxFSProblem(X, y, C=2.0, C2=0.3)
    s = scip(pb, SolverPlan(time_limit=15), gamma0=0.5)
    f = fast(pb, gamma0=0.5)
    assert s.bound is not None and s.bound <= s.objective + 1e-9
    assert s.bound <= f.objective + 1e-6
    assert s.objective <= s.extra["start_objective"] + 1e-9


def test_time_limit_returns_the_best_point_so_far(instance):
    pb = MinMaxFSProblem(*instance, C=5.0, C2=0.1)
    plan = SolverPlan(time_limit=1e-3)
    res = fast(pb, plan, gamma0=0.2)
    assert res.termination.value == "time_limit" and res.has_solution
    assert res.objective <= res.extra["start_objective"] + 1e-12


def test_ipopt_refuses_another_solver_and_scip_refuses_big_data(instance):
    pb = MinMaxFSProblem(*instance)
    with pytest.raises(ValueError, match="runs Ipopt"):
        ipopt(pb, SolverPlan(solver="scip"))
    X, y = make_instance(m=70, n=10)
    with pytest.raises(ValueError, match="method='fast'"):
        scip(MinMaxFSProblem(X, y))


def test_ipopt_is_not_started_when_its_first_iteration_cannot_fit(instance, monkeypatch):
    """Ipopt reads its clock only after an iteration (4.3 s for the first on spambase): with
    less time left than the estimated first iteration the start point of Algorithm 1 is
    returned, time_limit, without calling Ipopt; with the time, Ipopt runs as before."""
    from sparsekm.algorithms.minmax_fs import nlp_routes

    pb = MinMaxFSProblem(*instance, C=5.0, C2=0.1)
    called = []
    solve0 = nlp_routes.solve
    monkeypatch.setattr(nlp_routes, "solve", lambda *a, **k: called.append(1) or solve0(*a, **k))
    assert nlp_routes.first_iteration_s(pb) < 1e-3          # 24 x 5: Ipopt runs
    ran = ipopt(pb, SolverPlan(time_limit=30.0), gamma0=0.2)
    assert called and ran.termination.value != "time_limit"
    monkeypatch.setattr(nlp_routes, "FIRST_ITERATION_S", 1e3)
    called.clear()
    res = ipopt(pb, SolverPlan(time_limit=30.0), gamma0=0.2)
    assert not called and res.termination.value == "time_limit"
    assert res.objective == pytest.approx(res.extra["start_objective"], rel=1e-12)
    assert "first iteration" in res.message
