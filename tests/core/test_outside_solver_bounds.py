"""A bound from an outside solver's inexact answer is made valid by weak duality.

SCIP's and Ipopt's lower bounds on the SVM sat 2.5e-8 and 1.3e-8 above its optimum: the dual
route's alpha is feasible only within the solver's tolerances (y'alpha != 0), and the primal
route's bound is the solver's own dual value. Now the dual route's alpha is made feasible before
-D is taken, and the primal route is certified at the native interior-point method's feasible
dual point; the solver's own number stays in ``solver_bound``.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from sparsekm.data import load_dataset
from sparsekm.engines.smo import SVMDualOptions, solve_svm_dual, svm_duality
from sparsekm.kernels import kernel_matrix

CLI = [sys.executable, "-c", "from sparsekm.cli.app import main; main()"]


def _wine_rbf():
    from sklearn.preprocessing import StandardScaler

    ds = load_dataset("wine")
    X = StandardScaler().fit_transform(ds.X)
    return kernel_matrix(X, kernel="rbf", gamma=1 / X.shape[1]), ds.y


def test_an_infeasible_alpha_gives_no_bound_above_the_optimum():
    """alpha* of a 1e-13-gap solve, then its free entries of the class with y b > 0 raised by
    1e-6 (y'alpha != 0, as a solver's tolerance leaves it; -D grows along b y): -D there
    exceeds the optimum, svm_duality's bound does not."""
    K, y = _wine_rbf()
    C = 1.0
    best = solve_svm_dual(K, y, C, options=SVMDualOptions(backend="smo", tol=1e-12,
                                                          gap_tol=1e-13))
    opt = -best.objective                      # the SVM optimum, within 1e-13
    a = best.alpha.copy()
    free = (a > 1e-5) & (a < C - 1e-5)
    a[free & (y * best.values["b"] > 0)] += 1e-6    # infeasible: y'a != 0
    ay = a * y
    naive = -(0.5 * ay @ K @ ay - a.sum())
    assert naive > opt + 1e-9                    # the old bound: above the optimum
    _, bound, _ = svm_duality(K, y, a, C)
    assert bound <= opt + 1e-12 * abs(opt)


@pytest.mark.parametrize("solver", ["scip", "ipopt"])
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_outside_solver_bounds_lie_below_every_feasible_value(solver, kernel):
    """Subprocess: the bound of SCIP or Ipopt is at most the native solve's objective (a
    feasible point's value) and at most the solver's own objective."""
    def run(s: str) -> dict:
        out = subprocess.run([*CLI, "solve", "svm", "--data", "wine", "--kernel", kernel,
                              "--solver", s, "--json"], capture_output=True, text=True,
                             timeout=300)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    native, outside = run("smo"), run(solver)
    for val in (native["objective"], outside["objective"]):
        assert outside["lower_bound"] <= val
    assert np.isfinite(outside["lower_bound"]) and outside["status"] == "optimal"
