"""Paper A's certificates hold whatever the SVM solver's accuracy (unscaled data).

On unscaled wine libsvm's single-precision kernel cache makes it "converge" at points worse
than alpha = 0; every margin-sense value is at most 0 (alpha = 0 is feasible), so a result
above 0, or a bound below a mask's certified value, is wrong. The instance: 40 rows of wine
(seed 1), magnesium, color intensity and proline unscaled (proline up to 1680).
"""

from __future__ import annotations

import functools
import itertools
import json
import subprocess
import sys
import warnings

import numpy as np
import pytest

from sparsekm.algorithms.fs_kernel.bnb import branch_and_bound
from sparsekm.algorithms.fs_kernel.enumerate import enumerate_masks
from sparsekm.data import load_dataset
from sparsekm.engines.smo import SVMDualOptions, fit_libsvm, solve_svm_dual, svm_duality
from sparsekm.kernels import kernel_matrix
from sparsekm.models.fs_kernel import FSKernelProblem
from sparsekm.solvers import SolverPlan

CLI = [sys.executable, "-c", "from sparsekm.cli.app import main; main()"]


def _unscaled(m: int = 40, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    ds = load_dataset("wine")
    rng = np.random.default_rng(seed)
    rows = np.concatenate([rng.choice(np.flatnonzero(ds.y > 0), m // 2, replace=False),
                           rng.choice(np.flatnonzero(ds.y < 0), m // 2, replace=False)])
    return ds.X[rows][:, [4, 9, 12]], ds.y[rows]


@functools.cache
def _intervals() -> dict[tuple[int, ...], tuple[float, float]]:
    """Each mask's certified interval [-P, D] on v(beta) from the engine (3e6 iterations)."""
    p, out = _PROBLEM, {}
    for idx in itertools.combinations(range(p.n), p.B):
        K = kernel_matrix(p.X[:, list(idx)], **p.kernel_params())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = solve_svm_dual(K, p.y, p.C, options=SVMDualOptions(backend="smo",
                                                                     max_iter=3_000_000))
        out[idx] = (float(r.bound), float(r.objective))
    return out


def test_libsvm_failure_on_unscaled_data_is_handed_to_the_engine():
    """libsvm claims convergence at D(alpha) = +1450 > D(0) = 0 on mask (magnesium, proline);
    solve_svm_dual checks its answer in double precision and the engine goes on from
    alpha = 0: a value below 0, with a valid weak-duality bound below it."""
    X, y = _unscaled()
    K = kernel_matrix(X[:, [0, 2]], kernel="poly", gamma=0.1, degree=2, coef0=1.0)
    alpha, _, converged, _ = fit_libsvm(K, y, 10.0, 1e-5, -1, 200.0)
    primal, minus_d, _ = svm_duality(K, y, alpha, 10.0)
    assert converged and -minus_d > 1000.0          # libsvm's point: worse than alpha = 0
    res = solve_svm_dual(K, y, 10.0, options=SVMDualOptions(tol=1e-5, time_limit=3.0,
                                                            check_input=False))
    assert res.solver.startswith("libsvm+") and res.objective < 0.0
    assert res.bound <= res.objective


_PROBLEM = FSKernelProblem(*_unscaled(), B=2, C=10.0, kernel="poly", degree=2, sense="margin")


@pytest.mark.parametrize("method", ["bnb", "enumerate"])
def test_unscaled_kernel_results_are_certified(method):
    """Margin sense: the result's value is at most 0 and at most its mask's D; the bound is at
    least every mask's certified value -P; optimal only when they meet."""
    p = _PROBLEM
    plan = SolverPlan(time_limit=8.0)
    res = (branch_and_bound(p, plan, n_samples=5) if method == "bnb"
           else enumerate_masks(p, plan, workers=1))
    iv = _intervals()
    mask = tuple(res.selected)
    assert res.objective <= 0.0 and res.objective <= iv[mask][1] + 1e-9 * abs(iv[mask][1])
    if res.bound is not None:
        assert res.bound >= max(lo for lo, _ in iv.values()) - 1e-9 * abs(res.bound)
    if res.status.value == "optimal":
        assert res.objective >= max(lo for lo, _ in iv.values()) - 1e-4 * abs(res.objective)
    else:
        assert res.message                              # says why (gap of the SVM or limit)


def test_cli_unscaled_bnb_keeps_its_limit_and_claims_nothing_false(tmp_path):
    """The CLI on the same unscaled rows: within its limit, a value at most 0, not optimal
    unless certified, one JSON object."""
    X, y = _unscaled()
    path = tmp_path / "unscaled.csv"
    header = "magnesium,color,proline,label"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", header=header, comments="")
    run = subprocess.run([*CLI, "solve", "fs-kernel", "--data", str(path), "--scale", "none",
                          "--B", "2", "--method", "bnb", "--time-limit", "10", "--json"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    out = json.loads(run.stdout)
    assert out["objective"] <= 0.0 and out["time_s"] <= 10.5
    assert out["upper_bound"] is None or out["upper_bound"] >= out["objective"]
