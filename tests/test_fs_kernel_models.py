"""Paper A's MINLP (4), its relaxation and the beta-subproblem (5) against enumeration."""

from __future__ import annotations

import itertools
import logging

import numpy as np
import pytest

from sparsekm.algorithms.fs_kernel_core import FSKernelProblem, random_masks
from sparsekm.algorithms.fs_kernel_enum import enumerate_masks
from sparsekm.algorithms.fs_kernel_relax import relax_round, round_top_B, solve_minlp
from sparsekm.algorithms.fs_kernel_setfun import SetFunctions
from sparsekm.models.fs_kernel import fs_kernel_beta_subproblem, fs_kernel_minlp
from sparsekm.solvers import Status, solve

logging.getLogger("pyomo").setLevel(logging.ERROR)


def _tiny(kernel: str):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(10, 6))
    y = np.where(X[:, 0] + X[:, 1] ** 2 > 0.8, 1.0, -1.0)
    return FSKernelProblem(X, y, kernel, B=3, degree=2)


def test_minlp_model_objective_matches_dual_at_fixed_point():
    import pyomo.environ as pyo

    p = _tiny("poly")
    opt = enumerate_masks(p, n_jobs=1)
    from pyomo.util.calc_var_value import calculate_variable_from_constraint

    for aux in (False, True):
        mdl = fs_kernel_minlp(p.X, p.y, "poly", 3, degree=2, aux=aux)
        for j in range(p.n):
            mdl.beta[j].set_value(float(opt.beta[j]))
        for i in range(p.m):
            mdl.alpha[i].set_value(float(opt.alpha[i]))
        if aux:
            assert len(mdl.s) == 55
            for k, (i, h) in enumerate(mdl.P):
                calculate_variable_from_constraint(mdl.s[i, h], mdl.s_def[k + 1])
        assert pyo.value(mdl.obj) == pytest.approx(opt.objective, rel=1e-6)
        assert len(mdl.beta) == 6 and len(mdl.alpha) == 10


@pytest.mark.parametrize("kernel", ["poly", "rbf"])
def test_scip_minlp_and_relax_round_versus_enumeration(kernel):
    p = _tiny(kernel)
    opt = enumerate_masks(p, n_jobs=1)
    r = solve_minlp(p, time_limit=4, beta_start=random_masks(p.n, p.B, 1, 0)[0])
    assert r.status in ("optimal", "time_limit")
    # SCIP's incumbent can be no better than the certified optimum; its bound no higher
    assert r.objective >= opt.objective - 1e-6 * abs(opt.objective)
    if r.lower_bound is not None:
        assert r.lower_bound <= opt.objective + 1e-4 * abs(opt.objective)
    rr = relax_round(p, random_masks(p.n, p.B, 1, 1)[0], time_limit=60)
    assert rr.beta.sum() == p.B
    assert rr.objective >= opt.objective - 1e-6 * abs(opt.objective)
    # on this instance Ipopt's relaxed beta is binary and optimal (Paper A's observation)
    assert rr.extra["integral"]
    assert rr.objective == pytest.approx(opt.objective, rel=1e-6)
    # the numpy/cyipopt path (exact gradients) solves the same NLP
    rn = relax_round(p, random_masks(p.n, p.B, 1, 1)[0], time_limit=60, backend="numpy")
    assert rr.extra["backend"] == "pyomo" and rn.extra["backend"] == "numpy"
    assert rn.extra["relaxation_objective"] == pytest.approx(
        rr.extra["relaxation_objective"], rel=1e-5)
    assert np.array_equal(rn.beta, rr.beta)


def test_relaxed_nlp_gradient_matches_finite_differences():
    from sparsekm.algorithms.fs_kernel_relax import _RelaxedNLP

    for kernel in ("poly", "rbf"):
        p = FSKernelProblem(_tiny(kernel).X, _tiny(kernel).y, kernel, B=3, degree=3)
        nlp = _RelaxedNLP(p)
        rng = np.random.default_rng(1)
        x = np.concatenate([rng.uniform(0, 3, p.m), rng.uniform(0, 1, p.n)])
        eye = np.eye(x.size)
        num = np.array([(nlp.objective(x + 1e-6 * e) - nlp.objective(x - 1e-6 * e)) / 2e-6
                        for e in eye])
        np.testing.assert_allclose(nlp.gradient(x), num, rtol=1e-6, atol=1e-6)


def test_beta_subproblem_scip_equals_min_F():
    p = _tiny("poly")
    alpha = enumerate_masks(p, n_jobs=1).alpha
    sf = SetFunctions(p.X, p.y, alpha, "poly", 0.1, 2, 1.0)
    best = min(sf.F(S) for S in itertools.combinations(range(p.n), 3))
    mdl = fs_kernel_beta_subproblem(p.X, p.y, alpha, "poly", 3, degree=2)
    res = solve(mdl, "scip", time_limit=30)
    assert res.status == Status.OPTIMAL
    assert res.objective == pytest.approx(0.5 * best, rel=1e-5)


def test_paper_only_methods_refuse_margin_and_rounding():
    p = FSKernelProblem(_tiny("poly").X, _tiny("poly").y, B=3, sense="margin")
    with pytest.raises(ValueError, match="sense='paper'"):
        solve_minlp(p)
    with pytest.raises(ValueError, match="sense='paper'"):
        relax_round(p)
    assert np.flatnonzero(round_top_B([0.2, 0.9, 0.5, 0.5], 2)).tolist() == [1, 2]


def test_gurobi_certifies_gaussian_minlp_when_licensed():
    from sparsekm.solvers import SolverError

    p = _tiny("rbf")
    opt = enumerate_masks(p, n_jobs=1)
    try:
        r = solve_minlp(p, solver="gurobi", time_limit=60)
    except SolverError as exc:  # not installed / size-limited licence
        pytest.skip(f"gurobi unavailable: {exc}")
    assert r.status == "optimal"
    assert r.objective == pytest.approx(opt.objective, rel=1e-6)
    assert np.array_equal(r.beta, opt.beta)
    assert r.lower_bound <= opt.objective + 1e-4 * abs(opt.objective)
