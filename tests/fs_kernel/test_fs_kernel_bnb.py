"""Branch and bound over masks (both senses, poly and rbf): equals enumeration, valid bounds.

Every claim is checked against an independent route: libsvm at every mask of the problem or
of a node (:mod:`sparsekm.algorithms.fs_kernel.enumerate`, the same solver the paper uses).
"""

from __future__ import annotations

import itertools
import math
import time

import numpy as np
import pytest

from sparsekm.algorithms.fs_kernel.bnb import branch_and_bound
from sparsekm.algorithms.fs_kernel.child_bounds import child_bounds
from sparsekm.algorithms.fs_kernel.enumerate import enumerate_masks
from sparsekm.algorithms.fs_kernel.evaluator import alpha_subproblem
from sparsekm.algorithms.fs_kernel.kernel_bounds import NodeBounds
from sparsekm.algorithms.fs_kernel.mask_scan import CANDIDATE, DONE, POLY, RBF, scan_masks
from sparsekm.algorithms.fs_kernel.node_bound import quad_terms
from sparsekm.algorithms.tree import SearchOptions
from sparsekm.kernels import kernel_matrix, mask_from_indices
from sparsekm.models.fs_kernel import FSKernelProblem
from sparsekm.parallel import Executor
from sparsekm.solvers import SolverPlan

KERNELS = [("poly", 2), ("poly", 3), ("rbf", 2)]


def _problem(seed: int, kernel: str = "poly", degree: int = 2, m: int = 30, n: int = 10,
             B: int = 4, sense: str = "margin") -> FSKernelProblem:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    f = X[:, 0] ** 2 + X[:, 1] - 0.8 * X[:, 2] * X[:, 3] + 0.3 * rng.normal(size=m)
    y = np.where(f > np.median(f), 1.0, -1.0)
    return FSKernelProblem(X, y, B=B, C=10.0, kernel=kernel, sense=sense, degree=degree)


def _value(p: FSKernelProblem, beta: np.ndarray) -> float:
    return alpha_subproblem(kernel_matrix(p.X[:, beta], **p.kernel_params()), p.y, p.C)[2]


def _node_masks(p, inc, free, r):
    U = np.flatnonzero(free)
    return [inc | mask_from_indices(U[list(c)], p.n)
            for c in itertools.combinations(range(U.size), r)]


def _random_node(p, rng, depth):
    perm = rng.permutation(p.n)
    fixed = perm[:depth]
    n_in = int(rng.integers(max(0, p.B - (p.n - depth)), min(p.B, depth) + 1))
    inc = mask_from_indices(fixed[:n_in], p.n)
    free = ~mask_from_indices(fixed, p.n)
    return inc, free, p.B - n_in


def _check_optimum(p, res, enum):
    tol = 1e-7 * abs(enum.objective)
    assert res.status.value == "optimal", (res.objective, res.bound, res.gap)
    assert res.objective == pytest.approx(enum.objective, rel=1e-7)
    combos = list(itertools.combinations(range(p.n), p.B))
    objs = enum.extra["objectives"]
    winners = np.flatnonzero(np.abs(objs - enum.objective) <= tol)
    assert tuple(res.selected) in {combos[k] for k in winners}
    if res.sense == "max":
        assert res.bound >= enum.objective - tol
    else:
        assert res.bound <= enum.objective + tol


@pytest.mark.parametrize("kernel,degree", KERNELS)
@pytest.mark.parametrize("sense", ["margin", "paper"])
@pytest.mark.parametrize("B", [2, 4, 7])
def test_bnb_equals_enumeration(kernel, degree, sense, B):
    """Same optimum as enumeration (n = 10), scanning whole nodes and branching down to
    single masks (leaf_masks = 1: every node bound, fixing and branching is used)."""
    p = _problem(B, kernel, degree, B=B, sense=sense)
    enum = enumerate_masks(p, SolverPlan(), workers=1)
    for leaf in (None, 1):
        res = branch_and_bound(p, SolverPlan(), n_samples=20, leaf_masks=leaf)
        _check_optimum(p, res, enum)
        assert res.sense == ("max" if sense == "margin" else "min")


