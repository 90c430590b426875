"""Relaxations (14)-(18) of paper B: valid bounds, the proven orderings, Theorem 6."""

from __future__ import annotations

import numpy as np
import pytest
from smkl_instances import small_problem

from sparsekm import registry
from sparsekm.models.smkl.problem import SMKLProblem
from sparsekm.solvers import SolverPlan

RELAX = ["soc-basis", "soc-random", "sdp-3x3", "sdp-full", "sdp-full-cp"]
CLARABEL = SolverPlan(relax_solver="clarabel")  # accurate interior point for the comparisons


@pytest.fixture(scope="module")
def case():
    p = small_problem(seed=1, m=24)
    opt = registry.get("smkl", "method", "enumerate")(p)
    rel = {r: registry.get("smkl", "relaxation", r)(p, CLARABEL) for r in RELAX}
    return p, opt, rel


def test_every_relaxation_is_below_the_support_by_support_optimum(case):
    """Theorem 5 (and (16)-(18) relax (14)): value and certified bound <= OPT of (4)."""
    _, opt, rel = case
    for name, r in rel.items():
        # sdp-full-cp's value is its master point's, within its stopping tolerance 1e-4
        tol = 1e-4 if name == "sdp-full-cp" else 1e-6
        assert r.objective <= opt.objective * (1 + tol), name
        assert r.bound <= opt.objective * (1 + 1e-6), name
        assert r.bound > 0.0, name  # a certificate, not a vacuous -inf


def test_orderings_proven_by_feasible_set_inclusion(case):
    """Section 4.2.1: S_+ within S_3 within S_2 gives v(16) <= v(18) <= v(14), and (17) adds
    cuts to (16) that (14) implies: v(16) <= v(17) <= v(14)."""
    _, _, rel = case
    v = {k: r.objective for k, r in rel.items()}
    eps = 1e-6 * max(1.0, abs(v["sdp-full"]))
    assert v["soc-basis"] <= v["sdp-3x3"] + eps <= v["sdp-full"] + 2 * eps
    assert v["soc-basis"] <= v["soc-random"] + eps <= v["sdp-full"] + 2 * eps


def test_full_sdp_equals_its_cutting_plane_form(case):
    """Two independent solutions of (14): Clarabel on the (m+1)x(m+1) SDP, and cutting planes
    in beta-space with libsvm (Proposition 4 makes the PSD block equal to the SVM value)."""
    _, _, rel = case
    assert rel["sdp-full-cp"].objective == pytest.approx(rel["sdp-full"].objective, rel=1e-3)
    # (14)'s certified bound from either dual point agrees with its value
    assert rel["sdp-full"].bound == pytest.approx(rel["sdp-full"].objective, rel=1e-4)


def test_sdp_3x3_by_generation_equals_all_minors():
    """Minor generation stops at (18)'s value: same as the model with every minor."""
    from sparsekm.relaxations.smkl.minors import minor_model
    from sparsekm.solvers import solve

    p = small_problem(seed=2, m=16)
    gen = registry.get("smkl", "relaxation", "sdp-3x3")(p, CLARABEL, batch=10)
    every = [(j, k) for j in range(p.m) for k in range(j + 1, p.m)]
    full = solve(minor_model(p, every), solver="clarabel")
    assert gen.extra["minors"] < len(every)
    assert gen.objective == pytest.approx(full.objective, rel=1e-6)


def test_theorem6_diag_equals_full_sdp_for_commuting_kernels():
    """Theorem 6: with K_i = U D_i U', (15) and (14) have the same value."""
    rng = np.random.default_rng(7)
    m, q = 14, 3
    U, _ = np.linalg.qr(rng.normal(size=(m, m)))
    K = np.stack([U @ np.diag(rng.uniform(0.05, 3.0, m)) @ U.T for _ in range(q)])
    K = 0.5 * (K + K.transpose(0, 2, 1))
    X = rng.normal(size=(m, 2))
    y = np.where(rng.normal(size=m) > 0, 1.0, -1.0)
    y[:2] = [1.0, -1.0]
    p = SMKLProblem(X, y, "linear,rbf:1,rbf:2", 2, 1.0, 0.5)
    p.dictionary.K = K
    diag = registry.get("smkl", "relaxation", "soc-diag")(p, CLARABEL)
    full = registry.get("smkl", "relaxation", "sdp-full")(p, CLARABEL)
    assert diag.objective == pytest.approx(full.objective, rel=1e-5)


def test_diag_relaxation_refuses_non_commuting_kernels(tiny):
    with pytest.raises(ValueError, match="not simultaneously diagonalizable"):
        registry.get("smkl", "relaxation", "soc-diag")(tiny)


def test_full_sdp_too_large_for_solver_names_size_and_alternative():
    p = small_problem(seed=0, m=90)
    with pytest.raises(ValueError, match=r"91 x 91 PSD block.*clarabel.*sdp-full-cp"):
        registry.get("smkl", "relaxation", "sdp-full")(p, SolverPlan(relax_solver="clarabel"))


def test_misdp_is_mixed_integer_and_no_backend_takes_it(tiny):
    from sparsekm.models.smkl.misdp import misdp_model
    from sparsekm.solvers import ModelClassError, solve

    model = misdp_model(tiny)
    assert model.is_mixed_integer()
    assert "PSD" in str(model) or ">>" in str(model) or "PSD" in repr(model.constraints)
    with pytest.raises(ModelClassError, match="mixed-integer SDPs"):
        solve(model)


def test_an_inaccurate_value_below_the_certificate_is_dropped_not_the_bound() -> None:
    """A first-order solver's value of (14) below the Lagrangian certificate (valid at any
    alpha) is the inaccurate number: the result keeps the certified bound alone (bound_only),
    as SCS's 'inaccurate' (14) on ionosphere needed (it used to drop the bound instead)."""
    import time

    from sparsekm.relaxations.smkl.conic import SolverReport, relaxation_result

    p = small_problem(seed=1, m=24)
    exact = registry.get("smkl", "relaxation", "sdp-full")(p, CLARABEL)
    alpha = exact.values["alpha"]
    certified = exact.lower_bound
    low = relaxation_result(p, alpha, reported=SolverReport(certified - 1e-3, "scs"),
                            point=(None, None), method="sdp-full", t0=time.perf_counter())
    assert low.objective is None and low.status == "bound_only"
    assert low.lower_bound == pytest.approx(certified, rel=1e-12)
    assert "inaccurate" in low.message
    # a value at or above the certificate stays, with its gap
    high = relaxation_result(p, alpha, reported=SolverReport(certified * (1 + 1e-3), "scs"),
                             point=(None, None), method="sdp-full", t0=time.perf_counter())
    assert high.objective == pytest.approx(certified * (1 + 1e-3))
    assert high.gap == pytest.approx(1e-3 / (1 + 1e-3), rel=1e-6)
