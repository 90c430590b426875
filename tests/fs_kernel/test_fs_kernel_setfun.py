"""Paper A, Section 4.2 and Appendix: Propositions 1-2 and the Gaussian counterexample (A.2)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from sparsekm.algorithms.fs_kernel.greedy import greedy_H, lazy_greedy_H, ls_fixed_alpha
from sparsekm.kernels import kernel_matrix
from sparsekm.models.fs_kernel import SetFunctions


def _instance(seed: int, m: int = 9, n: int = 6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    y = np.where(np.arange(m) % 2 == 0, 1.0, -1.0)
    alpha = rng.uniform(0.1, 2.0, size=m)
    # enforce y'alpha = 0 (alpha feasible for (3)) by rescaling the negative class
    pos, neg = y > 0, y < 0
    alpha[neg] *= alpha[pos].sum() / alpha[neg].sum()
    return X, y, alpha


def _table(sf: SetFunctions, n: int, fun) -> dict[frozenset, float]:
    return {frozenset(S): fun(S) for r in range(n + 1)
            for S in itertools.combinations(range(n), r)}


CASES = [(seed, d, c) for seed in (0, 1, 2) for d in (2, 3, 5) for c in (0.0, 1.0)]


@pytest.mark.parametrize("seed,d,c", CASES)
def test_proposition1_F_monotone_supermodular(seed, d, c):
    X, y, alpha = _instance(seed)
    n = X.shape[1]
    sf = SetFunctions(X, y, alpha, "poly", gamma=0.1 if seed else 0.5, degree=d, coef0=c)
    F = _table(sf, n, sf.F)
    worst_mono, worst_super = np.inf, np.inf
    for S, FS in F.items():
        for e in set(range(n)) - S:
            gain_S = F[S | {e}] - FS
            worst_mono = min(worst_mono, gain_S)
            for extra in set(range(n)) - S - {e}:  # T = S + extra covers all chains
                T = S | {extra}
                worst_super = min(worst_super, (F[T | {e}] - F[T]) - gain_S)
    scale = max(abs(v) for v in F.values())
    assert worst_mono >= -1e-10 * scale
    assert worst_super >= -1e-10 * scale
    assert scale > 0


@pytest.mark.parametrize("seed,d,c", CASES[::2])
def test_proposition2_H_monotone_submodular_nonnegative(seed, d, c):
    X, y, alpha = _instance(seed)
    n, B = X.shape[1], 3
    sf = SetFunctions(X, y, alpha, "poly", gamma=0.3, degree=d, coef0=c)
    H = _table(sf, n, sf.H)
    lam = sf.lam
    tol = 1e-10 * max(abs(lam), 1.0)
    assert H[frozenset()] == pytest.approx(0.0, abs=tol)
    for S, HS in H.items():
        assert -tol <= HS
        # F(S') = lambda - H(S'') with S' = [n] \ S''
        assert sf.F(set(range(n)) - S) == pytest.approx(lam - HS, abs=tol)
        for e in set(range(n)) - S:
            gS = H[S | {e}] - HS
            assert gS >= -tol
            for extra in set(range(n)) - S - {e}:
                T = S | {extra}
                assert H[T | {e}] - H[T] <= gS + tol
    # (11) and (10) have the same optimum: max H over |S''| = n - B  <->  min F over |S'| = B
    best_H = max(v for S, v in H.items() if len(S) == n - B)
    best_F = min(sf.F(S) for S in itertools.combinations(range(n), B))
    assert best_F == pytest.approx(lam - best_H, abs=tol)


def test_F_matches_kernel_quadratic_form():
    X, y, alpha = _instance(5)
    sf = SetFunctions(X, y, alpha, "rbf", gamma=0.7)
    S = [0, 2, 5]
    K = kernel_matrix(X[:, S], kernel="rbf", gamma=0.7)
    a = alpha * y
    assert sf.F(S) == pytest.approx(a @ K @ a, rel=1e-12)
    sfp = SetFunctions(X, y, alpha, "poly", gamma=0.2, degree=3, coef0=1.5)
    Kp = kernel_matrix(X[:, S], kernel="poly", gamma=0.2, degree=3, coef0=1.5)
    assert sfp.F(S) == pytest.approx(a @ Kp @ a, rel=1e-12)


def test_appendix_A2_gaussian_counterexample():
    X = np.array([[0.0, 1.0, -0.5], [-1.0, -1.0, -1.0], [0.0, -1.0, 0.0]])
    y = np.array([-1.0, 1.0, 1.0])
    sf = SetFunctions(X, y, np.array([1.0, 0.5, 0.5]), "rbf", gamma=1.0)
    # features are 1-based in the paper: B = {1} -> [0], e = 2 -> 1, e = 3 -> 2
    assert sf.F([]) == 0.0
    assert sf.F([1]) == pytest.approx(1.9634, abs=5e-5)
    assert sf.F([0]) == pytest.approx(0.3161, abs=5e-5)
    assert sf.F([0, 1]) == pytest.approx(1.6589, abs=5e-5)
    assert sf.F([1]) - sf.F([]) == pytest.approx(1.9634, abs=5e-5)
    assert sf.F([0, 1]) - sf.F([0]) == pytest.approx(1.3428, abs=5e-5)
    assert sf.F([2]) == pytest.approx(0.1263, abs=5e-5)
    assert sf.F([0, 2]) == pytest.approx(0.5024, abs=5e-5)
    assert sf.F([0, 2]) - sf.F([0]) == pytest.approx(0.1863, abs=5e-5)
    # e = 2 violates supermodularity, e = 3 violates submodularity
    assert sf.F([1]) - sf.F([]) > sf.F([0, 1]) - sf.F([0])
    assert sf.F([2]) - sf.F([]) < sf.F([0, 2]) - sf.F([0])


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_lazy_greedy_equals_plain_greedy_with_fewer_evaluations(seed):
    rng = np.random.default_rng(seed)
    X, y, alpha = _instance(seed, m=12, n=10)
    X = X * rng.uniform(0.2, 2.0, size=X.shape[1])
    sf = SetFunctions(X, y, alpha, "poly", gamma=0.1, degree=3, coef0=1.0)
    b_lazy, info_lazy = lazy_greedy_H(sf, 4)
    b_plain, info_plain = greedy_H(sf, 4)
    assert np.array_equal(b_lazy, b_plain)
    assert b_lazy.sum() == 4
    assert info_lazy["n_evals"] <= info_plain["n_evals"]


def test_ls_fixed_alpha_reaches_F_local_minimum_and_pool_sorted():
    X, y, alpha = _instance(7, m=10, n=8)
    sf = SetFunctions(X, y, alpha, "poly", gamma=0.2, degree=2, coef0=1.0)
    beta0 = np.zeros(8, dtype=bool)
    beta0[[4, 5, 6, 7]] = True
    beta, pool = ls_fixed_alpha(sf, beta0)
    f = sf.F(np.flatnonzero(beta))
    assert f <= sf.F([4, 5, 6, 7]) + 1e-12
    for jo in np.flatnonzero(beta):
        for ji in np.flatnonzero(~beta):
            S = set(np.flatnonzero(beta)) - {jo} | {ji}
            assert sf.F(S) >= f - 1e-9 * abs(f)
    vals = [v for v, _ in pool]
    assert vals == sorted(vals) and vals[0] == pytest.approx(f)


def test_proposition1_needs_y_alpha_zero_when_c_positive():
    """With F(emptyset) := 0 (Section 4.2) supermodularity at the empty set needs y'alpha = 0
    (true for every alpha feasible in (3)); for an infeasible alpha and c > 0 it fails, by the
    term c^d (y'alpha)^2 that F({e}) carries and F(emptyset) does not."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(8, 5))
    y = np.where(np.arange(8) % 2 == 0, 1.0, -1.0)
    alpha = rng.uniform(0.1, 2.0, 8)
    alpha[y > 0] *= 3.0
    sf = SetFunctions(X, y, alpha, "poly", 0.3, 2, 1.0)
    gaps = [(sf.F([e, o]) - sf.F([o])) - sf.F([e]) for e in range(5) for o in range(5) if o != e]
    assert min(gaps) < -1.0
    sf0 = SetFunctions(X, y, alpha, "poly", 0.3, 2, 0.0)  # c = 0: no such term
    gaps0 = [(sf0.F([e, o]) - sf0.F([o])) - sf0.F([e]) for e in range(5) for o in range(5)
             if o != e]
    assert min(gaps0) >= -1e-10


@pytest.mark.parametrize("kernel,kw", [("poly", {"gamma": 0.3, "degree": 2, "coef0": 1.0}),
                                       ("rbf", {"gamma": 0.2})])
def test_set_functions_without_the_term_tensor_are_the_same(monkeypatch, kernel, kw):
    """Above TENSOR_LIMIT_BYTES the (n, ms, ms) terms are not held: agg is one Gram matrix and
    each g_j is computed when needed. F, F(T - e) and agg equal the tensor path's (and the
    kernel matrix itself)."""
    from sparsekm.models.fs_kernel import setfun

    X, y, alpha = _instance(3, m=12, n=7)
    full = SetFunctions(X, y, alpha, kernel, **kw)
    monkeypatch.setattr(setfun, "TENSOR_LIMIT_BYTES", 0)
    lazy = SetFunctions(X, y, alpha, kernel, **kw)
    assert full.small and not lazy.small
    T = [0, 2, 3, 5, 6]
    np.testing.assert_allclose(lazy.agg(T), full.agg(T), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(lazy.F_minus_each(T, T), full.F_minus_each(T, T), rtol=1e-10)
    assert lazy.F(T) == pytest.approx(full.F(T), rel=1e-12) and lazy._G is None
    sv = np.flatnonzero(alpha)
    a = (alpha * y)[sv]
    K = kernel_matrix(X[np.ix_(sv, T)], kernel=kernel, **kw)
    assert lazy.F(T) == pytest.approx(a @ K @ a, rel=1e-10)


def test_rfe1_scores_its_candidates_by_chunks_and_stops_at_the_limit(monkeypatch):
    """RFE1 reads the clock between chunks of candidates (one step on madelon, 500 of them,
    took 80 s): with each candidate made slow (200 of them, 1.2 s a step), a 0.3 s limit ends
    within a chunk or two and returns B features, termination time_limit."""
    import time

    from sparsekm import registry
    from sparsekm.algorithms.fs_kernel.evaluator import Evaluator
    from sparsekm.models.fs_kernel import FSKernelProblem
    from sparsekm.solvers import SolverPlan

    F0 = SetFunctions.F_minus_each

    def slow(self, T, cands):      # 6 ms per candidate
        time.sleep(0.006 * len(cands))
        return F0(self, T, cands)

    monkeypatch.setattr(SetFunctions, "F_minus_each", slow)
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 200))
    y = np.where(X[:, 0] + X[:, 1] > 0, 1.0, -1.0)
    p = FSKernelProblem(X, y, B=5, kernel="rbf", sense="margin")
    Evaluator(p).solve_mask(np.arange(200) < 5)     # the solver's loading is not timed here
    t0 = time.perf_counter()
    r = registry.get("fs-kernel", "method", "rfe1")(p, SolverPlan(time_limit=0.3))
    assert time.perf_counter() - t0 < 0.6
    assert r.termination.value == "time_limit" and len(r.selected) == 5


def test_decsub_refuses_data_whose_feature_terms_cannot_be_held(monkeypatch):
    """DecSubLight*'s beta-steps read the (n, ms, ms) terms; past TENSOR_LIMIT_BYTES it is
    refused in one line naming the methods that scale (madelon 2000 x 500 would need
    14.9 GB: the run was killed after 206 s, with no JSON)."""
    from sparsekm import registry
    from sparsekm.algorithms.fs_kernel import decsub
    from sparsekm.declare import ParamError
    from sparsekm.models.fs_kernel import FSKernelProblem
    from sparsekm.solvers import SolverPlan

    X, y, _ = _instance(4, m=20, n=6)
    p = FSKernelProblem(X, y, B=2, kernel="poly", sense="paper")
    monkeypatch.setattr(decsub, "TENSOR_LIMIT_BYTES", 6 * 20 * 20 * 8 - 1)
    with pytest.raises(ParamError, match="ls-star"):
        registry.get("fs-kernel", "method", "decsub")(p, SolverPlan())
    monkeypatch.setattr(decsub, "TENSOR_LIMIT_BYTES", 6 * 20 * 20 * 8)
    assert registry.get("fs-kernel", "method", "decsub")(p, SolverPlan()).has_solution
