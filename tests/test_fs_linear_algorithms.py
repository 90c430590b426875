"""Paper D, Algorithms 1-4 on small instances against the enumerated optimum of (2)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_fs_linear_instances import enum_opt, get

from sparsekm.algorithms.fs_linear_exact import exact
from sparsekm.algorithms.fs_linear_heuristic import heuristic
from sparsekm.algorithms.fs_linear_kernel_search import kernel_search
from sparsekm.algorithms.fs_linear_local_search import local_search
from sparsekm.models.fs_linear import svm_objective
from sparsekm.solvers import SolverError

TOL = 1e-5
CASES = [("rand0", 3, 1.0), ("rand1", 2, 10.0), ("breast_cancer_wisconsin", 3, 0.1)]


def _feasible(res, X, y, B, C, opt) -> None:
    assert res.has_solution
    assert len(res.selected) <= B
    nz = np.flatnonzero(np.abs(res.w) > 0)
    assert set(nz) <= set(res.selected)
    assert math.isclose(svm_objective(X, y, C, res.w, res.b), res.objective, rel_tol=1e-9)
    assert res.objective >= opt * (1 - TOL)


@pytest.mark.parametrize("key,B,C", CASES)
def test_local_and_kernel_search_feasible_above_optimum(key: str, B: int, C: float) -> None:
    X, y = get(key)
    opt, _, _ = enum_opt(key, B, C)
    for res in (local_search(X, y, B, C, k=1), kernel_search(X, y, B, C, rho=2),
                kernel_search(X, y, B, C, rho=4)):
        _feasible(res, X, y, B, C, opt)
        assert res.lower_bound <= opt * (1 + TOL)   # the DSCoP bound
    ks = kernel_search(X, y, B, C, rho=2)
    assert ks.log and ks.log[0]["status"] in ("optimal", "feasible")


@pytest.mark.parametrize("strategy", ["local-search", "kernel-search"])
def test_heuristic_bounds(strategy: str) -> None:
    key, B, C = "rand0", 3, 1.0
    X, y = get(key)
    opt, _, winf = enum_opt(key, B, C)
    res = heuristic(X, y, B, C, strategy=strategy, k=1, rho=3)
    _feasible(res, X, y, B, C, opt)
    assert res.lower_bound <= opt * (1 + TOL) <= res.objective * (1 + 2 * TOL)
    assert res.info["M"] >= winf * (1 - 1e-5)         # Proposition 4.1 M is valid
    assert res.info["test9"] == (res.info["M"] < res.info["svm_l1_over_B"])


@pytest.mark.parametrize("solver", ["scip", "gurobi"])
@pytest.mark.parametrize("key,B,C", CASES[:2] + [("wholesale", 3, 1.0)])
def test_exact_reaches_enumerated_optimum(solver: str, key: str, B: int, C: float) -> None:
    """Algorithm 4 certifies the enumerated optimum (gap < 0.01%) with SCIP and Gurobi for
    both the CoP(K) MIQPs and the SR-DLMP(K) MISOCPs."""
    X, y = get(key)
    opt, S, _ = enum_opt(key, B, C)
    try:
        res = exact(X, y, B, C, s=2, rho=3, miqp_solver=solver, misocp_solver=solver,
                    time_limit=60)
    except SolverError as exc:
        pytest.skip(f"{solver}: {exc}")
    assert res.status == "optimal"
    assert math.isclose(res.objective, opt, rel_tol=TOL)
    assert tuple(res.selected) == S
    assert res.lower_bound <= opt * (1 + TOL)
    assert res.gap < 1e-4
    assert res.log[0]["iter"] == 0 and all("LB" in r and "UB" in r for r in res.log)
    lbs = [r["LB"] for r in res.log]
    assert all(b >= a for a, b in zip(lbs, lbs[1:], strict=False))


def test_exact_time_limit_returns_incumbent() -> None:
    X, y = get("rand0")
    res = exact(X, y, 3, 1.0, s=1, rho=2, time_limit=0.5)
    assert res.status == "time_limit"
    assert res.has_solution and len(res.selected) <= 3


def test_kernel_search_time_limit_keeps_incumbent() -> None:
    """A (tiny) global limit still returns a feasible point of (2), status time_limit."""
    X, y = get("rand0")
    opt, _, _ = enum_opt("rand0", 3, 1.0)
    res = kernel_search(X, y, 3, 1.0, rho=1, time_limit=0.2)
    assert res.status == "time_limit"
    _feasible(res, X, y, 3, 1.0, opt)


def test_algorithm_parameter_errors() -> None:
    X, y = get("rand0")
    with pytest.raises(ValueError, match="rho"):
        kernel_search(X, y, 3, 1.0, rho=0)
    with pytest.raises(ValueError, match="k=-1"):
        local_search(X, y, 3, 1.0, k=-1)
    with pytest.raises(ValueError, match="strategy"):
        heuristic(X, y, 3, 1.0, strategy="bogus")
    with pytest.raises(ValueError, match="s=0"):
        exact(X, y, 3, 1.0, s=0)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["wholesale", "breast_cancer_wisconsin", "cleveland",
                                  "diabetes"])
@pytest.mark.parametrize("B", [2, 5])
def test_exact_on_real_subsamples_slow(name: str, B: int) -> None:
    """Algorithm 4 (SCIP) = enumeration on 120-row subsamples of the small UCI sets."""
    from test_fs_linear_instances import real_instance

    from sparsekm.models.fs_linear import enumerate_supports

    X, y, _ = real_instance(name, rows=120)
    opt = enumerate_supports(X, y, B, 10.0)[0]
    res = exact(X, y, B, 10.0, s=3, rho=5, time_limit=300)
    assert res.status == "optimal"
    assert math.isclose(res.objective, opt, rel_tol=1e-5)
    ks = kernel_search(X, y, B, 10.0, rho=5)
    assert ks.objective >= opt * (1 - 1e-6)
