"""Paper D, Section 2 and (16)/(21): exact MIQP models against enumeration of all supports."""

from __future__ import annotations

import math

import numpy as np
import pytest
from fs_linear_instances import enum_opt, get, prob

from sparsekm.algorithms import solve_formulation
from sparsekm.algorithms.svm import solve_svm
from sparsekm.models.fs_linear import (
    FSLinearProblem,
    add_new_feature_cut,
    add_objective_cut,
    bigm_model,
    cop_model,
    estimate_big_m,
    sr_dlmp_model,
)
from sparsekm.models.svm import svm_primal_model
from sparsekm.relaxations.fs_linear import solve_relaxation
from sparsekm.solvers import SolverError, SolverPlan, solve

TOL = 1e-5


def _try(problem, model, solver):
    try:
        return solve_formulation(problem, model, SolverPlan(solver=solver), time_limit=60)
    except SolverError as exc:  # commercial solver absent or over its size limit
        pytest.skip(f"{solver}: {exc}")


CASES = [("rand0", 3, 1.0), ("wholesale", 3, 1.0)]


@pytest.mark.parametrize("solver", ["scip", "gurobi"])
@pytest.mark.parametrize("key,B,C", CASES)
def test_bigmp_and_cop_reach_enumerated_optimum(solver: str, key: str, B: int, C: float
                                                ) -> None:
    """BigMP (6) (= B and <= B), CoP (7) (bilinear and perspective) reach the optimum of (2)
    found by enumerating all C(n, B) supports, with two different MIQP solvers."""
    opt, S, _ = enum_opt(key, B, C)
    eq, le = prob(key, B, C), prob(key, B, C, cardinality="le")
    M = estimate_big_m(eq)
    cases = [(eq, bigm_model(eq, M)), (le, bigm_model(le, M)), (eq, cop_model(eq)),
             (le, cop_model(le)), (eq, cop_model(eq, form="perspective"))]
    for p, mdl in cases:
        res = _try(p, mdl, solver)
        assert res.status.value == "optimal", (mdl.name, res.message)
        assert math.isclose(res.objective, opt, rel_tol=TOL), (mdl.name, res.objective, opt)
        assert tuple(res.selected) == S
        assert res.bound <= opt * (1 + TOL)
        assert math.isclose(res.extra["solver_objective"], opt, rel_tol=2e-4)


def test_restricted_cop_cuts_and_infeasibility() -> None:
    """CoP(K) (16): (17) objective <= UB below the optimum is infeasible (a normal status);
    (18) forces a feature of the new bucket."""
    key, B, C = "rand0", 3, 1.0
    p = prob(key, B, C, cardinality="le")
    opt, S, _ = enum_opt(key, B, C)
    K = list(range(p.n))
    plan = SolverPlan()
    res = solve_formulation(p, add_objective_cut(cop_model(p, K=K), opt * 0.99), plan)
    assert res.status.value == "infeasible" and not res.has_solution
    new = [j for j in K if j not in S][:3]
    res = solve_formulation(p, add_new_feature_cut(cop_model(p, K=K), new), plan)
    assert set(res.selected) & set(new)
    assert res.objective > opt * (1 + 1e-6)
    # restricted to a subset smaller than B: "<= B" keeps it feasible, w = 0 outside K
    res = solve_formulation(p, cop_model(p, K=[5, 6]), plan)
    assert set(res.selected) <= {5, 6}
    assert math.isclose(res.objective, solve_svm(p.X, p.y, C, features=[5, 6])[2], rel_tol=1e-6)
    assert res.bound is None  # CoP(K)'s bound is not a bound on (2)


def test_sr_dlmp_bounds() -> None:
    """SR-DLMP(K) (21): K = {} gives the DSCoP (13) bound, any K a bound <= optimum, and
    K = [1:n] the optimum itself (both forms)."""
    key, B, C = "rand0", 3, 1.0
    p = prob(key, B, C)
    opt, _, _ = enum_opt(key, B, C)
    dscop = solve_relaxation(p, "dscop").bound
    r0 = solve(sr_dlmp_model(p, K=[]))
    assert math.isclose(r0.objective, dscop, rel_tol=1e-5)
    M = estimate_big_m(p)
    prev = dscop
    for K in ([0, 1], [0, 1, 2, 3], list(range(p.n))):
        for form in ("perspective", "paper"):
            r = solve(sr_dlmp_model(p, K=K, M=M, form=form), mip_gap=1e-8)
            assert r.bound <= opt * (1 + TOL)
            assert r.bound >= prev * (1 - 1e-4)
        prev = r.bound
    assert math.isclose(prev, opt, rel_tol=2e-4)


