"""The fast path of Paper A's local searches (issue 13): same masks as the plain path.

LS (Algorithm 1), LS* (Algorithm 2) and DecSubLight* (Algorithm 3) with ``fast=True`` must
return exactly the mask and objective of ``fast=False`` (the plain path: every visited mask
solved by libsvm) from the same start and seed, in both senses, for poly and rbf kernels,
whatever the number of threads; the certified intervals behind the screening must contain the
plain values.
"""

from __future__ import annotations

import numpy as np
import pytest

from sparsekm.algorithms.fs_kernel.evaluator import SVM_TOL, alpha_subproblem, mask_key
from sparsekm.algorithms.fs_kernel.plain import PlainEvaluator
from sparsekm.algorithms.fs_kernel.recipe import RecipeKernels
from sparsekm.algorithms.fs_kernel.refine import refine_many
from sparsekm.algorithms.fs_kernel.screened import ScreenedEvaluator
from sparsekm.models.fs_kernel import FSKernelProblem, random_masks
from sparsekm.registry import get as _entry
from sparsekm.solvers import SolverPlan, Termination

# the registered methods take their options flat (grouped in the functions' signatures)
LS, LS_STAR, DECSUB = (_entry("fs-kernel", "method", m) for m in ("ls", "ls-star", "decsub"))

KERNELS = [("poly", {"degree": 2}), ("poly", {"degree": 3}), ("rbf", {"gamma": 0.2})]
IDS = ["poly2", "poly3", "rbf"]


def _problem(seed: int, kernel: str, kw: dict, sense: str, m: int = 50, n: int = 11,
             B: int = 4) -> FSKernelProblem:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    f = X[:, 0] ** 2 + X[:, 1] - 0.8 * X[:, 2] * X[:, 3] + 0.3 * rng.normal(size=m)
    y = np.where(f > np.median(f), 1.0, -1.0)
    return FSKernelProblem(X, y, B=B, C=10.0, kernel=kernel, sense=sense, **kw)


def _both(fun, p: FSKernelProblem, beta0: np.ndarray, seed: int, **kw):
    return [fun(p, SolverPlan(), beta_in=beta0.copy(), seed=seed, fast=fast, **kw)
            for fast in (False, True)]


def _same(plain, fast) -> None:
    assert fast.selected == plain.selected
    assert fast.objective == plain.objective  # bit for bit: the same libsvm call decides
    assert fast.extra["fast"] and not plain.extra["fast"]


@pytest.mark.parametrize("sense", ["margin", "paper"])
@pytest.mark.parametrize(("kernel", "kw"), KERNELS, ids=IDS)
def test_ls_fast_equals_plain_on_random_starts(kernel, kw, sense):
    solved = visited = 0
    for seed in range(3):
        p = _problem(seed, kernel, kw, sense)
        for k, beta0 in enumerate(random_masks(p.n, p.B, 2, seed)):
            plain, fast = _both(LS, p, beta0, seed + k)
            _same(plain, fast)
            assert fast.extra["n_evals"] == plain.extra["n_evals"]  # the same path
            solved += fast.extra["exact_solves"]
            visited += plain.extra["n_evals"]
    assert solved < 0.5 * visited  # the screening does skip solves


@pytest.mark.parametrize("sense", ["margin", "paper"])
@pytest.mark.parametrize(("kernel", "kw"), KERNELS, ids=IDS)
def test_ls_star_fast_equals_plain(kernel, kw, sense):
    for seed in range(2):
        p = _problem(10 + seed, kernel, kw, sense)
        beta0 = random_masks(p.n, p.B, 1, seed)[0]
        plain, fast = _both(LS_STAR, p, beta0, seed, n_samples=50, opt_window=3)
        _same(plain, fast)
        assert [r["best_objective"] for r in fast.log] == [
            r["best_objective"] for r in plain.log]


