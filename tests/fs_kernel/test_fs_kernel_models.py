"""Paper A's MINLP (4), its relaxation and the beta-subproblem (5) against enumeration."""

from __future__ import annotations

import itertools
import logging

import numpy as np
import pytest

from sparsekm.algorithms.fs_kernel.enumerate import enumerate_masks as _enumerate
from sparsekm.algorithms.fs_kernel.minlp import round_top_B
from sparsekm.algorithms.fs_kernel.minlp import solve_minlp as _minlp
from sparsekm.algorithms.fs_kernel.relax_round import relax_round as _relax_round
from sparsekm.models.fs_kernel import (
    FSKernelProblem,
    SetFunctions,
    fs_kernel_beta_subproblem,
    fs_kernel_minlp,
    random_masks,
)
from sparsekm.relaxations.fs_kernel.continuous import relaxation_nlp
from sparsekm.solvers import SolverPlan, Status, solve


def enumerate_masks(p):
    return _enumerate(p, SolverPlan(), workers=1)


def solve_minlp(p, solver=None, time_limit=None, beta_start=None):
    return _minlp(p, SolverPlan(solver=solver, time_limit=time_limit), beta_in=beta_start)


def relax_round(p, beta_in=None, time_limit=None, form="auto"):
    return _relax_round(p, SolverPlan(time_limit=time_limit), beta_in=beta_in, form=form)

logging.getLogger("pyomo").setLevel(logging.ERROR)


def _tiny(kernel: str):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(10, 6))
    y = np.where(X[:, 0] + X[:, 1] ** 2 > 0.8, 1.0, -1.0)
    return FSKernelProblem(X, y, kernel, B=3, degree=2, sense="paper")


def test_minlp_model_objective_matches_dual_at_fixed_point():
    import pyomo.environ as pyo

    p = _tiny("poly")
    opt = enumerate_masks(p)
    from pyomo.util.calc_var_value import calculate_variable_from_constraint

    for aux in (False, True):
        mdl = fs_kernel_minlp(p, aux=aux)
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
    opt = enumerate_masks(p)
    r = solve_minlp(p, time_limit=4, beta_start=random_masks(p.n, p.B, 1, 0)[0])
    assert r.status.value in ("optimal", "feasible")
    # SCIP's incumbent can be no better than the certified optimum; its bound no higher
    assert r.objective >= opt.objective - 1e-6 * abs(opt.objective)
    if r.bound is not None:
        assert r.bound <= opt.objective + 1e-4 * abs(opt.objective)
    rr = relax_round(p, random_masks(p.n, p.B, 1, 1)[0], time_limit=60, form="pyomo")
    assert rr.beta.sum() == p.B
    assert rr.objective >= opt.objective - 1e-6 * abs(opt.objective)
    # on this instance Ipopt's relaxed beta is binary and optimal (Paper A's observation)
    assert rr.extra["integral"]
    assert rr.objective == pytest.approx(opt.objective, rel=1e-6)
    # the callback form (exact numpy gradients) solves the same NLP through the solver layer
    rn = relax_round(p, random_masks(p.n, p.B, 1, 1)[0], time_limit=60)
    assert rr.extra["form"] == "pyomo" and rn.extra["form"] == "callbacks"
    assert rn.extra["relaxation_objective"] == pytest.approx(
        rr.extra["relaxation_objective"], rel=1e-5)
    assert np.array_equal(rn.beta, rr.beta)


def test_relaxed_nlp_gradient_matches_finite_differences():
    for kernel in ("poly", "rbf"):
        p = FSKernelProblem(_tiny(kernel).X, _tiny(kernel).y, kernel, B=3, degree=3)
        nlp = relaxation_nlp(p, np.full(p.n, 0.5))
        rng = np.random.default_rng(1)
        x = np.concatenate([rng.uniform(0, 3, p.m), rng.uniform(0, 1, p.n)])
        eye = np.eye(x.size)
        num = np.array([(nlp.objective(x + 1e-6 * e) - nlp.objective(x - 1e-6 * e)) / 2e-6
                        for e in eye])
        np.testing.assert_allclose(nlp.gradient(x), num, rtol=1e-6, atol=1e-6)


def test_beta_subproblem_scip_equals_min_F():
    p = _tiny("poly")
    alpha = enumerate_masks(p).alpha
    sf = SetFunctions(p.X, p.y, alpha, "poly", 0.1, 2, 1.0)
    best = min(sf.F(S) for S in itertools.combinations(range(p.n), 3))
    mdl = fs_kernel_beta_subproblem(p, alpha)
    res = solve(mdl, "scip", time_limit=30)
    assert res.status == Status.OPTIMAL
    assert res.objective == pytest.approx(0.5 * best, rel=1e-5)


def test_paper_only_methods_refuse_margin_and_rounding():
    p = FSKernelProblem(_tiny("poly").X, _tiny("poly").y, B=3)  # margin: the default
    with pytest.raises(ValueError, match="sense='paper'"):
        solve_minlp(p)
    with pytest.raises(ValueError, match="sense='paper'"):
        relax_round(p)
    assert np.flatnonzero(round_top_B([0.2, 0.9, 0.5, 0.5], 2)).tolist() == [1, 2]


def test_gurobi_certifies_gaussian_minlp_when_licensed():
    from sparsekm.solvers import SolverError

    p = _tiny("rbf")
    opt = enumerate_masks(p)
    try:
        r = solve_minlp(p, solver="gurobi", time_limit=60)
    except SolverError as exc:  # not installed / size-limited licence
        pytest.skip(f"gurobi unavailable: {exc}")
    assert r.status == "optimal"
    assert r.objective == pytest.approx(opt.objective, rel=1e-6)
    assert np.array_equal(r.beta, opt.beta)
    assert r.bound <= opt.objective + 1e-4 * abs(opt.objective)


def test_a_failed_start_is_skipped_and_the_best_of_the_others_returned(monkeypatch):
    """relax-round over 3 starts with start 1's NLP failing (no point): the result is the best
    of starts 0 and 2, each as run alone; start 1 is recorded with its message. When every
    start fails, the call fails."""
    from sparsekm.algorithms.fs_kernel import relax_round as module
    from sparsekm.algorithms.fs_kernel.multistart import solve_fs_kernel
    from sparsekm.models.fs_kernel import random_masks
    from sparsekm.solvers import SolveFailedError

    p = _tiny("poly")
    masks = random_masks(p.n, p.B, 3, 0)
    alone = [relax_round(p, beta_in=m) for m in masks]
    real = module.continuous

    def failing(problem, plan, beta_in, form):
        if np.array_equal(beta_in, masks[1]) or fail_all:
            res = real(problem, plan, beta_in=beta_in, form=form)
            res.values = {}
            res.message = "Ipopt: unrecoverable error"
            return res
        return real(problem, plan, beta_in=beta_in, form=form)

    monkeypatch.setattr(module, "continuous", failing)
    fail_all = False
    res = solve_fs_kernel(p, "relax-round", SolverPlan(), starts=3)
    best = min((alone[0], alone[2]), key=lambda r: p.sign * r.objective)
    assert res.objective == best.objective and res.selected == best.selected
    assert res.extra["starts"][1]["status"] == "error"
    assert "unrecoverable" in res.extra["starts"][1]["message"]
    fail_all = True
    with pytest.raises(SolveFailedError, match="all 3 starts failed"):
        solve_fs_kernel(p, "relax-round", SolverPlan(), starts=3)
