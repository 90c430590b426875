"""Paper A, Algorithms 1-3 and enumeration on small instances (certified optima)."""

from __future__ import annotations

import numpy as np
import pytest

from sparsekm.algorithms.fs_kernel import enumerate as _enum
from sparsekm.algorithms.fs_kernel.search import sample_n2
from sparsekm.engines.smo import SVMDualOptions, solve_svm_dual
from sparsekm.kernels import kernel_matrix, mask_from_indices
from sparsekm.models.fs_kernel import FSKernelProblem, random_masks
from sparsekm.parallel import Executor
from sparsekm.registry import get as _entry
from sparsekm.solvers import SolverPlan

# the registered methods take their options flat (grouped in the functions' signatures)
LS, LS_STAR, DECSUB = (_entry("fs-kernel", "method", m) for m in ("ls", "ls-star", "decsub"))


def _plan(time_limit=None):
    return SolverPlan(time_limit=time_limit)


def local_search(p, beta0, time_limit=None):
    return LS(p, _plan(time_limit), beta_in=beta0)


def ls_star(p, beta0, time_limit=None, **kw):
    return LS_STAR(p, _plan(time_limit), beta_in=beta0, **kw)


def decsub_light(p, beta0, time_limit=None, **kw):
    return DECSUB(p, _plan(time_limit), beta_in=beta0, **kw)


def enumerate_masks(p):
    return _enum.enumerate_masks(p, SolverPlan(), workers=1)


def _data(seed: int, m: int = 40, n: int = 9):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    f = X[:, 0] ** 2 + X[:, 1] - 0.8 * X[:, 2] * X[:, 3] + 0.3 * rng.normal(size=m)
    y = np.where(f > np.median(f), 1.0, -1.0)
    return X, y


def _fresh_objective(p: FSKernelProblem, beta: np.ndarray) -> float:
    """Independent path: rebuild the kernel from scratch and solve (3)."""
    K = kernel_matrix(p.X[:, beta], **p.kernel_params())
    return solve_svm_dual(K, p.y, p.C, options=SVMDualOptions(tol=1e-5)).objective


def test_bad_input_messages():
    X, y = _data(0)
    with pytest.raises(ValueError, match="B=10: at most n = 9"):
        FSKernelProblem(X, y, B=10)
    with pytest.raises(ValueError, match="B=0: give an integer >= 1"):
        FSKernelProblem(X, y, B=0)
    with pytest.raises(ValueError, match="one class"):
        FSKernelProblem(X, np.ones(len(y)))
    with pytest.raises(ValueError, match="sense"):
        FSKernelProblem(X, y, sense="max")
    with pytest.raises(ValueError, match="kernel"):
        FSKernelProblem(X, y, kernel="sigmoid")
    p = FSKernelProblem(X, y)  # sense="margin" is the default
    with pytest.raises(ValueError, match="sense='paper' only"):
        decsub_light(p, random_masks(p.n, p.B, 1, 0)[0])
    with pytest.raises(ValueError, match="B=4 ones"):
        local_search(p, np.ones(p.n, dtype=bool))


def test_enumeration_exact_and_worker_independent():
    X, y = _data(1, m=30, n=8)
    p = FSKernelProblem(X, y, "poly", B=3, degree=2, sense="paper")
    combos, objs = _enum.all_mask_objectives(p, workers=1)
    _, objs2 = _enum.all_mask_objectives(p, SolverPlan(executor=Executor(2)))
    assert len(combos) == 56
    np.testing.assert_allclose(objs, objs2, rtol=1e-9)
    for k in (0, 17, 55):
        assert objs[k] == pytest.approx(_fresh_objective(p, mask_from_indices(combos[k], 8)),
                                        rel=1e-6)
    r = enumerate_masks(p)
    assert r.status.value == "optimal" and r.objective == pytest.approx(objs.min())
    assert r.objective < 0 and r.sense == "min"
    rm = enumerate_masks(FSKernelProblem(X, y, "poly", B=3, degree=2, sense="margin"))
    assert rm.sense == "max" and rm.bound == pytest.approx(rm.objective)
    assert rm.objective == pytest.approx(objs.max())
    assert not np.array_equal(r.beta, rm.beta)


@pytest.mark.parametrize("sense,kernel", [("paper", "poly"), ("margin", "poly"),
                                          ("paper", "rbf"), ("margin", "rbf")])
def test_ls_returns_one_swap_local_optimum(sense, kernel):
    X, y = _data(2, m=35, n=8)
    p = FSKernelProblem(X, y, kernel, B=4, degree=3, sense=sense)
    beta0 = random_masks(p.n, p.B, 1, seed=3)[0]
    r = local_search(p, beta0)
    # a local method: locally optimal in N^1, never "optimal" (no certificate)
    assert r.status.value == "locally_optimal" and r.termination.value == "converged"
    assert "1-swap" in r.local["condition"]
    assert r.beta.sum() == 4
    assert p.sign * r.objective <= p.sign * r.extra["start_objective"] + 1e-9
    best = p.sign * _fresh_objective(p, r.beta)
    assert best == pytest.approx(p.sign * r.objective, rel=1e-6)
    for jo in np.flatnonzero(r.beta):
        for ji in np.flatnonzero(~r.beta):
            nb = r.beta.copy()
            nb[jo], nb[ji] = False, True
            assert p.sign * _fresh_objective(p, nb) >= best - 1e-6 * abs(best)


