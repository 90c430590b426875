"""Paper D, Section 3: relaxation theorems as equalities/inequalities of computed bounds."""

from __future__ import annotations

import math

import numpy as np
import pytest
from fs_linear_instances import INSTANCES, enum_opt, get, prob, under_m

from sparsekm import registry
from sparsekm.algorithms.svm import solve_svm
from sparsekm.relaxations.fs_linear import (
    bigm_tightening,
    perspective_bound,
    solve_relaxation,
)
from sparsekm.solvers import SolverPlan

REL = 2e-5  # interior-point (Clarabel) tolerance on bound equalities
PAPER = ("box", "shor-bigm", "shor-cop", "shor-cop-bigm", "dsmp", "dscop", "dscomp")


def close(a: float, b: float, rel: float = REL) -> bool:
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def bounds(key: str, B: int, C: float, M: float, conic: str = "sdp") -> dict[str, float]:
    p = prob(key, B, C)
    out = {}
    for r in PAPER:
        opts = {k: v for k, v in {"M": M, "conic": conic}.items()
                if k in registry.get("fs-linear", "relaxation", r).options}
        out[r] = under_m(solve_relaxation(p, r, **opts))
    return out


@pytest.mark.parametrize("key,B,C", INSTANCES)
def test_relaxation_theorems_with_valid_tight_m(key: str, B: int, C: float) -> None:
    """Thm 3.3 Box=SMP, Thm 3.6 SCoP=DSCoP, Cor 3.7 SCoMP=DSCoMP, Cor 3.8 SMP=DSMP,
    Thm 3.5 SCoMP >= max(SMP, SCoP), and every bound <= the enumerated optimum of (2).
    M = ||w_bar*||_inf (the smallest valid M) makes the big-M forms differ from the SVM."""
    opt, _, winf = enum_opt(key, B, C)
    M = winf * (1 + 1e-6)
    bd = bounds(key, B, C, M, conic="sdp")
    assert close(bd["box"], bd["shor-bigm"])                            # Theorem 3.3
    assert close(bd["shor-cop"], bd["dscop"])                           # Theorem 3.6
    assert close(bd["shor-cop-bigm"], bd["dscomp"])                     # Corollary 3.7
    assert close(bd["shor-bigm"], bd["dsmp"])                           # Corollary 3.8
    assert bd["shor-cop-bigm"] >= max(bd["shor-bigm"], bd["shor-cop"]) - REL * opt  # Thm 3.5
    for name, val in bd.items():
        assert val <= opt * (1 + REL), (name, val, opt)
    # SOC form (Lemma 4.3) gives the same bounds as the PSD blocks
    p = prob(key, B, C)
    for r in ("dscop", "dscomp", "dsmp"):
        opts = {"M": M} if r != "dscop" else {}
        assert close(under_m(solve_relaxation(p, r, conic="soc", **opts)), bd[r])
    # the m-variable dual of (13) gives DSCoP's bound (conic strong duality)
    assert close(solve_relaxation(p, "perspective-dual").bound, bd["dscop"])


@pytest.mark.parametrize("key,B,C", INSTANCES[:3] + INSTANCES[4:])
def test_box_equals_svm_for_large_m_and_scop_strictly_better(key: str, B: int, C: float
                                                             ) -> None:
    """Thm 3.1: M >= ||w*||_1/B makes Box (8) equal the plain SVM (1); Thm 3.4: SCoP (11) is
    strictly above (1) when the SVM optimum has more than B nonzeros."""
    X, y = get(key)
    p = prob(key, B, C)
    w_svm, _, svm = solve_svm(X, y, C)
    # The proof of Thm 3.1 sets v_j = |w*_j|/M, which needs v_j <= 1 too: the right threshold
    # is max(||w*||_1/B, ||w*||_inf) (paper D states ||w*||_1/B only).
    M = max(float(np.abs(w_svm).sum() / B), float(np.abs(w_svm).max()))
    box = under_m(solve_relaxation(p, "box", M=M))
    assert close(box, svm)
    # M smaller than the threshold may lift the bound, never lowers it
    assert under_m(solve_relaxation(p, "box", M=0.5 * M)) >= svm - REL * svm
    assert np.count_nonzero(np.abs(w_svm) > 1e-6) > B
    scop = solve_relaxation(p, "dscop").bound
    assert scop > svm * (1 + 1e-4)
    assert scop <= enum_opt(key, B, C)[0] * (1 + REL)


def test_theorem31_threshold_needs_linf_term() -> None:
    """Counter-example to Thm 3.1 as printed: M = ||w*||_1/B < ||w*||_inf gives Box > SVM."""
    X, y = get("rand2")
    B, C = 4, 0.5
    w_svm, _, svm = solve_svm(X, y, C)
    M = float(np.abs(w_svm).sum() / B)
    assert np.abs(w_svm).max() > M
    assert under_m(solve_relaxation(prob("rand2", B, C), "box", M=M)) > svm * (1 + 1e-3)