@pytest.mark.parametrize("solver", [None, "highs", "scs"])
def test_plain_and_elastic_net_svm(solver: str | None) -> None:
    """SVM (1) Pyomo model = the matrix QP on any QP solver (the solver flag reaches it);
    EN-SVM (Sec. 5.4) with a huge l1 gives w = 0."""
    X, y = get("rand1")
    w, b, obj = solve_svm(X, y, 10.0, solver=solver)
    r = solve(svm_primal_model(X, y, 10.0))
    assert math.isclose(r.objective, obj, rel_tol=1e-6 if solver != "scs" else 1e-4)
    w_en, _, _ = solve_svm(X, y, 1.0, l1=1e4)
    assert np.allclose(w_en, 0.0, atol=1e-6)
    w_en2, _, obj2 = solve_svm(X, y, 10.0, l1=16.0)
    assert np.count_nonzero(np.abs(w_en2) > 1e-6) < np.count_nonzero(np.abs(w) > 1e-6)
    r2 = solve(svm_primal_model(X, y, 10.0, l1=16.0))
    assert math.isclose(r2.objective, obj2, rel_tol=1e-5)


@pytest.mark.parametrize("kw,msg", [
    (dict(B=2.5), "B=2.5: give an integer"), (dict(B=0), "B=0: give an integer >= 1"),
    (dict(C=0.0), "C=0.0: give a finite number >= 1e-08"),
    (dict(y1=True), "one class"), (dict(cardinality="lt"), "cardinality"),
])
def test_bad_input_messages(kw: dict, msg: str) -> None:
    X, y = get("rand0")
    if kw.pop("y1", False):
        y = np.ones_like(y)
    with pytest.raises(ValueError, match=msg):
        FSLinearProblem(X, y, **{"B": 3, "C": 1.0, **kw})
    with pytest.raises(ValueError, match="2-D"):
        FSLinearProblem(X[0], y)


def test_budget_of_at_least_n_is_stored_as_n() -> None:
    """(2) says "at most B": B >= n leaves every feature free (the plain SVM (1))."""
    X, y = get("rand0")
    p = FSLinearProblem(X, y, B=50, C=1.0)
    assert p.B == p.n == 8 and p.unconstrained
    assert not FSLinearProblem(X, y, B=7, C=1.0).unconstrained


@pytest.mark.parametrize("key,B", [("rand0", 3), ("rand0", 5)])
def test_big_m_by_the_native_svm_equals_the_solver_layers(key: str, B: int) -> None:
    """M = sqrt(2 UB) of Remark 3.2 from the native interior-point SVM (the default, 5x
    faster on madelon) and from Clarabel through the solver layer agree; both UB are a
    feasible point's value, so M is valid either way: at least |w_j| of the enumerated
    optimum."""
    p = prob(key, B, 1.0)
    native = estimate_big_m(p)
    w_full = solve_svm(p.X, p.y, p.C, solver="clarabel")[0]
    top = np.argsort(-np.abs(w_full), kind="stable")[:B]
    layer = math.sqrt(2 * solve_svm(p.X, p.y, p.C, features=top, solver="clarabel")[2])
    assert native == pytest.approx(layer, rel=1e-6)
    w_inf = enum_opt(key, B, 1.0)[2]
    assert native >= w_inf - 1e-9


def test_restricted_cop_is_not_built_when_the_time_is_up(monkeypatch) -> None:
    """Local and Kernel Search skip CoP(K) once the limit has passed (building and starting
    it took 0.7 s past a 5 s limit on madelon): no point, termination time_limit."""
    import time

    from sparsekm.algorithms.fs_linear import common

    monkeypatch.setattr(common, "cop_model", lambda *a, **k: pytest.fail("built"))
    plan = SolverPlan(time_limit=0.01).start()
    time.sleep(0.02)
    r = common.solve_restricted(prob("rand0", 3, 1.0), plan, [0, 1, 2, 3], "bilinear")
    assert not r.has_solution and r.termination.value == "time_limit"


def test_svm_weights_native_equal_the_solver_layers() -> None:
    """The plain SVM's w used by the heuristic's test (9), ||w||_1 / B, from the native
    method (default) and from Clarabel agree (it ran 9 s outside any limit on madelon)."""
    from sparsekm.models.fs_linear.bigm import svm_weights

    p = prob("rand0", 3, 1.0)
    w = svm_weights(p)
    w_ref = solve_svm(p.X, p.y, p.C)[0]
    np.testing.assert_allclose(w, w_ref, rtol=1e-5, atol=1e-6)
    assert np.abs(w).sum() == pytest.approx(np.abs(w_ref).sum(), rel=1e-6)