@pytest.mark.parametrize("sense", ["margin", "paper"])
@pytest.mark.parametrize(("kernel", "kw"), [KERNELS[0], KERNELS[2]], ids=["poly2", "rbf"])
@pytest.mark.parametrize(("w_share", "fixed_min"), [(0.0, 0.0), (1.0, 2.0), (0.5, 2.0)],
                         ids=["no-working-set", "all-points-no-fixed-pass", "default-share"])
def test_ls_star_same_masks_whatever_the_screening_settings(kernel, kw, sense, w_share,
                                                            fixed_min, monkeypatch):
    """The screening's knobs (working-set share, skipping the fixed-alpha pass on sample
    batches) change only the work: the masks, objectives and the LS* history stay the plain
    path's, on starts where the working-set stage and the skip are in use."""
    import sparsekm.algorithms.fs_kernel.screened as fast_mod

    monkeypatch.setattr(fast_mod, "W_SHARE", w_share)
    monkeypatch.setattr(fast_mod, "FIXED_MIN", fixed_min)
    p = _problem(30, kernel, kw, sense, m=70, n=12, B=5)
    for seed in range(2):
        beta0 = random_masks(p.n, p.B, 1, seed)[0]
        plain, fast = _both(LS_STAR, p, beta0, seed, n_samples=80, opt_window=3)
        _same(plain, fast)
        assert [r["best_objective"] for r in fast.log] == [
            r["best_objective"] for r in plain.log]
        assert fast.extra["n_evals"] == plain.extra["n_evals"]


@pytest.mark.parametrize(("kernel", "kw"), KERNELS, ids=IDS)
def test_decsub_fast_equals_plain(kernel, kw):
    for seed in range(2):
        p = _problem(20 + seed, kernel, kw, "paper")
        beta0 = random_masks(p.n, p.B, 1, seed)[0]
        plain, fast = _both(DECSUB, p, beta0, seed, sol_pool=30)
        _same(plain, fast)
        assert fast.extra["iterations"] == plain.extra["iterations"]


@pytest.mark.parametrize("sense", ["margin", "paper"])
def test_fast_masks_do_not_depend_on_thread_count(sense):
    p = _problem(3, "poly", {"degree": 2}, sense, m=60, n=12, B=5)
    beta0 = random_masks(p.n, p.B, 1, 7)[0]
    runs = [LS_STAR(p, SolverPlan(), beta_in=beta0.copy(), seed=7, n_samples=60,
                        opt_window=3, threads=t) for t in (1, 2, 3)]
    assert all(r.selected == runs[0].selected and r.objective == runs[0].objective
               for r in runs)