def test_relaxed_u_v_names_and_errors() -> None:
    p = prob("rand0", 3, 1.0)
    r = solve_relaxation(p, "scop")  # an alias of shor-cop
    assert r.method == "shor-cop" and r.u is not None and r.v is not None
    assert np.allclose(r.u + r.v, 1.0)
    assert math.isclose(r.u.sum(), p.n - 3, rel_tol=1e-5)
    assert np.all(r.u >= -1e-9) and np.all(r.u <= 1 + 1e-9)
    # without M the big-M forms use the always-valid sqrt(2 UB) (Remark 3.2)
    opt = enum_opt("rand0", 3, 1.0)[0]
    box = solve_relaxation(p, "box")
    assert box.extra["M"] > 0 and box.bound <= opt * (1 + REL)
    with pytest.raises(ValueError, match="unknown relaxation 'nope'"):
        solve_relaxation(p, "nope")
    with pytest.raises(ValueError, match="takes no option 'M'"):
        solve_relaxation(p, "dscop", M=1.0)


def test_first_order_solver_bound_is_certified() -> None:
    """SCS's primal and dual values of DSCoP may sit above the true bound; the bound is the
    perspective dual g(alpha) at its multipliers (valid for any feasible alpha), so it never
    exceeds Clarabel's certified value; and g at alpha = 0 is 0 (a trivial, valid bound)."""
    p = prob("breast_cancer_wisconsin", 3, 0.1)
    exact = solve_relaxation(p, "dscop")                     # Clarabel, interior point
    scs = solve_relaxation(p, "dscop", SolverPlan(relax_solver="scs"))
    assert scs.bound <= exact.objective * (1 + 1e-9)
    assert scs.bound == pytest.approx(exact.bound, rel=1e-3)
    assert scs.extra["solver_bound"] is None  # SCS's own dual value is no certificate
    assert scs.extra["dual_certificate"] <= exact.objective * (1 + 1e-9)
    assert perspective_bound(p, np.zeros(p.m)) == 0.0


def test_bigm_tightening_prop41_is_valid_and_tighter() -> None:
    """Proposition 4.1: M from (19) covers ||w_bar*||_inf and is below sqrt(2 UB)."""
    key, B, C = "rand0", 3, 1.0
    opt, _, winf = enum_opt(key, B, C)
    ub = opt * 1.05
    M, hi, lo = bigm_tightening(prob(key, B, C), ub, SolverPlan())
    assert winf * (1 - 1e-5) <= M
    assert math.sqrt(2 * ub) > M
    assert np.all(hi >= lo - 1e-7)


@pytest.mark.parametrize("key,B,C", INSTANCES[:3])
def test_box_certificate_is_the_value_of_8_at_interior_point_multipliers(key, B, C):
    """Weak duality: box_bound <= (8) for any alpha; at Clarabel's multipliers it equals (8)'s
    value (strong duality); with a valid big-M it never exceeds the enumerated optimum of (2),
    and SCS's multipliers (no certificate of their own) give a valid bound too."""
    from sparsekm.relaxations.fs_linear.box import box_bound, build_box
    from sparsekm.solvers import solve

    p = prob(key, B, C)
    opt, _, w_inf = enum_opt(key, B, C)
    M = 2.0 * w_inf  # Theorem 3.1 (with M >= ||w*||_inf): BigMP (6) is exact
    rel = build_box(p, M)
    res = solve(rel.problem, solver="clarabel")
    cert = box_bound(p, np.asarray(rel.margins.dual_value), M)
    assert cert == pytest.approx(res.objective, rel=1e-6, abs=1e-7)
    assert cert <= opt * (1 + 1e-9) + 1e-9
    scs = under_m(solve_relaxation(p, "box", SolverPlan(relax_solver="scs"), M=M))
    assert scs is not None and scs <= res.objective + 1e-7
    assert scs == pytest.approx(res.objective, rel=1e-3)


def test_a_relaxation_stopped_by_its_limit_reports_no_value(monkeypatch) -> None:
    """A solver stopped by a limit returns a number that is not the relaxation's value
    (HiGHS on BoxMP, madelon: 0.0, which with a certificate of 0 read "optimal"). The result
    keeps it as solver_objective, reports no objective, and keeps only certified bounds:
    below the enumerated optimum."""
    from sparsekm.relaxations.fs_linear import common
    from sparsekm.solvers import Termination

    solve0 = common.solve

    def stopped(*a, **kw):
        r = solve0(*a, **kw)
        r.termination, r.objective, r.bound = Termination.TIME_LIMIT, 0.0, None
        return r

    monkeypatch.setattr(common, "solve", stopped)
    p = prob("rand0", 3, 1.0)
    r = solve_relaxation(p, "box")
    assert r.objective is None and r.extra["solver_objective"] == 0.0
    assert r.status.value == "bound_only" and r.bound <= enum_opt("rand0", 3, 1.0)[0]
