"""Paper D, Algorithms 1-4 on small instances against the enumerated optimum of (2)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from fs_linear_instances import enum_opt, get, prob

from sparsekm.algorithms.fs_linear import solve_fs_linear
from sparsekm.models.svm import svm_objective
from sparsekm.solvers import SolverError, SolverPlan


def run(key, B, C, method, plan=None, **kw):
    return solve_fs_linear(prob(key, B, C), method, plan, **kw)

TOL = 1e-5
CASES = [("rand0", 3, 1.0), ("rand1", 2, 10.0), ("breast_cancer_wisconsin", 3, 0.1)]


def _feasible(res, X, y, B, C, opt) -> None:
    assert res.has_solution
    assert len(res.selected) <= B
    nz = np.flatnonzero(np.abs(res.w) > 0)
    assert set(nz) <= set(res.selected)
    assert math.isclose(svm_objective(X, y, C, res.w, res.b), res.objective, rel_tol=1e-9)
    assert res.objective >= opt * (1 - TOL)
    assert res.bound is None or res.bound <= res.objective


@pytest.mark.parametrize("key,B,C", CASES)
def test_local_and_kernel_search_feasible_above_optimum(key: str, B: int, C: float) -> None:
    X, y = get(key)
    opt, _, _ = enum_opt(key, B, C)
    for res in (run(key, B, C, "local-search", k=1), run(key, B, C, "kernel-search", rho=2),
                run(key, B, C, "kernel-search", rho=4)):
        _feasible(res, X, y, B, C, opt)
        assert res.bound <= opt * (1 + TOL)   # the DSCoP bound
    ks = run(key, B, C, "kernel-search", rho=2)
    assert ks.log and ks.log[0]["status"] in ("optimal", "feasible")
    # measured on these instances: Kernel Search reaches the enumerated optimum (a regression
    # check: a broken subproblem solve falls back to worse incumbents)
    assert math.isclose(ks.objective, opt, rel_tol=TOL)


@pytest.mark.parametrize("strategy", ["local-search", "kernel-search"])
def test_heuristic_bounds(strategy: str) -> None:
    key, B, C = "rand0", 3, 1.0
    X, y = get(key)
    opt, _, winf = enum_opt(key, B, C)
    res = run(key, B, C, "heuristic", strategy=strategy, k=1, rho=3)
    _feasible(res, X, y, B, C, opt)
    assert res.bound <= opt * (1 + TOL) <= res.objective * (1 + 2 * TOL)
    assert res.extra["M"] >= winf * (1 - 1e-5)         # Proposition 4.1 M is valid
    assert res.extra["test9"] == (res.extra["M"] < res.extra["svm_l1_over_B"])


@pytest.mark.parametrize("solver", ["scip", "gurobi"])
@pytest.mark.parametrize("key,B,C", CASES[:2] + [("wholesale", 3, 1.0)])
def test_exact_reaches_enumerated_optimum(solver: str, key: str, B: int, C: float) -> None:
    """Algorithm 4 certifies the enumerated optimum (gap < 0.01%) with SCIP and Gurobi for
    both the CoP(K) MIQPs and the SR-DLMP(K) MISOCPs."""
    opt, S, _ = enum_opt(key, B, C)
    try:
        res = run(key, B, C, "exact", SolverPlan(solver=solver, time_limit=60), s=2, rho=3)
    except SolverError as exc:
        pytest.skip(f"{solver}: {exc}")
    assert res.status.value == "optimal"
    assert math.isclose(res.objective, opt, rel_tol=TOL)
    assert tuple(res.selected) == S
    assert res.bound <= opt * (1 + TOL)
    assert res.gap < 1e-4
    assert res.log[0]["iter"] == 0 and all("LB" in r and "UB" in r for r in res.log)
    lbs = [r["LB"] for r in res.log]
    assert all(b >= a for a, b in zip(lbs, lbs[1:], strict=False))


def test_exact_time_limit_returns_incumbent() -> None:
    res = run("rand0", 3, 1.0, "exact", SolverPlan(time_limit=0.5), s=1, rho=2)
    assert res.termination.value == "time_limit" and res.status.value in ("feasible", "optimal")
    assert res.has_solution and len(res.selected) <= 3
    assert res.bound is None or res.bound <= res.objective


def test_kernel_search_time_limit_keeps_incumbent() -> None:
    """A (tiny) global limit still returns a feasible point of (2), status time_limit."""
    X, y = get("rand0")
    opt, _, _ = enum_opt("rand0", 3, 1.0)
    res = run("rand0", 3, 1.0, "kernel-search", SolverPlan(time_limit=0.2), rho=1)
    assert res.termination.value == "time_limit"
    _feasible(res, X, y, 3, 1.0, opt)


def test_algorithm_parameter_errors() -> None:
    with pytest.raises(ValueError, match="rho"):
        run("rand0", 3, 1.0, "kernel-search", rho=0)
    with pytest.raises(ValueError, match="k=-1"):
        run("rand0", 3, 1.0, "local-search", k=-1)
    with pytest.raises(ValueError, match="strategy"):
        run("rand0", 3, 1.0, "heuristic", strategy="bogus")
    with pytest.raises(ValueError, match="s=0"):
        run("rand0", 3, 1.0, "exact", s=0)
    with pytest.raises(ValueError, match="takes no option 'rho'"):
        run("rand0", 3, 1.0, "local-search", rho=3)
    with pytest.raises(ValueError, match="unknown method 'magic'"):
        run("rand0", 3, 1.0, "magic")


@pytest.mark.parametrize("method", ["cop", "bigm"])
def test_miqp_warm_start_from_kernel_search(method: str) -> None:
    """CoP* / BigMP*: a solver run of 1 s starts from the Kernel Search incumbent, so it is
    never worse than it; --no-warm-start runs cold (paper D, Table 5)."""
    key, B, C = "wholesale", 3, 1.0
    opt, _, _ = enum_opt(key, B, C)
    warm = run(key, B, C, method, SolverPlan(time_limit=20), warm="kernel-search")
    ks = run(key, B, C, "kernel-search")
    assert warm.extra["warm_start"]["method"] == "kernel-search"
    assert warm.objective <= ks.objective * (1 + 1e-9)
    assert math.isclose(warm.objective, opt, rel_tol=TOL)
    cold = run(key, B, C, method, SolverPlan(warm_start=False, time_limit=20))
    assert cold.extra["warm_start"] is None and cold.objective >= opt * (1 - TOL)


@pytest.mark.parametrize("warm", ["kernel-search", "fast"])
def test_miqp_without_time_to_load_returns_the_warm_start(monkeypatch, warm: str) -> None:
    """When the time left cannot even load the MIQP, bigm returns the warm start's point
    (Kernel Search, or ``fast``: the default) with its certified bound as a time-limit result
    instead of overshooting the limit."""
    import sparsekm.algorithms.fs_linear.direct as direct

    key, B, C = "wholesale", 3, 1.0
    start = run(key, B, C, warm)
    monkeypatch.setattr(direct, "LOAD_S_PER_NNZ", 1e3)
    kw = {} if warm == "fast" else {"warm": warm}
    res = run(key, B, C, "bigm", SolverPlan(time_limit=30), **kw)
    assert res.termination.value == "time_limit" and "no room for the MIQP" in res.message
    assert res.extra["warm_start"]["method"] == warm
    assert math.isclose(res.objective, start.objective, rel_tol=1e-12)
    assert math.isclose(res.bound, start.bound, rel_tol=1e-9) and res.time_s < 30


@pytest.mark.slow
@pytest.mark.parametrize("name", ["wholesale", "breast_cancer_wisconsin", "cleveland",
                                  "diabetes"])
@pytest.mark.parametrize("B", [2, 5])
def test_exact_on_real_subsamples_slow(name: str, B: int) -> None:
    """Algorithm 4 (SCIP) = enumeration on 120-row subsamples of the small UCI sets."""
    from fs_linear_instances import real_instance

    from sparsekm.models.fs_linear import FSLinearProblem

    X, y, _ = real_instance(name, rows=120)
    p = FSLinearProblem(X, y, B=B, C=10.0)
    opt = solve_fs_linear(p, "enumerate").objective
    res = solve_fs_linear(p, "exact", SolverPlan(time_limit=300), s=3, rho=5)
    assert res.status.value == "optimal"
    assert math.isclose(res.objective, opt, rel_tol=1e-5)
    ks = solve_fs_linear(p, "kernel-search", rho=5)
    assert ks.objective >= opt * (1 - 1e-6)
