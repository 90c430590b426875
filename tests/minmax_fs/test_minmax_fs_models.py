"""Paper E's models: input checks, Danskin gradient of V, strong duality of (18), and the
numpy callbacks of (20) against the Pyomo model compiled independently."""

from __future__ import annotations

import numpy as np
import pytest
from minmax_fs_data import make_instance

from sparsekm.models.minmax_fs import (
    MinMaxFSProblem,
    check_model_size,
    lower_dual_model,
    lower_level,
    minmax_model,
    single_level_model,
)
from sparsekm.models.minmax_fs.nlp import _SingleLevel, single_level_nlp
from sparsekm.solvers import solve


@pytest.fixture
def small():
    return make_instance()


@pytest.mark.parametrize(("kw", "needle"), [
    ({"C2": 0.0}, "C2=0.0: give a finite number > 0 and < 1"),
    ({"C2": 1.0}, "C2=1.0: give a finite number > 0 and < 1"),
    ({"C2": 1.5}, "C2=1.5: give a finite number > 0 and < 1"),
    ({"p": 0.0}, "p=0.0: give a finite number > 0"), ({"p": -1}, "p=-1: give a finite"),
    ({"C": 0}, "C=0: give"), ({"C2": "x"}, "C2='x': give a finite number")])
def test_bad_parameters_get_clear_errors(small, kw, needle):
    X, y = small
    with pytest.raises(ValueError, match=needle):
        MinMaxFSProblem(X, y, **kw)


def test_bad_start_gets_clear_errors(small):
    pb = MinMaxFSProblem(*small)
    with pytest.raises(ValueError, match="negative entries"):
        pb.start(np.array([0.1, -0.2, 0.1, 0.1]))
    with pytest.raises(ValueError, match="NaN or inf"):
        pb.start(np.nan)
    with pytest.raises(ValueError, match="one weight per feature"):
        pb.start(np.ones(3))
    np.testing.assert_array_equal(pb.start(0.3), np.full(4, 0.3))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_danskin_gradient_equals_finite_differences_of_V(seed):

    X, y = make_instance(m=16, n=4, seed=seed)
    rng = np.random.default_rng(seed)
    pb = MinMaxFSProblem(X, y, C=rng.choice([0.5, 3.0]), C2=0.3)
    g = rng.uniform(0.05, 2.0, 4)
    ll = lower_level(pb, g, tol=1e-12)
    h = 1e-5
    fd = [(lower_level(pb, g + h * e, tol=1e-12).value
           - lower_level(pb, g - h * e, tol=1e-12).value) / (2 * h) for e in np.eye(4)]
    np.testing.assert_allclose(ll.grad, fd, rtol=1e-4, atol=1e-6)
    assert ll.primal == pytest.approx(ll.value, rel=1e-6)       # strong duality at the optimum


@pytest.mark.parametrize("objective", ["printed", "reduced"])
def test_lower_dual_18_optimum_equals_V_strong_duality(small, objective):
    pb = MinMaxFSProblem(*small, C=2.0, C2=0.4)
    ll = lower_level(pb, 0.7, tol=1e-12)
    res = solve(lower_dual_model(pb, gamma=0.7, objective=objective), solver="ipopt")
    assert res.status.value == "locally_optimal"  # Ipopt on an NLP-class model: not certified
    assert res.objective == pytest.approx(ll.value, rel=1e-6)


def test_minmax_14_at_fixed_gamma_equals_the_objective(small):
    pb = MinMaxFSProblem(*small, C=2.0, C2=0.4)
    ll = lower_level(pb, 0.7, tol=1e-12)
    res = solve(minmax_model(pb, gamma=0.7), solver="ipopt")
    assert res.objective == pytest.approx(pb.objective(ll.gamma, ll.value), rel=1e-6)


