"""Paper D, Section 3: relaxation theorems as equalities/inequalities of computed bounds."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_fs_linear_instances import INSTANCES, enum_opt, get

from sparsekm.models.fs_linear import solve_svm
from sparsekm.relaxations.fs_linear import (
    RELAXATIONS,
    bigm_tightening,
    canonical_relaxation,
    solve_relaxation,
)

REL = 2e-5  # interior-point (Clarabel) tolerance on bound equalities


def close(a: float, b: float, rel: float = REL) -> bool:
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def bounds(key: str, B: int, C: float, M: float, conic: str = "sdp") -> dict[str, float]:
    X, y = get(key)
    return {r: solve_relaxation(X, y, B, C, r, M=M, conic=conic).bound for r in RELAXATIONS}


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
    X, y = get(key)
    for r in ("dscop", "dscomp", "dsmp"):
        assert close(solve_relaxation(X, y, B, C, r, M=M, conic="soc").bound, bd[r])


@pytest.mark.parametrize("key,B,C", INSTANCES[:3] + INSTANCES[4:])
def test_box_equals_svm_for_large_m_and_scop_strictly_better(key: str, B: int, C: float
                                                             ) -> None:
    """Thm 3.1: M >= ||w*||_1/B makes Box (8) equal the plain SVM (1); Thm 3.4: SCoP (11) is
    strictly above (1) when the SVM optimum has more than B nonzeros."""
    X, y = get(key)
    w_svm, _, svm = solve_svm(X, y, C)
    # The proof of Thm 3.1 sets v_j = |w*_j|/M, which needs v_j <= 1 too: the right threshold
    # is max(||w*||_1/B, ||w*||_inf) (paper D states ||w*||_1/B only).
    M = max(float(np.abs(w_svm).sum() / B), float(np.abs(w_svm).max()))
    box = solve_relaxation(X, y, B, C, "box", M=M).bound
    assert close(box, svm)
    # M smaller than the threshold may lift the bound, never lowers it
    assert solve_relaxation(X, y, B, C, "box", M=0.5 * M).bound >= svm - REL * svm
    assert np.count_nonzero(np.abs(w_svm) > 1e-6) > B
    scop = solve_relaxation(X, y, B, C, "dscop").bound
    assert scop > svm * (1 + 1e-4)
    assert scop <= enum_opt(key, B, C)[0] * (1 + REL)


def test_theorem31_threshold_needs_linf_term() -> None:
    """Counter-example to Thm 3.1 as printed: M = ||w*||_1/B < ||w*||_inf gives Box > SVM."""
    X, y = get("rand2")
    B, C = 4, 0.5
    w_svm, _, svm = solve_svm(X, y, C)
    M = float(np.abs(w_svm).sum() / B)
    assert np.abs(w_svm).max() > M
    assert solve_relaxation(X, y, B, C, "box", M=M).bound > svm * (1 + 1e-3)


def test_relaxed_u_v_and_names() -> None:
    X, y = get("rand0")
    r = solve_relaxation(X, y, 3, 1.0, "scop")
    assert r.name == "shor-cop" and r.u is not None and r.v is not None
    assert np.allclose(r.u + r.v, 1.0)
    assert math.isclose(r.u.sum(), X.shape[1] - 3, rel_tol=1e-5)
    assert np.all(r.u >= -1e-9) and np.all(r.u <= 1 + 1e-9)
    assert canonical_relaxation("SMP") == "shor-bigm"
    with pytest.raises(ValueError, match="needs a finite big-M"):
        solve_relaxation(X, y, 3, 1.0, "box")
    with pytest.raises(ValueError, match="unknown relaxation"):
        solve_relaxation(X, y, 3, 1.0, "nope")


def test_bigm_tightening_prop41_is_valid_and_tighter() -> None:
    """Proposition 4.1: M from (19) covers ||w_bar*||_inf and is below sqrt(2 UB)."""
    key, B, C = "rand0", 3, 1.0
    X, y = get(key)
    opt, _, winf = enum_opt(key, B, C)
    ub = opt * 1.05
    M, hi, lo = bigm_tightening(X, y, B, C, ub)
    assert winf * (1 - 1e-5) <= M
    assert math.sqrt(2 * ub) > M
    assert np.all(hi >= lo - 1e-7)