def test_sample_n2_distance():
    rng = np.random.default_rng(0)
    beta = mask_from_indices([0, 1, 2, 3, 4, 5], 12)
    cands = sample_n2(beta, 3, 50, rng)
    assert len(cands) == 50
    for c in cands:
        assert c.sum() == 6 and 2 <= int((beta & ~c).sum()) <= 3
    assert sample_n2(mask_from_indices([0, 1, 2], 4), 2, 10, rng) == []


def _numpy_sample_n2(beta, p, count, rng):
    """The sampler as written with NumPy's own calls (the reference stream)."""
    from sparsekm.algorithms.fs_kernel.recipe import mask_key

    sel, uns = np.flatnonzero(beta), np.flatnonzero(~beta)
    pmax = min(p, sel.size, uns.size)
    out, tries = {}, 0
    while pmax >= 2 and len(out) < count and tries < 20 * count:
        tries += 1
        q = int(rng.integers(2, pmax + 1))
        nb = beta.copy()
        nb[rng.choice(sel, q, replace=False)] = False
        nb[rng.choice(uns, q, replace=False)] = True
        out.setdefault(mask_key(nb), nb)
    return list(out.values())


def test_sample_n2_draws_numpys_stream():
    """The compiled sampler gives the masks of NumPy's ``integers`` / ``choice`` calls, in
    order, and leaves the generator in the same state (many shapes, small N^2 included)."""
    g = np.random.default_rng(7)
    for seed in range(120):
        n = int(g.integers(3, 70))
        beta = mask_from_indices(g.choice(n, int(g.integers(1, n)), replace=False), n)
        p, count = int(g.integers(1, 8)), int(g.integers(1, 300))
        r1, r2 = np.random.default_rng(seed), np.random.default_rng(seed)
        r1.integers(0, 5), r2.integers(0, 5)  # a half-used 32-bit buffer
        want, got = _numpy_sample_n2(beta, p, count, r1), sample_n2(beta, p, count, r2)
        assert len(got) == len(want)
        assert all((a == b).all() for a, b in zip(got, want))
        assert r1.integers(0, 2**40) == r2.integers(0, 2**40)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ls_star_and_decsub_never_worse_than_start(seed):
    X, y = _data(10 + seed, m=40, n=10)
    for sense in ("paper", "margin"):
        p = FSKernelProblem(X, y, "poly", B=5, degree=2, sense=sense)
        beta0 = random_masks(p.n, p.B, 1, seed)[0]
        start = _fresh_objective(p, beta0)
        r = ls_star(p, beta0, n_samples=40, seed=seed)
        assert p.sign * r.objective <= p.sign * start + 1e-6 * abs(start)
        assert r.objective == pytest.approx(_fresh_objective(p, r.beta), rel=1e-6)
        if sense == "paper":
            d = decsub_light(p, beta0, sol_pool=30)
            assert d.objective <= start + 1e-6 * abs(start)
            assert d.extra["start_objective"] == pytest.approx(start, rel=1e-6)
            assert d.objective == pytest.approx(_fresh_objective(p, d.beta), rel=1e-6)


@pytest.mark.parametrize("kernel,degree", [("poly", 2), ("poly", 3), ("rbf", 1)])
def test_small_instances_heuristics_reach_enumerated_optimum(kernel, degree):
    X, y = _data(20 + degree, m=40, n=11)
    for sense in ("paper", "margin"):
        p = FSKernelProblem(X, y, kernel, degree=degree, sense=sense)  # B = floor(11/2) = 5
        opt = enumerate_masks(p)
        starts = random_masks(p.n, p.B, 3, seed=0)
        ls = [local_search(p, b) for b in starts]
        lss = [ls_star(p, b, n_samples=60, seed=k) for k, b in enumerate(starts)]
        vals = [r.objective for r in ls + lss]
        if sense == "paper" and kernel == "poly":
            vals += [decsub_light(p, b, sol_pool=60).objective for b in starts]
        # no heuristic beats the certified optimum; the best reaches it
        assert all(p.sign * v >= p.sign * opt.objective - 1e-6 * abs(opt.objective)
                   for v in vals)
        best = min(p.sign * v for v in vals)
        assert best == pytest.approx(p.sign * opt.objective, rel=1e-6)


def test_time_limit_returns_incumbent_with_status():
    X, y = _data(5, m=40, n=10)
    p = FSKernelProblem(X, y, "poly", B=5, degree=2, sense="paper")
    beta0 = random_masks(p.n, p.B, 1, 0)[0]
    start = _fresh_objective(p, beta0)
    for res in (ls_star(p, beta0, time_limit=1e-6), decsub_light(p, beta0, time_limit=1e-6),
                local_search(p, beta0, time_limit=1e-6)):
        assert res.termination.value == "time_limit" and res.status.value == "feasible"
        assert res.beta.sum() == 5
        assert res.objective <= start + 1e-6 * abs(start)


def test_changes_many_equals_changes_row_by_row():
    from sparsekm.algorithms.fs_kernel.recipe import changes, changes_many

    g = np.random.default_rng(3)
    for _ in range(40):
        n = int(g.integers(2, 40))
        base, masks = g.random(n) < 0.5, g.random((int(g.integers(1, 30)), n)) < 0.5
        assert changes_many(masks, base) == [changes(r, base) for r in masks]