def _order(mdl, n, m):
    import pyomo.environ as pyo

    off = {"gamma": 0, "alpha": n, "nu": n + m, "lambda0": n + m + 1, "lambdaC": n + 2 * m + 1}
    out = []
    for v in mdl.component_data_objects(pyo.Var):
        base, _, idx = v.name.partition("[")
        out.append(off[base] + (int(idx[:-1]) if idx else 0))
    return np.array(out)


@pytest.mark.parametrize(("p", "objective"), [(1.0, "printed"), (1.5, "reduced"),
                                              (0.5, "printed")])
def test_callbacks_of_20_equal_the_pyomo_model_and_fd_hessian(p, objective):
    from sparsekm.solvers.ipopt_adapter import compile_pyomo

    X, y = make_instance(m=7, n=3, seed=5)
    pb = MinMaxFSProblem(X, y, C=2.0, C2=0.3, p=p)
    m, n = pb.m, pb.n
    ll = lower_level(pb, 0.5)
    nlp = single_level_nlp(pb, ll, objective=objective, hessian="exact")
    ref, _ = compile_pyomo(single_level_model(pb, gamma0=0.5, start=ll.point(),
                                              objective=objective))
    order = _order(single_level_model(pb, gamma0=0.5, objective=objective), n, m)
    x = nlp.x0 + np.random.default_rng(0).uniform(0.0, 0.3, nlp.n)
    xp = x[order]
    assert nlp.objective(x) == pytest.approx(ref.objective(xp), rel=1e-12)
    np.testing.assert_allclose(nlp.gradient(x)[order], ref.gradient(xp), atol=1e-12)
    np.testing.assert_allclose(nlp.constraints(x), ref.constraints(xp), atol=1e-12)
    cb = _SingleLevel(pb, True, objective)
    J = np.zeros((m, nlp.n))
    J[cb.jacobianstructure()] = cb.jacobian(x)
    R = np.zeros((m, nlp.n))
    r, c = ref.jacobianstructure()
    np.add.at(R, (r, order[c]), ref.jacobian(xp))
    np.testing.assert_allclose(J, R, atol=1e-12)
    mu, sigma, h = np.random.default_rng(1).normal(size=m), 0.7, 1e-6

    def lagrangian_grad(z):
        Jz = np.zeros((m, nlp.n))
        Jz[cb.jacobianstructure()] = cb.jacobian(z)
        return sigma * cb.gradient(z) + Jz.T @ mu

    H = np.column_stack([(lagrangian_grad(x + h * e) - lagrangian_grad(x - h * e)) / (2 * h)
                         for e in np.eye(nlp.n)])
    Hc = np.zeros_like(H)
    np.add.at(Hc, cb.hessianstructure(), cb.hessian(x, mu, sigma))
    np.testing.assert_allclose(Hc, np.tril(H), atol=1e-6)


def test_models_too_large_are_refused_with_size_and_fix():

    X, y = make_instance(m=80, n=10)
    pb = MinMaxFSProblem(X, y)
    with pytest.raises(ValueError, match=r"m=80 rows, n=10 features.*31,600.*method='fast'"):
        check_model_size(pb, "scip")
    check_model_size(pb, limit=40_000)                 # 31,600 terms: under a given limit
    from sparsekm.models.minmax_fs import nlp as nlp_mod

    ll = lower_level(pb, 0.1)
    old = nlp_mod.JACOBIAN_LIMIT
    try:
        nlp_mod.JACOBIAN_LIMIT = 1000
        with pytest.raises(ValueError, match=r"m\(n\+m\) = 7,200.*method='fast'"):
            single_level_nlp(pb, ll)
    finally:
        nlp_mod.JACOBIAN_LIMIT = old


def test_registry_lists_the_four_formulations_and_four_methods():
    from sparsekm import registry

    assert registry.names("minmax-fs", "formulation") == ["epigraph", "lower-dual", "minmax",
                                                          "single-level"]
    assert registry.names("minmax-fs", "method") == ["fast", "ipopt", "nofs", "scip"]
    assert registry.get("minmax-fs", "formulation", "single-level").citation == \
        "paper E, eq. (20)"
