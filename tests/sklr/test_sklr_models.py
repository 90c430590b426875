"""Paper C's theory on data: lam = 0 is plain KLR (an independent solver), Lemma 1,
Observation 1, Proposition 1 (where it holds and a measured counterexample), eq. (3)."""

from __future__ import annotations

import numpy as np
import pytest

from sparsekm import registry
from sparsekm.data import Scaler, load_dataset
from sparsekm.engines.smo import SMOOptions, solve_kernel_dual
from sparsekm.models.sklr.dual import dual_model, dual_objective
from sparsekm.models.sklr.problem import SKLRProblem
from sparsekm.models.sklr.properties import (
    kkt_rho_b,
    predict_proba,
    proposition1_lambda,
    selected,
)
from sparsekm.solvers import SolverPlan, solve

TIGHT = SMOOptions(tol=1e-10, max_iter=-1)


def scaled(name: str) -> tuple[np.ndarray, np.ndarray]:
    ds = load_dataset(name)
    return Scaler("minmax01").fit_transform(ds.X), ds.y


@pytest.mark.parametrize("C", [0.1, 10.0])
def test_lam0_is_plain_klr_against_logistic_regression_on_the_exact_feature_map(C):
    """Strong duality between (1) solved by scikit-learn's lbfgs on Phi (K = Phi Phi') and
    Keerthi's dual (5) = (18) at lam = 0 solved by SMO: equal values, equal decisions."""
    from sklearn.linear_model import LogisticRegression

    X, y = scaled("sonar")
    pr = SKLRProblem(X, y, C=C, lam=0.0, gamma_bound=1e-12)
    res = solve_kernel_dual(pr.K, y, pr.loss(), options=TIGHT)
    L, U = np.linalg.eigh(pr.K)
    keep = 1e-12 * L.max() < L
    Phi = U[:, keep] * np.sqrt(L[keep])
    lr = LogisticRegression(C=C, tol=1e-12, max_iter=100_000).fit(Phi, y)
    f_lr = Phi @ lr.coef_[0] + lr.intercept_[0]
    primal = 0.5 * lr.coef_[0] @ lr.coef_[0] + C * np.logaddexp(0.0, -y * f_lr).sum()
    assert primal == pytest.approx(-res.objective, rel=1e-9)  # measured 6e-14 at C = 10
    f_smo = pr.K @ res.dual_coef + res.b
    np.testing.assert_allclose(f_smo, f_lr, atol=1e-5)  # measured 1.2e-6
    np.testing.assert_allclose(predict_proba(pr.K, res.dual_coef, res.b),
                               lr.predict_proba(Phi)[:, 1], atol=1e-6)


def test_lemma1_optimum_of_18_is_strictly_inside_0_C():
    X, y = scaled("sonar")
    for C in (0.1, 10.0):
        pr = SKLRProblem(X, y, C=C, lam=0.5 * C)
        res = solve(dual_model(pr, gamma_bound=0.0), solver="clarabel")  # no auxiliary bound
        a = res.values["alpha"]  # measured at C = 10: min 5.6e-3, far above the solver's 1e-8
        assert res.ok and a.min() > 1e-4 * C and a.max() < (1 - 1e-4) * C


@pytest.mark.parametrize("lam", [0.0, 0.3, 3.0, 30.0])
def test_observation1_rho_equals_lam_and_b_from_the_kkt_system(lam):
    X, y = scaled("ionosphere")
    pr = SKLRProblem(X[:150], y[:150], C=10.0, lam=lam)
    res = solve_kernel_dual(pr.K, pr.y, pr.loss(), options=TIGHT)
    rho, b = kkt_rho_b(pr, res.alpha)
    assert rho == pytest.approx(lam, abs=1e-7) and res.rho == pytest.approx(lam, abs=1e-7)
    assert b == pytest.approx(res.b, abs=1e-7)


def test_proposition1_threshold_holds_on_imbalanced_data():
    X, y = scaled("breast_cancer_diagnostic")  # 37 % +1: the minority class is +1
    pr0 = SKLRProblem(X, y, C=10.0, lam=0.0)
    a0 = solve_kernel_dual(pr0.K, y, pr0.loss(), options=SMOOptions(tol=1e-7, max_iter=-1))
    lam_bar = proposition1_lambda(pr0, a0.alpha)
    pr = SKLRProblem(X, y, C=10.0, lam=lam_bar)
    pr.__dict__["K"] = pr0.K
    res = solve_kernel_dual(pr.K, y, pr.loss(), options=SMOOptions(tol=1e-7, max_iter=-1))
    minority = res.alpha[y > 0]
    assert np.all(minority >= pr.upper * (1 - 1e-9))  # measured: all 212 at C - gamma
    assert selected(pr, res.alpha).size == res.support.size


def test_proposition1_threshold_fails_on_nearly_balanced_sonar():
    """A measured counterexample (docs/guides/sklr.md): the proof drops the intercept."""
    X, y = scaled("sonar")  # 97 of 208 are -1
    pr0 = SKLRProblem(X, y, C=1.0, lam=0.0)
    a0 = solve_kernel_dual(pr0.K, y, pr0.loss(), options=SMOOptions(tol=1e-8, max_iter=-1))
    lam_bar = proposition1_lambda(pr0, a0.alpha)
    assert lam_bar == pytest.approx(3.909, abs=1e-3)
    pr = SKLRProblem(X, y, C=1.0, lam=lam_bar)
    res = solve_kernel_dual(pr.K, y, pr.loss(), options=SMOOptions(tol=1e-8, max_iter=-1))
    reached = np.mean(res.alpha[y < 0] >= pr.upper * (1 - 1e-9))
    assert reached == 0.0  # none of the 97 minority points reaches C - gamma


def test_registry_methods_and_formulation_of_sklr():
    assert registry.names("sklr", "method") == ["conic", "smo1", "smo2"]
    assert registry.get("sklr", "formulation", "dual").citation == "paper C, eq. (22)"
    X, y = scaled("wine")
    pr = SKLRProblem(X, y, C=5.0, lam=1.0)
    out = {name: registry.get("sklr", "method", name)(pr, SolverPlan())
           for name in ("smo2", "smo1", "conic")}
    for name, res in out.items():
        assert res.problem == "sklr" and res.method == name
        assert res.objective == pytest.approx(out["conic"].objective, rel=1e-6)
        assert res.objective == pytest.approx(dual_objective(pr, res.alpha), rel=1e-12)
    # the second-order rule needs fewer iterations than the maximal violating pair here
    assert out["smo2"].extra["iterations"] < out["smo1"].extra["iterations"]


def test_problem_rejects_bad_parameters_with_the_fix():
    X, y = scaled("wine")
    with pytest.raises(ValueError, match="gamma_bound"):
        SKLRProblem(X, y, C=1e-5)
    with pytest.raises(ValueError, match="lam"):
        SKLRProblem(X, y, lam=float("nan"))
    with pytest.raises(ValueError, match="C"):
        SKLRProblem(X, y, C=-1.0)
    with pytest.raises(ValueError, match="feasible"):
        SKLRProblem(X[:60], np.where(np.arange(60) == 0, 1.0, -1.0), C=3e-4, gamma_bound=1e-4)