@pytest.mark.parametrize("sense", ["margin", "paper"])
@pytest.mark.parametrize(("kernel", "kw"), KERNELS, ids=IDS)
def test_certified_intervals_contain_plain_values(kernel, kw, sense):
    """``lb <= v* <= v_plain <= v* + m C tol`` and ``v* <= f(alpha_cur)`` for every 1-swap
    neighbour, from the fixed alpha and after a few warm-started SMO iterations."""
    p = _problem(5, kernel, kw, sense)
    beta = random_masks(p.n, p.B, 1, 5)[0]
    rk = RecipeKernels(p)
    kb = mask_key(beta)
    alpha = alpha_subproblem(rk.matrix((kb, (), ())), p.y, p.C)[0]
    ev = ScreenedEvaluator(p, threads=1)
    sel, uns = np.flatnonzero(beta), np.flatnonzero(~beta)
    swaps = [(jo, ji) for jo in sel for ji in uns]
    add = np.array([[ji] for _, ji in swaps], dtype=np.int64)
    rem = np.array([[jo] for jo, _ in swaps], dtype=np.int64)
    plain = np.array([alpha_subproblem(rk.matrix((kb, (int(ji),), (int(jo),))), p.y, p.C)[2]
                      for jo, ji in swaps])
    eps = p.m * p.C * SVM_TOL
    n = len(swaps)
    sv = np.flatnonzero(alpha > 0).astype(np.int64)
    S = rk.base(kb, beta)

    def centre(W):
        return (S, rk.XT, p.y, alpha, W, sv.size, np.ascontiguousarray(S[np.ix_(W, W)]),
                np.ascontiguousarray(rk.XT[:, W]))

    def run(W, iters, want_lb, lo_thr, state=None):
        state = state or (np.empty((n, p.m)), np.empty((n, p.m)), np.zeros(n, np.int64))
        outs = (np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n))
        ctl = np.array([p.C, iters, SVM_TOL, want_lb, 0.0, float(W.size > sv.size)])
        refine_many(centre(W), rk.kpar(0, 0), (add, rem, *state, np.arange(n), lo_thr,
                                               np.full(n, np.inf)), ctl,
                    ev.refiner.buffers(), outs)
        return outs, state

    # the fixed-alpha value from the support-vector block equals f(alpha_cur, beta')
    (f0, *_), _ = run(sv, 0, 0.0, np.full(n, -np.inf))
    w = alpha * p.y
    fixed = np.array([0.5 * w @ rk.matrix((kb, (int(ji),), (int(jo),))) @ w - alpha.sum()
                      for jo, ji in swaps])
    np.testing.assert_allclose(f0, fixed, rtol=1e-12, atol=1e-9)
    assert np.all(f0 >= plain - 1e-9 * np.abs(plain))
    for iters in (0, 30):
        (f, lb, its, _), state = run(sv, iters, 1.0, np.full(n, -np.inf))
        assert np.all(np.isfinite(f)) and np.all(np.isfinite(lb))
        assert np.all(f >= plain - eps - 1e-9 * np.abs(plain))
        assert np.all(lb <= plain + 1e-9 * np.abs(plain))
        if iters:
            assert its.max() > 0  # the warm start did run
            # a second call continues from the stored SMO point: never a worse bound
            (f2, lb2, _, _), _ = run(sv, iters, 1.0, np.full(n, -np.inf), state)
            assert np.all(f2 <= f + 1e-9 * np.abs(f))
            assert np.all(lb2 <= plain + 1e-9 * np.abs(plain))
    # the working-set stage (support + other samples): exact upper bounds, at most f0
    W = np.concatenate([sv, np.setdiff1d(np.arange(p.m), sv)[::2]]).astype(np.int64)
    for lo_thr in (plain + 1.0, np.full(n, -np.inf)):
        (f, _, its, _), (alphas, _, stages) = run(W, 1000, 0.0, lo_thr)
        assert np.all(stages > 0) and its.max() > 0
        assert np.all(f >= plain - eps - 1e-9 * np.abs(plain))
        assert np.all(f <= f0 + 1e-9 * np.abs(f0))
        exact = [0.5 * (a * p.y) @ rk.matrix((kb, (int(ji),), (int(jo),))) @ (a * p.y) - a.sum()
                 for a, (jo, ji) in zip(alphas, swaps)]
        np.testing.assert_allclose(f, exact, rtol=1e-9, atol=1e-9)
        assert np.allclose(alphas @ p.y, 0.0) and alphas.min() >= 0 and alphas.max() <= p.C
    ev.close()


def test_fast_time_limit_returns_best_so_far():
    p = _problem(4, "poly", {"degree": 2}, "margin", m=80, n=16, B=6)
    beta0 = random_masks(p.n, p.B, 1, 0)[0]
    res = LS_STAR(p, SolverPlan(time_limit=0.05), beta_in=beta0, seed=0, n_samples=400)
    assert res.termination in (Termination.TIME_LIMIT, Termination.CONVERGED)
    assert len(res.selected) == p.B and np.isfinite(res.objective)
    start = PlainEvaluator(p).eval_mask(beta0)
    _never_worse(p, res, start)


def test_no_neighbours_when_B_equals_n():
    p = _problem(6, "rbf", {}, "margin", n=5, B=5)
    plain, fast = _both(LS, p, np.ones(5, bool), 0)
    _same(plain, fast)


