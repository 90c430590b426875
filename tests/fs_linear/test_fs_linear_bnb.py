"""The bnb method (branch and bound with the perspective bound of paper D's (13) in m
variables) against enumeration, Algorithm 4 and an independent conic solver."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from fs_linear_instances import INSTANCES, enum_opt, get, prob

from sparsekm import registry
from sparsekm.algorithms.fs_linear import solve_fs_linear
from sparsekm.algorithms.svm import solve_svm
from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.relaxations.fs_linear.node import node_certificate, solve_node
from sparsekm.solvers import SolverError, SolverPlan

TOL = 1e-5


@pytest.mark.parametrize("key,B,C", INSTANCES)
def test_bnb_certifies_enumerated_optimum(key: str, B: int, C: float) -> None:
    opt, S, _ = enum_opt(key, B, C)
    res = solve_fs_linear(prob(key, B, C), "bnb", SolverPlan(time_limit=60), root_search="none")
    assert res.status.value == "optimal"
    assert math.isclose(res.objective, opt, rel_tol=TOL)
    assert tuple(res.selected) == S
    assert res.bound <= opt * (1 + 1e-9)          # a lower bound, never above the optimum
    assert res.gap <= 1e-4
    assert res.extra["nodes"] >= 1 and res.extra["open_nodes"] == 0


def test_bnb_with_local_bnb_incumbent_and_generic_solver() -> None:
    """The default root heuristic (the restricted problem by bnb itself) and the node SOCPs
    through the solver layer (Clarabel via ConicQP instead of the native interior-point
    path) give the same optimum."""
    key, B, C = "rand0", 3, 1.0
    opt, S, _ = enum_opt(key, B, C)
    res = solve_fs_linear(prob(key, B, C), "bnb",
                          SolverPlan(time_limit=60, relax_solver="clarabel"), k=2)
    assert res.status.value == "optimal" and tuple(res.selected) == S
    assert math.isclose(res.objective, opt, rel_tol=TOL) and res.bound <= opt * (1 + 1e-9)


@pytest.mark.parametrize("solver", ["scip", "gurobi"])
@pytest.mark.parametrize("key,B,C", [("rand0", 3, 1.0), ("rand1", 2, 10.0),
                                     ("wholesale", 3, 1.0)])
def test_bnb_agrees_with_algorithm_4(solver: str, key: str, B: int, C: float) -> None:
    try:
        ex = solve_fs_linear(prob(key, B, C), "exact", SolverPlan(solver=solver, time_limit=60),
                             s=2, rho=3)
    except SolverError as exc:
        pytest.skip(f"{solver}: {exc}")
    res = solve_fs_linear(prob(key, B, C), "bnb", SolverPlan(solver=solver, time_limit=60),
                          root_search="local-search", k=1)
    assert ex.status.value == res.status.value == "optimal"
    assert math.isclose(res.objective, ex.objective, rel_tol=TOL)
    assert res.selected == ex.selected


def _node_optimum(p: FSLinearProblem, F1: list[int], free: list[int], k: int) -> float:
    best = math.inf
    for extra in itertools.combinations(free, k):
        best = min(best, solve_svm(p.X, p.y, p.C, features=F1 + list(extra))[2])
    return best


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_node_bound_below_node_optimum(seed: int) -> None:
    """Weak duality at any feasible alpha (random ones too) and at the solved one: the node
    bound never exceeds the best support of the node (F1 fixed in, one feature fixed out)."""
    X, y = get(f"rand{seed}")
    p = FSLinearProblem(X, y, B=4, C=1.0)
    F1, out = [0], [5]
    free = [j for j in range(p.n) if j not in F1 + out]
    k = p.B - len(F1)
    opt = _node_optimum(p, F1, free, k)
    rng = np.random.default_rng(seed)
    for _ in range(5):
        val, a, _ = node_certificate(p, rng.uniform(0, p.C, p.m), np.array(F1), np.array(free),
                                     k)
        assert abs(a @ p.y) < 1e-9 and a.min() >= 0 and a.max() <= p.C
        assert val <= opt * (1 + 1e-12)
    nb = solve_node(p, SolverPlan(), np.array(F1), np.array(free), k)
    assert nb.bound <= opt * (1 + 1e-9)
    assert nb.bound > 0.5 * opt                    # and a real bound, not a trivial one
    assert math.isclose(nb.v.sum(), k, rel_tol=1e-6) or nb.v.sum() <= k + 1e-6


def test_root_bound_equals_dscop_with_two_node_solvers() -> None:
    """The root node bound is DSCoP (13) (conic duality): the dense interior-point path,
    Clarabel on the node SOCP and the registered DSCoP relaxation agree."""
    from sparsekm.relaxations.fs_linear import solve_relaxation

    X, y = get("rand2")
    p = FSLinearProblem(X, y, B=3, C=0.5)
    F1, free = np.zeros(0, int), np.arange(p.n)
    a = solve_node(p, SolverPlan(), F1, free, 3)
    b = solve_node(p, SolverPlan(relax_solver="clarabel"), F1, free, 3)
    d = solve_relaxation(p, "dscop", SolverPlan())
    assert math.isclose(a.bound, b.bound, rel_tol=1e-6)
    assert math.isclose(a.bound, d.bound, rel_tol=1e-6)


def test_bnb_limits_return_incumbent_bound_and_gap() -> None:
    p = prob("breast_cancer_wisconsin", 3, 0.1)
    opt, _, _ = enum_opt("breast_cancer_wisconsin", 3, 0.1)
    res = solve_fs_linear(p, "bnb", SolverPlan(), root_search="none", node_limit=1)
    assert res.status.value == "feasible" and res.termination.value == "node_limit"
    assert res.has_solution and len(res.selected) <= 3
    # the enumeration's optima come from a QP solver: equal to ~1e-12, so 1e-9 either way
    assert res.bound <= opt * (1 + 1e-9) and opt * (1 - 1e-9) <= res.objective
    assert res.gap is not None and res.gap > 0
    tl = solve_fs_linear(p, "bnb", SolverPlan(time_limit=0.05), root_search="none")
    assert tl.has_solution and tl.bound is not None and tl.bound <= opt * (1 + 1e-9)


def test_bnb_options_and_registry() -> None:
    p = prob("rand0", 3, 1.0)
    with pytest.raises(ValueError, match="root_search"):
        solve_fs_linear(p, "bnb", root_search="tabu")
    with pytest.raises(ValueError, match="branching"):
        solve_fs_linear(p, "bnb", branching="random")
    entry = registry.get("fs-linear", "method", "bnb")
    assert "Bertsimas" in entry.citation and "(13)" in entry.citation
    assert {"gap_tol", "node_limit", "root_search", "k", "rho"} <= set(entry.options)



def _large_m(seed: int, m: int = 800, n: int = 10) -> FSLinearProblem:
    """m > NATIVE_MAX_M samples: 3 informative features of n, labels with 2 % flipped (few
    support vectors, so the nodes shrink the samples)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, n))
    y = np.sign(X[:, :3] @ np.array([1.0, -0.8, 0.6]) + 0.3 * rng.standard_normal(m))
    y[rng.random(m) < 0.02] *= -1
    return FSLinearProblem(X, y, B=3, C=1.0)