@pytest.fixture(scope="module")
def two_workers():
    ex = Executor(workers=2)
    with ex.session() as pool:
        t0 = time.monotonic()
        while pool.starting:
            assert time.monotonic() - t0 < 120, "the workers never started"
            pool.wait(1.0)
        yield ex


@pytest.mark.parametrize("kernel,degree,sense", [("rbf", 2, "margin"), ("rbf", 2, "paper"),
                                                 ("poly", 2, "paper"), ("poly", 3, "margin")])
def test_two_workers_certify_the_same_optimum(kernel, degree, sense, two_workers):
    """On 2 workers: the enumerated optimum, and with the same batch the same run as on 1."""
    p = _problem(7, kernel, degree, n=12, B=5, sense=sense)
    enum = enumerate_masks(p, SolverPlan(), workers=1)
    kw = {"n_samples": 20, "leaf_masks": 40, "tree": SearchOptions(batch=2)}
    one = branch_and_bound(p, SolverPlan(), **kw)
    two = branch_and_bound(p, SolverPlan(executor=two_workers), **kw)
    for res in (one, two):
        _check_optimum(p, res, enum)
    assert two.extra["workers"] == 2 and one.extra["nodes"] == two.extra["nodes"] >= 3
    assert one.selected == two.selected and one.bound == two.bound


@pytest.mark.parametrize("kernel,degree", KERNELS)
@pytest.mark.parametrize("sense", ["margin", "paper"])
def test_node_bounds_are_on_the_right_side(kernel, degree, sense):
    """On random nodes, the node's bound and its children's bounds (fixing, branching) are
    on the right side of the best mask of the node / child, enumerated."""
    p = _problem(3, kernel, degree, n=9, B=4, sense=sense)
    nb = NodeBounds(p)
    rng = np.random.default_rng(1)
    for depth in (0, 2, 3, 5):
        inc, free, r = _random_node(p, rng, depth)
        if not 0 < r < free.sum():
            continue
        masks = _node_masks(p, inc, free, r)
        vals = np.array([_value(p, b) for b in masks])
        best = vals.max() if sense == "margin" else vals.min()
        tol = 1e-9 * max(1.0, abs(vals).max())
        # incumbents: none, and one just past the node's best (children's SVMs then run)
        for inc_v in (math.nan, best - 0.02 * abs(best) * (1 if sense == "margin" else -1)):
            bound, kids = nb.node(inc, free, r, inc_v)
            assert bound >= best - tol if sense == "margin" else bound <= best + tol
            if kids is None:
                continue
            for k, j in enumerate(np.flatnonzero(free)):
                for side, bound_j in ((True, kids.with_j[k]), (False, kids.without_j[k])):
                    part = [v for b, v in zip(masks, vals) if b[j] == side]
                    if not part:
                        continue
                    if sense == "margin":
                        assert bound_j >= max(part) - tol
                    else:
                        assert bound_j <= min(part) + tol


def test_child_bounds_hold_at_any_feasible_alpha():
    """The superset, supermodular and degree-2 relaxations bound f(alpha, beta) >= v(beta)
    over every mask of a node, at a random feasible alpha (not only at an SVM's)."""
    for degree in (2, 3, 5):
        p = _problem(4, "poly", degree, n=9, B=4)
        nb = NodeBounds(p)
        rng = np.random.default_rng(degree)
        a = rng.uniform(0, p.C, p.m)
        pos, neg = p.y > 0, p.y < 0
        a[pos] *= a[neg].sum() / a[pos].sum()
        inc, free = mask_from_indices([1], p.n), ~mask_from_indices([1, 6], p.n)
        kids = child_bounds(nb, inc, free, 3, a, quad_terms(p, a) if degree == 2 else None)
        w = a * p.y
        for b in _node_masks(p, inc, free, 3):
            f = 0.5 * w @ kernel_matrix(p.X[:, b], **p.kernel_params()) @ w - a.sum()
            assert kids.node >= f - 1e-9 * abs(f)


