"""Tests for the native SVM dual solver sparsekm.engines.smo (Paper A, eq. (3))."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from sparsekm.engines.smo import (
    SVMDualOptions,
    decision_function,
    dual_objective,
    primal_objective,
    solve_svm_dual,
)
from sparsekm.kernels import MaskedKernel, kernel_matrix
from sparsekm.solvers import Result, Termination

BACKENDS = ["libsvm", "svc"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_points_hand_computed(backend):
    # x = +1 (y = +1), x = -1 (y = -1), linear kernel, hard margin:
    # w = 1, b = 0, alpha = (1/2, 1/2), dual value 1/2 * 1 - 1 = -1/2
    X = np.array([[1.0], [-1.0]])
    y = np.array([1, -1])
    res = solve_svm_dual(kernel_matrix(X, kernel="linear"), y, 1e6,
                         options=SVMDualOptions(backend=backend))
    assert isinstance(res, Result)
    np.testing.assert_allclose(res.alpha, [0.5, 0.5], atol=1e-9)
    assert res.b == pytest.approx(0.0, abs=1e-9)
    assert res.objective == pytest.approx(-0.5, abs=1e-9)
    np.testing.assert_array_equal(res.support, [0, 1])
    assert res.termination is Termination.CONVERGED and res.extra["iterations"] >= 1
    np.testing.assert_allclose(decision_function(res, np.array([[2.0, -2.0]])), [2.0],
                               atol=1e-9)
    assert res.bound == pytest.approx(-0.5, abs=1e-9)  # -primal at (w, b*): hand value


def test_2d_separable_hand_computed():
    # x1 = (1, 1) y=+1, x2 = (-1, -1) y=-1, x3 = (2, 2) y=+1 (outside the margin):
    # w = (1/2, 1/2), b = 0, alpha = (1/4, 1/4, 0), dual value 1/2 ||w||^2 - 1/2 = -1/4
    X = np.array([[1.0, 1.0], [-1.0, -1.0], [2.0, 2.0]])
    y = np.array([1.0, -1.0, 1.0])
    K = kernel_matrix(X, kernel="linear")
    res = solve_svm_dual(K, y, 100.0)
    np.testing.assert_allclose(res.alpha, [0.25, 0.25, 0.0], atol=1e-9)
    assert res.b == pytest.approx(0.0, abs=1e-9)
    assert res.objective == pytest.approx(-0.25, abs=1e-9)
    np.testing.assert_array_equal(res.support, [0, 1])
    np.testing.assert_allclose(decision_function(res, K), [1.0, -1.0, 2.0], atol=1e-9)
    assert primal_objective(K, y, res.alpha, res.b, 100.0) == pytest.approx(0.25, abs=1e-9)


def test_box_constraint_active():
    # same two points with C = 0.1: both alpha at the bound,
    # dual value 1/2 * 0.1^2 * (1 + 1 + 2) - 0.2 = -0.18
    K = np.array([[1.0, -1.0], [-1.0, 1.0]])
    res = solve_svm_dual(K, [1, -1], 0.1)
    np.testing.assert_allclose(res.alpha, [0.1, 0.1], atol=1e-12)
    assert res.objective == pytest.approx(-0.18, abs=1e-12)
    assert dual_objective(K, [1, -1], res.alpha) == pytest.approx(-0.18, abs=1e-12)


@pytest.fixture(scope="module")
def rbf_problem() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 5))
    y = np.where(X[:, 0] - X[:, 1] ** 2 + 0.5 * rng.standard_normal(60) > 0, 1.0, -1.0)
    return X, y, kernel_matrix(X, kernel="rbf", gamma=0.3)


@pytest.mark.parametrize("backend", BACKENDS)
def test_kkt_random_rbf(rbf_problem, backend):
    X, y, K = rbf_problem
    C = 2.0
    res = solve_svm_dual(K, y, C, options=SVMDualOptions(backend=backend))
    a = res.alpha
    assert abs(y @ a) < 1e-10
    assert np.all(a >= 0) and np.all(a <= C + 1e-12)
    np.testing.assert_array_equal(res.support, np.flatnonzero(a > 0))
    primal = primal_objective(K, y, a, res.b, C)
    assert res.objective == pytest.approx(dual_objective(K, y, a), rel=1e-12)
    assert res.objective < 0
    assert abs(primal + res.objective) <= 1e-4 * abs(res.objective)  # strong duality
    # complementary slackness of the KKT conditions
    margin = y * decision_function(res, K)
    free = (a > 1e-8) & (a < C - 1e-8)
    assert free.any()
    np.testing.assert_allclose(margin[free], 1.0, atol=1e-4)
    assert np.all(margin[a <= 1e-8] >= 1 - 1e-4)
    assert np.all(margin[a >= C - 1e-8] <= 1 + 1e-4)


def test_matches_sklearn_svc(rbf_problem):
    X, y, K = rbf_problem
    res = solve_svm_dual(K, y, 1.0)
    clf = SVC(kernel="precomputed", C=1.0, tol=1e-6).fit(K, y)
    np.testing.assert_allclose(decision_function(res, K), clf.decision_function(K), atol=1e-10)
    np.testing.assert_array_equal(res.support, np.sort(clf.support_))
    other = solve_svm_dual(K, y, 1.0, options=SVMDualOptions(backend="svc"))
    np.testing.assert_allclose(res.alpha, other.alpha, atol=1e-12)
    assert res.b == pytest.approx(other.b, abs=1e-12)
    assert res.extra["iterations"] == other.extra["iterations"]


def test_masked_kernel_in_the_loop(rbf_problem):
    X, y, _ = rbf_problem
    mk = MaskedKernel(X, "rbf", gamma=0.1, mask=np.array([1, 1, 0, 1, 0]))
    mk.swap(3, 4)
    # read-only K is fine
    res = solve_svm_dual(mk.K, y, 10.0, options=SVMDualOptions(check_input=False))
    ref = solve_svm_dual(kernel_matrix(X[:, mk.mask], kernel="rbf", gamma=0.1), y, 10.0)
    assert res.objective == pytest.approx(ref.objective, rel=1e-8)
    Z = np.random.default_rng(5).standard_normal((4, 5))
    np.testing.assert_allclose(
        decision_function(res, mk.cross(Z)), decision_function(ref, mk.cross(Z)),
        rtol=1e-6, atol=1e-6
    )


def test_max_iter_warns(rbf_problem):
    _, y, K = rbf_problem
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        res = solve_svm_dual(K, y, 1.0, options=SVMDualOptions(max_iter=2))
    assert res.termination is Termination.ITERATION_LIMIT and res.extra["iterations"] == 2


@pytest.mark.parametrize(
    ("K", "y", "C", "kw", "match"),
    [
        (np.ones((3, 2)), [1, -1, 1], 1.0, {}, "square"),
        (np.eye(3), [1, -1], 1.0, {}, "length 3"),
        (np.eye(3), [0, 1, 1], 1.0, {}, r"only -1 and \+1"),
        (np.eye(3), ["a", "b", "a"], 1.0, {}, "numbers -1 and"),
        (np.eye(3), [1, 1, 1], 1.0, {}, "one class only"),
        (np.eye(3), [1, -1, 1], 0.0, {}, "C must be a positive"),
        (np.eye(3), [1, -1, 1], np.nan, {}, "C must be a positive"),
        (np.eye(3), [1, -1, 1], "1", {}, "C must be a positive"),
        (np.array([[1.0, 0.5], [0.0, 1.0]]), [1, -1], 1.0, {}, "symmetrize"),
        (np.array([[1.0, np.nan], [np.nan, 1.0]]), [1, -1], 1.0, {}, "NaN"),
        (np.eye(2), [1, -1], 1.0, {"tol": 0}, "tol must be"),
        (np.eye(2), [1, -1], 1.0, {"max_iter": 0}, "max_iter must be"),
        (np.eye(2), [1, -1], 1.0, {"backend": "cvx"}, "backend must be"),
    ],
)
def test_bad_inputs(K, y, C, kw, match):
    with pytest.raises(ValueError, match=match):
        solve_svm_dual(K, y, C, options=SVMDualOptions(**kw))


def test_options_are_one_object_and_solve_s_times_the_backend_alone(rbf_problem):
    _, y, K = rbf_problem
    with pytest.raises(ValueError, match="SVMDualOptions"):
        solve_svm_dual(K, y, 1.0, options={"tol": 1e-3})
    for backend in ("libsvm", "smo"):
        res = solve_svm_dual(K, y, 1.0, options=SVMDualOptions(backend=backend))
        assert 0.0 < res.extra["solve_s"] <= res.time_s and res.extra["load_s"] >= 0.0


def test_decision_shape_error():
    res = solve_svm_dual(np.eye(2), [1, -1], 1.0)
    with pytest.raises(ValueError, match=r"\(n_test, 2\)"):
        decision_function(res, np.ones((3, 5)))


def test_certificate_bounds_the_dual_optimum(rbf_problem):
    """A loose solve (max_iter) still carries a valid bound: bound <= D* <= objective."""
    _, y, K = rbf_problem
    tight = solve_svm_dual(K, y, 1.0, options=SVMDualOptions(tol=1e-10))
    with pytest.warns(ConvergenceWarning):
        loose = solve_svm_dual(K, y, 1.0, options=SVMDualOptions(max_iter=5))
    assert loose.bound <= tight.objective + 1e-9 <= loose.objective + 2e-9
    assert tight.gap < 1e-6
