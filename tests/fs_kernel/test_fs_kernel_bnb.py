"""Branch and bound over masks (margin sense, poly kernels): equals enumeration, valid bounds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sparsekm.algorithms.fs_kernel.bnb import branch_and_bound
from sparsekm.algorithms.fs_kernel.enumerate import enumerate_masks
from sparsekm.algorithms.fs_kernel.node_bound import (
    fixed_alpha_value,
    node_bound,
    quad_terms,
)
from sparsekm.kernels import mask_from_indices
from sparsekm.models.fs_kernel import FSKernelProblem, random_masks
from sparsekm.solvers import SolverPlan


def _problem(seed: int, degree: int, m: int = 40, n: int = 9, B: int = 4,
             sense: str = "margin", kernel: str = "poly") -> FSKernelProblem:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    f = X[:, 0] ** 2 + X[:, 1] - 0.8 * X[:, 2] * X[:, 3] + 0.3 * rng.normal(size=m)
    y = np.where(f > np.median(f), 1.0, -1.0)
    kw = {"degree": degree} if kernel == "poly" else {}
    return FSKernelProblem(X, y, B=B, C=10.0, kernel=kernel, sense=sense, **kw)


def _feasible_alpha(p: FSKernelProblem, seed: int) -> np.ndarray:
    a = np.random.default_rng(seed).uniform(0, p.C, p.m)
    pos, neg = p.y > 0, p.y < 0
    if a[pos].sum() > a[neg].sum():
        a[pos] *= a[neg].sum() / a[pos].sum()
    else:
        a[neg] *= a[pos].sum() / a[neg].sum()
    return a


def test_quadratic_decomposition_equals_the_kernel():
    """Section 2.2 for d = 2: f(alpha, beta) = 1/2 beta'Q beta + l'beta + const exactly."""
    p = _problem(0, 2)
    a = _feasible_alpha(p, 1)
    Q, l, c = quad_terms(p, a)
    masks = np.array(random_masks(p.n, p.B, 5, 0))
    direct = fixed_alpha_value(p, a, masks)
    quad = np.array([0.5 * b @ Q @ b + l @ b + c for b in masks.astype(float)])
    assert np.allclose(quad, direct, rtol=1e-10)
    assert (Q >= 0).all()


@pytest.mark.parametrize("degree", [2, 3])
def test_node_bound_dominates_fixed_alpha_values(degree):
    """The node bound is >= f(alpha, beta) >= v(beta) for every mask of the node."""
    import itertools

    p = _problem(2, degree, n=8)
    a = _feasible_alpha(p, 3)
    inc = mask_from_indices([1], p.n)
    free = ~inc
    free[5] = False
    r = p.B - 1
    ub, cand = node_bound(p, a, inc, free, r)
    U = np.flatnonzero(free)
    masks = np.array([inc | mask_from_indices(U[list(c)], p.n)
                      for c in itertools.combinations(range(U.size), r)])
    vals = fixed_alpha_value(p, a, masks)
    assert ub >= vals.max() - 1e-9 * abs(vals.max())
    assert ub == pytest.approx(vals.max(), rel=1e-10)  # small node: exact
    assert cand is not None and cand.sum() == p.B and cand[1] and not cand[5]


@pytest.mark.parametrize("degree", [2, 3])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bnb_equals_enumeration(seed, degree):
    p = _problem(seed, degree)
    e = enumerate_masks(p, SolverPlan(), workers=1)
    r = branch_and_bound(p, SolverPlan(), seed=seed, n_samples=30)
    assert r.status.value == "optimal"
    assert r.objective == pytest.approx(e.objective, rel=1e-7)
    objs = e.extra["objectives"]
    tol = 1e-7 * abs(e.objective)
    winners = np.flatnonzero(objs >= e.objective - tol)
    combos = list(itertools_combos(p.n, p.B))
    assert tuple(r.selected) in {combos[k] for k in winners}  # an optimal mask (up to ties)
    assert r.bound >= e.objective - tol and r.extra["root_bound"] >= e.objective - tol


def itertools_combos(n: int, B: int):
    import itertools

    return itertools.combinations(range(n), B)


def test_bnb_quadratic_bound_prunes_larger_instance():
    """n = 14, B = 5 (2002 masks): certified optimum with fewer SVM solves than masks."""
    p = _problem(4, 2, m=50, n=14, B=5)
    e = enumerate_masks(p, SolverPlan(), workers=1)
    r = branch_and_bound(p, SolverPlan(), n_samples=50)
    assert r.status.value == "optimal"
    assert r.objective == pytest.approx(e.objective, rel=1e-7)
    assert r.extra["svm_solves"] < math.comb(p.n, p.B)


def test_bnb_time_limit_keeps_incumbent_and_valid_bound():
    p = _problem(5, 2, m=60, n=16, B=6)
    r = branch_and_bound(p, SolverPlan(time_limit=0.5), n_samples=20)
    assert len(r.selected) == p.B and math.isfinite(r.objective)
    assert r.bound is not None and r.bound >= r.objective
    if r.termination.value == "time_limit":
        assert r.extra["open_nodes"] >= 0


def test_bnb_bad_input():
    with pytest.raises(ValueError, match="margin sense"):
        branch_and_bound(_problem(0, 2, sense="paper"), SolverPlan())
    with pytest.raises(ValueError, match="polynomial kernel"):
        branch_and_bound(_problem(0, 2, kernel="rbf"), SolverPlan())


def test_cli_bnb_json():
    import json

    from typer.testing import CliRunner

    from sparsekm.cli.app import app

    r = CliRunner().invoke(app, ["solve", "fs-kernel", "--data", "cleveland", "--rows", "80",
                                 "--method", "bnb", "--B", "3", "--samples", "30", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["method"] == "bnb" and len(out["selected"]) == 3
    assert out["status"] == "optimal" and out["gap"] <= 1e-6  # 286 masks: the tree closes


@pytest.mark.parametrize("workers", [1, 2])
def test_enumeration_returns_the_best_masks_svm_without_solving_again(monkeypatch, workers):
    """The chunk that met the best mask hands back its SVM: the caller solves none (its first
    solve loaded the compiled solver after the limit, 0.78 s). The (alpha, b) are those of an
    SVM solved at that mask directly, then refined to a 1e-9 duality gap, and the objective
    is its certified side (-P in the margin sense, below libsvm's D); the same on 1 and 2
    workers."""
    from sparsekm.algorithms.fs_kernel.evaluator import (
        Evaluator,
        alpha_subproblem,
        certified_value,
    )

    p = _problem(6, 2, m=40, n=12, B=4)    # 495 masks: 2 workers run 8 chunks
    monkeypatch.setattr(Evaluator, "solve_mask", lambda *a: pytest.fail("solved again"))
    e = enumerate_masks(p, SolverPlan(), workers=workers)
    assert e.status.value == "optimal"
    beta = e.values["beta"]
    K = Evaluator(p).kernel(beta)
    alpha, b, v = alpha_subproblem(K, p.y, p.C)
    value, other, a_ref, b_ref = certified_value(p, beta, alpha)
    assert np.allclose(e.values["alpha"], a_ref, atol=1e-10)
    assert e.values["b"] == pytest.approx(b_ref) and e.objective == value
    assert value <= other <= v and other - value <= 1e-9 * abs(value)
    assert e.objective == pytest.approx(np.nanmax(e.extra["objectives"]), rel=1e-6)


def test_enumeration_never_records_an_svm_cut_short_by_the_clock(monkeypatch):
    """In its last second a chunk caps each SVM by the time left; a solve that comes back
    unconverged (here every capped one) leaves its mask unevaluated (NaN) instead of
    recording a value that is not the mask's. Uncapped (no limit) all masks are solved.
    The method registers a warm-up, so forked workers inherit the loaded solver."""
    import time

    from sparsekm import registry
    from sparsekm.algorithms.fs_kernel import enumerate as en
    from sparsekm.engines import smo
    from sparsekm.solvers import Termination

    p = _problem(6, 2, m=40, n=8, B=3)
    solve0 = smo.solve_svm_dual

    def capped(K, y, C, options=None):
        r = solve0(K, y, C, options=options)
        if options is not None and options.time_limit is not None:
            r.termination = Termination.ITERATION_LIMIT
        return r

    monkeypatch.setattr(smo, "solve_svm_dual", capped)
    obj, _, _ = en._chunk(p, 1, 20, until=time.time() + 0.5)
    assert np.isnan(obj).all()
    obj, _, _ = en._chunk(p, 1, 20, until=None)
    assert np.isfinite(obj).all()
    assert registry.get("fs-kernel", "method", "enumerate").warm_up is not None