@pytest.mark.slow
@pytest.mark.parametrize("sense", ["margin", "paper"])
@pytest.mark.parametrize(("kernel", "kw"), KERNELS, ids=IDS)
def test_fast_equals_plain_on_ionosphere(kernel, kw, sense):
    from sparsekm.data import Scaler, load_dataset

    ds = load_dataset("ionosphere")
    X = Scaler("standard").fit_transform(ds.X)
    kw = {"gamma": 0.1, **kw} if kernel == "poly" else {"gamma": 0.05}
    p = FSKernelProblem(X[:200], ds.y[:200], B=8, C=10.0, kernel=kernel, sense=sense, **kw)
    for seed in range(2):
        beta0 = random_masks(p.n, p.B, 1, seed)[0]
        _same(*_both(LS_STAR, p, beta0, seed, n_samples=100))


@pytest.mark.parametrize("method", ["ls", "ls-star"])
def test_cli_fast_and_plain_select_the_same_mask(method):
    import json

    from typer.testing import CliRunner

    from sparsekm.cli.app import app

    outs = {}
    for flag in ("--fast", "--plain"):
        samples = ["--samples", "40"] if method == "ls-star" else []
        r = CliRunner().invoke(app, ["solve", "fs-kernel", "--data", "cleveland", "--rows", "80",
                                     "--method", method, "--B", "4", *samples, "--json", flag])
        assert r.exit_code == 0, r.output
        outs[flag] = json.loads(r.stdout)
    assert outs["--fast"]["selected"] == outs["--plain"]["selected"]
    assert outs["--fast"]["objective"] == outs["--plain"]["objective"]
    assert outs["--fast"]["params"]["fast"] is True and outs["--plain"]["params"]["fast"] is False


def test_estimator_fast_switch():
    from sparsekm.estimators import CardinalityKernelSVC

    p = _problem(8, "poly", {"degree": 2}, "margin")
    ests = [CardinalityKernelSVC(B=4, method="ls", fast=f).fit(p.X, p.y) for f in (True, False)]
    assert np.array_equal(ests[0].support_, ests[1].support_)
    assert ests[0].objective_ == ests[1].objective_
    assert ests[0].result_.extra["fast"] and not ests[1].result_.extra["fast"]
    # an estimator's parameter that its method does not take is ignored (scikit-learn's
    # convention, so that a grid over methods works); the CLI refuses it
    est = CardinalityKernelSVC(B=2, method="rfe2", fast=False).fit(p.X[:, :4], p.y)
    assert "fast" not in est.result_.extra


def test_fast_bounds_pass_reads_the_clock_between_chunks(monkeypatch):
    """The fixed-alpha bounds of a whole N^1 (here 144 masks, 9 chunks) stop at the limit:
    with each chunk made slow (50 ms) a 0.2 s limit ends within a few chunks and returns
    a mask no worse than the start. Before, the pass ran all chunks (madelon B = 10: 4.6 s
    past a 5 s limit)."""
    import time

    from sparsekm.algorithms.fs_kernel import screened as fast

    def slow(*a, **kw):
        time.sleep(0.05)
        return refine_many(*a, **kw)

    monkeypatch.setattr(fast, "refine_many", slow)
    p = _problem(7, "rbf", {}, "margin", m=60, n=40, B=4)
    beta0 = random_masks(p.n, p.B, 1, 0)[0]
    start = PlainEvaluator(p).eval_mask(beta0)
    t0 = time.perf_counter()
    res = LS_STAR(p, SolverPlan(time_limit=0.2), beta_in=beta0, seed=0, threads=1)
    assert time.perf_counter() - t0 < 0.35 and res.termination == Termination.TIME_LIMIT
    _never_worse(p, res, start)


def _never_worse(p, res, start: float) -> None:
    """The returned mask's search value (libsvm's D) is no worse than the start's, and the
    reported objective is its certified side (-P <= v <= D in the margin sense)."""
    found = PlainEvaluator(p).eval_mask(res.values["beta"])
    assert p.sign * found <= p.sign * start + 1e-9 * abs(start)
    assert p.sign * found <= p.sign * res.objective + 1e-12 * abs(found)
