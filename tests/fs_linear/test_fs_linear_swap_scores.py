"""The primal move scores of paper D's swap search (``swap_scores``) against independent
computations: a bounded scalar minimiser, the SVM (1) optimum of every swapped support, and
the `fast` CLI reporting the parameters it ran with."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from typer.testing import CliRunner

from sparsekm.algorithms.fs_linear.swap_scores import (
    backward_sacrifices,
    line_lower_bounds,
    line_minimum,
    removal_state,
    swap_values,
)
from sparsekm.engines.linear_svm import solve_linear_svm


def _hinge_line(t: float, a: np.ndarray, c: np.ndarray, C: float) -> float:
    return 0.5 * t * t + C * float(np.maximum(a - t * c, 0.0).sum())


def test_line_minimum_matches_a_scalar_minimiser_and_every_kink() -> None:
    """The sweep's minimum of 1/2 t^2 + C sum max(0, a - t c) equals scipy's bounded Brent
    minimiser (to 1e-9) and is below the value at every kink, including rows at a = 0 (the
    intercept b* lies on a kink, so such rows always occur)."""
    rng = np.random.default_rng(7)
    for trial in range(300):
        m = int(rng.integers(1, 40))
        a = rng.normal(size=m)
        c = rng.normal(size=m) * (rng.random(m) > 0.2)
        if trial % 2:
            a[rng.integers(m)] = 0.0
        C = float(10 ** rng.uniform(-2, 2))
        v, t = line_minimum(a, c, C, np.empty(m), np.empty(m, np.int64))
        assert v == pytest.approx(_hinge_line(t, a, c, C), rel=1e-12, abs=1e-12)
        span = 2.0 + C * float(np.abs(c).sum())          # |t*| <= C sum |c|
        ref = minimize_scalar(_hinge_line, bounds=(-span, span), args=(a, c, C),
                              method="bounded", options={"xatol": 1e-12})
        assert v <= ref.fun + 1e-9 * max(1.0, abs(ref.fun))
        kinks = a[c != 0] / c[c != 0]
        for k in np.concatenate([kinks, [0.0]]):
            assert v <= _hinge_line(float(k), a, c, C) + 1e-12 * max(1.0, abs(v))


def _instance(seed: int, m: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    y = np.where(X[:, :3] @ np.array([1.0, -0.8, 0.5]) + rng.normal(size=m) >= 0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_swap_scores_are_upper_bounds_on_every_swapped_support(C: float) -> None:
    """ub(i, j) is the value of a feasible point on S - i + j, so it is never below that
    support's SVM (1) optimum (all 5 x 15 swaps solved by the interior-point method); the
    backward sacrifice likewise bounds the optimum on S - i."""
    X, y = _instance(3, 50, 20)
    S = np.array([0, 1, 2, 7, 11])
    fit = solve_linear_svm(X[:, S], y, C, method="ipm", tol=1e-10)
    XS = np.ascontiguousarray(X[:, S])
    Xt = np.ascontiguousarray(X.T)
    back = np.empty(S.size)
    f = backward_sacrifices(XS, y, C, fit.w, back)
    assert np.allclose(f, XS @ fit.w)
    outside = np.setdiff1d(np.arange(X.shape[1]), S)
    for i in range(S.size):
        rest = np.delete(S, i)
        assert back[i] >= solve_linear_svm(X[:, rest], y, C).primal * (1 - 1e-9)
        a = removal_state(XS, y, fit.w, f, i)
        ub = np.empty(outside.size)
        swap_values(Xt, y, C, a, outside, ub)
        ub += 0.5 * float(fit.w @ fit.w - fit.w[i] ** 2)
        assert ub.min() >= 0.0
        for j, u in zip(outside, ub):
            opt = solve_linear_svm(X[:, np.append(rest, j)], y, C).primal
            assert u >= opt * (1 - 1e-8) - 1e-10


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_line_lower_bounds_are_valid_and_take_the_scaled_dual(C: float) -> None:
    """The swap scores' screening bounds never exceed the exact line minima (every feature,
    three removal states), and are at least the scaled dual point lam C 1_{a > 0}, worked by
    hand: A^2 / (2 s^2) where s^2 > A (A = C sum_{a>0} a_r, s = C sum_{a>0} c_r), which is
    positive where the unscaled A - s^2 / 2 is negative (the bound before, which let every
    pair with a negative bound be computed)."""
    X, y = _instance(5, 40, 60)
    S = np.array([0, 1, 2, 3])
    fit = solve_linear_svm(X[:, S], y, C, method="ipm", tol=1e-10)
    XS, Xt = np.ascontiguousarray(X[:, S]), np.ascontiguousarray(X.T)
    f = backward_sacrifices(XS, y, C, fit.w, np.empty(S.size))
    A = np.stack([removal_state(XS, y, fit.w, f, i) for i in range(3)])
    rows = np.arange(4, X.shape[1])
    lower = line_lower_bounds(Xt, rows, y, C, A)
    negative_before = 0
    for k, a in enumerate(A):
        exact = np.empty(rows.size)
        swap_values(Xt, y, C, a, rows, exact)
        assert np.all(lower[k] <= exact + 1e-12 * np.maximum(1.0, np.abs(exact)))
        R = a > 0
        A0, s = C * a[R].sum(), C * (y[R] @ X[R][:, rows])
        scaled = np.where(s * s <= A0, A0 - 0.5 * s * s, 0.5 * A0 * A0 / (s * s))
        assert np.all(lower[k] >= scaled - 1e-12 * np.maximum(1.0, np.abs(scaled)))
        negative_before += int(np.sum(A0 - 0.5 * s * s < 0))
        assert np.all(lower[k] > 0)
    # at C >= 1 the instance has pairs the scaling lifts above zero (none at C = 0.1)
    assert negative_before > 0 or C < 1


def test_cli_params_show_the_seed_that_ran() -> None:
    """`--option seed=2` and `--seed 2` run the same search and both report seed 2; a flag
    `fast` does not take (Kernel Search's --rho) is not reported as a parameter of the run."""
    from sparsekm.cli.app import app

    runner = CliRunner()
    base = ["solve", "fs-linear", "--data", "sonar", "--B", "4", "--method", "fast",
            "--json"]
    by_option = json.loads(runner.invoke(app, [*base, "--option", "seed=2",
                                               "--option", "restarts=3"]).stdout)
    by_flag = json.loads(runner.invoke(app, [*base, "--seed", "2", "--option",
                                             "restarts=3"]).stdout)
    assert by_option["params"]["seed"] == 2 and by_flag["params"]["seed"] == 2
    assert by_option["params"]["restarts"] == 3 and "rho" not in by_option["params"]
    assert by_option["objective"] == by_flag["objective"]
    assert by_option["selected"] == by_flag["selected"]


def test_compiled_code_loads_once_before_the_clock() -> None:
    """`load_s` reports the one-time loading of `fast`'s compiled code (a fresh process's
    first call), kept out of `time_s`; a second load in the process costs nothing, and the
    answer is the same in a fresh process (load_s > 0) as in a warm one (load_s = 0)."""
    import subprocess
    import sys

    from sparsekm import registry
    from sparsekm.cli.app import app

    args = ["solve", "fs-linear", "--data", "sonar", "--B", "4", "--method", "fast", "--json"]
    fresh = subprocess.run([sys.executable, "-c", "from sparsekm.cli.app import main; main()",
                            *args], capture_output=True,
                           text=True, check=True)
    cold = json.loads(fresh.stdout)
    entry = registry.get("fs-linear", "method", "fast")
    registry.load_compiled(entry)
    assert registry.load_compiled(entry) == 0.0
    warm = json.loads(CliRunner().invoke(app, args).stdout)
    assert cold["load_s"] > 0 and warm["load_s"] == 0.0 and warm["time_s"] > 0
    assert warm["objective"] == cold["objective"] and warm["selected"] == cold["selected"]


def test_fast_in_a_fresh_process_compiles_nothing_numba_does_not_cache() -> None:
    """Every compiled function `fast` calls comes from numba's cache: its memo (a typed dict)
    is made and written by cached functions, because numba compiles a typed dict's own methods
    anew in each process when Python calls them (0.6 s of a 0.9 s load, measured)."""
    import subprocess
    import sys

    code = """
import json
from numba.core import dispatcher
compiled = []
orig = dispatcher.Dispatcher._compile_for_args
def spy(self, *a, **k):
    compiled.append((self.py_func.__module__, self._cache.__class__.__name__))
    return orig(self, *a, **k)
dispatcher.Dispatcher._compile_for_args = spy
from sparsekm.algorithms.fs_linear.iterated_swap import warm_up
warm_up()
print(json.dumps(compiled))
"""
    for _ in range(2):    # the first run may fill the cache; the second must only load it
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True)
    compiled = json.loads(out.stdout.strip().splitlines()[-1])
    assert compiled, "the spy saw no compiled call"
    uncached = [mod for mod, cache in compiled if cache == "NullCache"]
    assert uncached == []