def test_box_corner_dominates_every_mask_of_the_node():
    """Gaussian kernel: f(alpha, K*) >= f(alpha, K_beta) for every mask of the node and any
    alpha >= 0 (same-class entries at their largest, cross-class at their least)."""
    p = _problem(5, "rbf", n=9, B=4)
    nb = NodeBounds(p)
    inc, free = mask_from_indices([0], p.n), ~mask_from_indices([0, 3], p.n)
    K_star = nb.corner(inc, free, 3)
    rng = np.random.default_rng(0)
    for _ in range(5):
        w = rng.uniform(0, p.C, p.m) * p.y
        top = w @ K_star @ w
        for b in _node_masks(p, inc, free, 3):
            assert top >= w @ kernel_matrix(p.X[:, b], **p.kernel_params()) @ w - 1e-9
    bound = nb.node(inc, free, 3)[0]
    assert bound >= max(_value(p, b) for b in _node_masks(p, inc, free, 3))


@pytest.mark.parametrize("kernel", ["poly", "rbf"])
@pytest.mark.parametrize("sense", ["margin", "paper"])
def test_scan_discards_only_what_it_certifies(kernel, sense):
    """Against an incumbent at the node's median, every mask strictly better is a candidate,
    and the scan's bound over the masks it discards is on their side of each of them."""
    p = _problem(6, kernel, n=9, B=4, sense=sense)
    nb = NodeBounds(p)
    inc, free, r = mask_from_indices([2], p.n), ~mask_from_indices([2], p.n), 3
    masks = _node_masks(p, inc, free, r)
    vals = np.array([_value(p, b) for b in masks])
    target = float(np.median(vals))
    U = np.flatnonzero(free).astype(np.int64)
    kpar = np.array([RBF if kernel == "rbf" else POLY, p.gamma, p.degree, p.coef0])
    paper = sense == "paper"
    comb, alpha = np.arange(r), np.zeros(p.m)
    acc = np.array([0.0, math.inf if paper else -math.inf, 0.0, 0.0])
    ctl = np.array([p.C, float(paper), target, 1e-12 * abs(target), 1e9])
    candidates = []
    while True:
        status = scan_masks((nb.terms, nb.aggregate(inc), U, p.y), comb, kpar, alpha,
                            ctl, acc)
        if status == DONE:
            break
        assert status == CANDIDATE
        candidates.append(tuple(comb))
        from sparsekm.algorithms.fs_kernel.mask_scan import next_combination
        if next_combination(comb, U.size) < 0:
            break
    order = list(itertools.combinations(range(U.size), r))
    better = {order[k] for k, v in enumerate(vals) if (v < target if paper else v > target)}
    assert better <= set(candidates)
    dropped = [v for k, v in enumerate(vals) if order[k] not in set(candidates)]
    assert len(dropped) + len(candidates) == len(masks) and int(acc[0]) == len(dropped)
    if paper:
        assert acc[1] <= min(dropped) + 1e-9 and acc[1] > target
    else:
        assert acc[1] >= max(dropped) - 1e-9 and acc[1] < target


@pytest.mark.parametrize("sense", ["margin", "paper"])
def test_time_limit_keeps_incumbent_and_valid_bound(sense):
    p = _problem(8, "rbf", m=80, n=16, B=8, sense=sense)
    res = branch_and_bound(p, SolverPlan(time_limit=1.0), n_samples=10, leaf_masks=200)
    assert len(res.selected) == p.B and math.isfinite(res.objective)
    assert res.bound is not None
    assert res.bound >= res.objective if sense == "margin" else res.bound <= res.objective
    assert res.termination.value in ("time_limit", "converged")


@pytest.mark.parametrize("kernel", ["poly", "rbf"])
def test_cli_bnb_json(kernel):
    """The CLI's bnb on real data: a closed tree (286 masks) is optimal, its bound on the
    maximising side, the solver of its SVMs named."""
    import json

    from typer.testing import CliRunner

    from sparsekm.cli.app import app

    r = CliRunner().invoke(app, ["solve", "fs-kernel", "--data", "cleveland", "--rows", "80",
                                 "--kernel", kernel, "--method", "bnb", "--B", "3",
                                 "--samples", "30", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["method"] == "bnb" and len(out["selected"]) == 3
    assert out["status"] == "optimal" and out["upper_bound"] >= out["objective"]
    assert out["gap"] <= 1e-4 and out["solvers"]["svm"]