@pytest.mark.parametrize("seed", [0, 1])
def test_shrunk_samples_give_the_full_node_bound(seed: int) -> None:
    """m > NATIVE_MAX_M with the parent's multipliers: the node SOCP keeps only a working set
    of samples (row generation); its certified bound equals the bound over all samples."""
    from sparsekm.relaxations.fs_linear.node import _initial_rows

    p = _large_m(seed)
    root = solve_node(p, SolverPlan(), np.zeros(0, int), np.arange(p.n), p.B)
    R = _initial_rows(p, root.alpha)
    assert R is not None and R.size < p.m / 2          # the shrunk path is the one tested
    order = np.argsort(-root.s2)
    F1, free = order[:1], np.sort(order[2:])          # best feature in, second best out
    full = solve_node(p, SolverPlan(), F1, free, p.B - 1, warm=(root.W, None))
    shrunk = solve_node(p, SolverPlan(), F1, free, p.B - 1, warm=(root.W, root.alpha))
    assert math.isclose(shrunk.bound, full.bound, rel_tol=1e-6)
    assert shrunk.bound >= root.bound - 1e-9 * abs(root.bound)


def test_bnb_with_shrunk_samples_certifies_enumerated_optimum() -> None:
    p = _large_m(2)
    opt = solve_fs_linear(p, "enumerate")
    res = solve_fs_linear(p, "bnb", SolverPlan(time_limit=120), root_search="none")
    assert res.status.value == "optimal" and res.selected == opt.selected
    assert math.isclose(res.objective, opt.objective, rel_tol=TOL)
    assert res.bound <= opt.objective * (1 + 1e-9)


