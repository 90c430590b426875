"""GSSP (paper B eq. (9)) against brute force; the weak-duality bounds of the beta step."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from sparsekm.models.smkl.subproblems import (
    beta_step,
    gssp,
    lagrangian_bound,
    perspective_bound,
    simplex_projection,
)


def brute_projection(w: np.ndarray, k: int, excluded=(), forced=()) -> tuple[float, np.ndarray]:
    """min ||beta - w|| over every admissible support S (simplex projection on each face)."""
    q = w.size
    allowed = [i for i in range(q) if i not in excluded]
    best = (np.inf, None)
    for r in range(1, k + 1):
        for S in itertools.combinations(allowed, r):
            if len(set(S) - set(forced)) > k - len(set(forced)):
                continue
            b = np.zeros(q)
            b[list(S)] = simplex_projection(w[list(S)])
            dist = float(np.sum((b - w) ** 2))
            if dist < best[0] - 1e-12:
                best = (dist, b)
    return best


def test_simplex_projection_is_the_kkt_point():
    rng = np.random.default_rng(0)
    for _ in range(50):
        v = rng.normal(size=7) * 3
        x = simplex_projection(v)
        assert x.min() >= 0 and abs(x.sum() - 1) < 1e-12
        tau = (v - x)[x > 0]  # KKT: v - x = tau on the support, v <= tau off it
        assert np.ptp(tau) < 1e-12 and np.all(v[x == 0] <= tau[0] + 1e-12)


@pytest.mark.parametrize("seed", range(40))
def test_gssp_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    q = int(rng.integers(3, 8))
    k = int(rng.integers(1, q + 1))
    w = rng.normal(size=q) * rng.choice([0.1, 1.0, 10.0])
    dist, _ = brute_projection(w, k)
    b = gssp(w, k)
    assert np.sum((b - w) ** 2) == pytest.approx(dist, abs=1e-10)
    assert (b > 0).sum() <= k and abs(b.sum() - 1) < 1e-12 and b.min() >= 0


@pytest.mark.parametrize("seed", range(20))
def test_node_restricted_gssp_equals_brute_force(seed):
    rng = np.random.default_rng(100 + seed)
    q, k = 7, 3
    w = rng.normal(size=q)
    perm = rng.permutation(q)
    excluded, forced = tuple(perm[:2]), tuple(perm[2:2 + int(rng.integers(0, 3))])
    dist, _ = brute_projection(w, k, excluded, forced)
    b = gssp(w, k, excluded, forced)
    assert np.sum((b - w) ** 2) == pytest.approx(dist, abs=1e-10)
    assert np.all(b[list(excluded)] == 0)
    assert len(set(np.flatnonzero(b > 0)) - set(forced)) <= k - len(forced)


def test_beta_step_minimises_the_beta_subproblem():
    """(8): lam||beta||^2 - d'beta/2 at GSSP(d/(4 lam)) is <= every k0-sparse vertex/face."""
    rng = np.random.default_rng(3)
    for lam in (0.0, 0.01, 1.0, 100.0):
        d = rng.uniform(0, 50, size=6)
        b = beta_step(d, lam, 2)
        f = lam * b @ b - 0.5 * b @ d
        for S in itertools.combinations(range(6), 2):
            for t in np.linspace(0, 1, 21):
                c = np.zeros(6)
                c[S[0]], c[S[1]] = t, 1 - t
                assert f <= lam * c @ c - 0.5 * c @ d + 1e-10


def test_perspective_bound_equals_lagrangian_bound():
    """Finding: the perspective relaxation's inner minimum is attained at a k0-sparse beta, so
    (14)'s dual function equals the exact beta-step bound (closed form vs GSSP)."""
    rng = np.random.default_rng(5)
    for _ in range(50):
        q, k0 = 8, int(rng.integers(1, 5))
        d = rng.uniform(0, 100, size=q)
        sa, lam = float(rng.uniform(0, 10)), float(rng.choice([0.01, 1.0, 10.0]))
        assert perspective_bound(d, sa, lam, k0) == pytest.approx(
            lagrangian_bound(d, sa, lam, k0)[0], rel=1e-9, abs=1e-9)
