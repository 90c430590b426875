"""The fast SVM dual (libsvm) agrees with the declarative dual and primal models."""

from __future__ import annotations

import numpy as np
import pytest

from sparsekm.engines.smo import SVMDualOptions, optimal_intercept, solve_svm_dual, svm_duality
from sparsekm.kernels import kernel_matrix
from sparsekm.models.svm import svm_dual_model, svm_dual_problem, svm_primal_model
from sparsekm.solvers import BACKENDS, Status, solve


def _problem(m: int = 40, n: int = 5, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, n))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.7 * rng.standard_normal(m) > 0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("kernel", ["linear", "rbf", "poly"])
@pytest.mark.parametrize("solver", ["highs", "scip", "ipopt", "clarabel", "gurobi"])
def test_fast_dual_equals_declarative_dual(kernel: str, solver: str) -> None:
    if not BACKENDS[solver].availability().usable:
        pytest.skip(f"{solver} not usable here")
    X, y = _problem()
    K = kernel_matrix(X, kernel=kernel, gamma=0.3, degree=2, coef0=1.0)
    C = 2.0
    fast = solve_svm_dual(K, y, C, options=SVMDualOptions(tol=1e-8))
    model = svm_dual_problem(K, y, C) if solver == "clarabel" else svm_dual_model(K, y, C)
    res = solve(model, solver=solver)
    assert res.status is Status.OPTIMAL, res.message
    assert res.objective == pytest.approx(fast.objective, rel=1e-5)


def test_dense_and_factored_dual_forms_agree() -> None:
    X, y = _problem(m=25, seed=4)
    K = kernel_matrix(X, kernel="poly", gamma=0.5, degree=2, coef0=1.0)
    dense = solve(svm_dual_model(K, y, 1.5, form="dense"), solver="highs")
    factored = solve(svm_dual_model(K, y, 1.5), solver="highs")
    assert dense.objective == pytest.approx(factored.objective, rel=1e-7)


def test_primal_model_equals_minus_dual_linear() -> None:
    """Strong duality: the primal QP (paper D eq. 1) optimum is minus the dual (A eq. 3)."""
    X, y = _problem(m=60, n=4, seed=1)
    C = 0.7
    primal = solve(svm_primal_model(X, y, C), solver="highs")
    fast = solve_svm_dual(X @ X.T, y, C, options=SVMDualOptions(tol=1e-9))
    assert primal.objective == pytest.approx(-fast.objective, rel=1e-5)
    w = primal.values["w"]
    np.testing.assert_allclose(w, X.T @ (fast.alpha * y), atol=2e-4)  # w = sum a_i y_i x_i


def test_certificate_gap_is_tiny_and_intercept_is_optimal() -> None:
    X, y = _problem(m=80, n=3, seed=2)
    K = kernel_matrix(X, kernel="rbf", gamma=0.5)
    fast = solve_svm_dual(K, y, 5.0, options=SVMDualOptions(tol=1e-8))
    primal, lower, b = svm_duality(K, y, fast.alpha, 5.0)
    assert lower <= primal and (primal - lower) / primal < 1e-5
    g = K @ (fast.alpha * y)
    grid = np.linspace(b - 2, b + 2, 4001)
    hinge = np.maximum(0.0, 1.0 - y[None, :] * (g[None, :] + grid[:, None])).sum(axis=1)
    best = np.maximum(0.0, 1.0 - y * (g + b)).sum()
    assert best <= hinge.min() + 1e-9  # no b on a fine grid beats the kink scan


def test_optimal_intercept_hand_example() -> None:
    # scores g and labels: hinge sum minimised over b by exhaustive kink evaluation
    g = np.array([0.2, -0.4, 1.5, -1.0, 0.3])
    y = np.array([1.0, -1.0, 1.0, -1.0, -1.0])
    kinks = y - g
    sums = [np.maximum(0, 1 - y * (g + k)).sum() for k in kinks]
    b = optimal_intercept(g, y)
    assert np.maximum(0, 1 - y * (g + b)).sum() == pytest.approx(min(sums))


def test_models_refuse_bad_input() -> None:
    X, y = _problem()
    with pytest.raises(ValueError, match="one class only"):
        svm_primal_model(X, np.ones(len(y)), 1.0)
    with pytest.raises(ValueError, match="C=0.0: give a finite number > 0"):
        svm_dual_model(X @ X.T, y, 0.0)
    with pytest.raises(ValueError, match="one label per sample"):
        svm_dual_problem(X @ X.T, y[:-1], 1.0)