def test_time_limit_holds_through_the_root_swaps_on_many_rows() -> None:
    """Many rows: the root's 1-swap search stops at the time limit and returns the incumbent
    with its certified bound (mfeat B = 30 ran 180 s past a 60 s limit before: the root's
    swaps had no deadline and each support on m > 600 rows went to the QP solver)."""
    import time

    rng = np.random.default_rng(3)
    m, n = 800, 120
    X = rng.standard_normal((m, n))
    y = np.where(X[:, :10].sum(axis=1) + rng.standard_normal(m) > 0, 1.0, -1.0)
    p = FSLinearProblem(X, y, B=20, C=10.0)
    t0 = time.perf_counter()
    res = solve_fs_linear(p, "bnb", SolverPlan(time_limit=3.0))
    assert time.perf_counter() - t0 < 3.0 + 5.0
    assert res.status.value in ("feasible", "optimal") and res.has_solution
    assert res.bound is not None and res.bound <= res.objective * (1 + 1e-9)


def test_after_the_time_limit_the_incumbent_is_not_polished_by_the_qp_solver(monkeypatch):
    """A run stopped by its time limit returns the incumbent as the native interior point
    solved it: no QP solve (finding and probing that solver took ~0.5 s past the limit); with
    time left, the QP solver's point is taken when lower, as before."""
    from sparsekm.algorithms.fs_linear import bnb as bnb_module

    p = prob("rand0", 3, 1.0)
    calls = []
    real = bnb_module.support_result
    monkeypatch.setattr(bnb_module, "support_result",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    res = solve_fs_linear(p, "bnb", SolverPlan(time_limit=1e-3), root_search="none")
    assert res.has_solution and res.termination.value == "time_limit" and not calls
    res = solve_fs_linear(p, "bnb", SolverPlan(time_limit=60), root_search="none")
    assert res.status.value == "optimal" and calls


@pytest.mark.parametrize("key,B,C", [("rand0", 3, 1.0), ("breast_cancer_wisconsin", 3, 0.1)])
def test_deferred_branching_certifies_on_one_and_two_workers(key: str, B: int,
                                                              C: float) -> None:
    """Deferred branching (a node re-queued once, unbranched, when its own bound rose above
    its queued one): the enumerated optimum on 1 and 2 workers (the same run with batch 2),
    some nodes deferred, and a run stopped after two nodes, with a deferred node open (its
    bound its own solve's), keeps a bound below it."""
    from sparsekm.parallel import Executor

    opt, S, _ = enum_opt(key, B, C)
    kw = dict(root_search="none", batch=2)           # the default defer
    one = solve_fs_linear(prob(key, B, C), "bnb", SolverPlan(time_limit=120), **kw)
    ex = Executor(workers=2)
    with ex.session():
        two = solve_fs_linear(prob(key, B, C), "bnb",
                              SolverPlan(time_limit=120, executor=ex), **kw)
    for res in (one, two):
        assert res.status.value == "optimal" and tuple(res.selected) == S
        assert math.isclose(res.objective, opt, rel_tol=TOL) and res.bound <= opt * (1 + 1e-9)
        assert res.extra["deferred"] >= 1
    assert one.extra["nodes"] == two.extra["nodes"] and one.bound == two.bound
    cut = solve_fs_linear(prob(key, B, C), "bnb", SolverPlan(time_limit=120),
                          root_search="none", node_limit=2)
    assert cut.extra["deferred"] >= 1 and cut.extra["open_nodes"] >= 1   # one open, deferred
    assert cut.bound <= opt * (1 + 1e-9)
