"""The node engine's kernels against numpy: the QR updates keep E' = Q [R; 0] with Q
orthogonal (Q stored transposed), a pivot's step lands on the constraints' manifold, the
top-k selection from a guessed floor is exact, and a state packed for Python continues as
the state itself."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from sparsekm.engines.node_active.loop import run
from sparsekm.engines.node_active.partition import top_abs
from sparsekm.engines.node_active.pivot import direction
from sparsekm.engines.node_active.qr import (
    add_constraint,
    add_variable,
    drop_constraint,
    drop_variable,
    householder,
)
from sparsekm.engines.node_active.solve import _setup
from sparsekm.engines.node_active.state import copy_state, pack, unpack


def _check(Q, R, E, nz, nc):
    """E (nc x nz, by rows) equals the factors', and Q is orthogonal."""
    QQ = Q[:nz, :nz].T                       # the stored rows are Q's columns
    assert np.allclose(QQ.T @ QQ, np.eye(nz), atol=1e-12)
    assert np.allclose(QQ[:, :nc] @ np.triu(R[:nc, :nc]), E.T, atol=1e-11)


@pytest.mark.parametrize("seed", range(6))
def test_qr_updates_keep_the_factors_of_the_constraints(seed):
    rng = np.random.default_rng(seed)
    cap, nz, nc = 14, 9, 4
    Q, R = np.zeros((cap, cap)), np.zeros((cap, cap))
    E = rng.standard_normal((nc, nz))
    assert householder(E.copy(), Q, R) == nc
    _check(Q, R, E, nz, nc)
    for _ in range(40):
        move = rng.integers(4)
        if move == 0 and nc < nz - 1:            # a new tie: a column of E'
            col = rng.standard_normal(nz)
            add_constraint(Q, R, nz, nc, col)
            E, nc = np.vstack([E, col]), nc + 1
        elif move == 1 and nc > 1:               # a tie leaves
            p = int(rng.integers(nc))
            drop_constraint(Q, R, nz, nc, p)
            E, nc = np.delete(E, p, axis=0), nc - 1
        elif move == 2 and nz < cap - 1:         # a sample leaves its bound: a row of E'
            row = rng.standard_normal(nc)
            add_variable(Q, R, nz, nc, row)
            E, nz = np.hstack([E, row[:, None]]), nz + 1
        elif move == 3 and nz > nc + 1:          # a sample reaches a bound
            p = int(rng.integers(nz))
            drop_variable(Q, R, nz, nc, p)
            E, nz = np.delete(E, p, axis=1), nz - 1
        _check(Q, R, E, nz, nc)


@pytest.mark.parametrize("off", [1e-6, 1e-9, 1e-15])
def test_a_step_lands_on_the_manifold(off):
    """E dz = res: the step from a point off the constraints by ``off`` (a tie read within
    tolerance: 1e-6, 1e-9) corrects it; off by round-off (1e-15: the correction is skipped,
    ON_TOL) the step stays on the manifold to round-off."""
    rng = np.random.default_rng(7)
    m, n, C, r = 10, 8, 1.0, 0.5
    Qt, a = rng.standard_normal((n, m)), rng.uniform(0.2, 0.8, m)
    vid = np.array([0, 1, 2, 3, 4, 5, 6, m], np.int64)      # seven samples and r
    nz, nc, cap = vid.size, 3, m + 1
    E = rng.standard_normal((nc, nz))
    Q, R = np.zeros((cap, cap)), np.zeros((cap, cap))
    assert householder(E.copy(), Q, R) == nc
    res = off * rng.choice([-1.0, 1.0], nc)
    dz, _ = direction(Qt, np.array([0, 1, 2], np.int64), (Q, R, vid, nz, nc, res), a,
                      (r, 2.0), C)
    assert np.abs(E @ dz - res).max() <= 1e-13
    assert np.abs(dz).max() > 1e-3                            # a real step on the manifold


@pytest.mark.parametrize("floor", [0.0, 0.3, 0.9, 5.0])
def test_top_abs_is_exact_whatever_the_floor(floor):
    rng = np.random.default_rng(3)
    v = np.round(rng.standard_normal(300), 1)    # rounded: many ties at the k-th value
    for k in (1, 7, 40, 300):
        got = np.sort(top_abs(v, k, floor))
        assert np.array_equal(got, np.sort(np.abs(v))[-k:])


@njit(cache=False)    # compiled fresh: a cached caller would keep stale engine code
def _two_ways(Qt, y, C, node, start, pivots):
    """The engine's state after ``pivots`` pivots, then 200 more from a copy of it and from
    it packed and unpacked: (the two continuations' alpha, status and pivots)."""
    F1, free, k = node
    s_free = np.empty(free.size)
    S, _ = _setup(Qt, y, C, node, start, (s_free, 0.8, 3))
    run(Qt, y, C, node, S, (s_free, np.inf, pivots, 0.8, True))
    S1, S2 = copy_state(S), unpack(pack(S))
    s1, s2 = np.empty(free.size), np.empty(free.size)
    o1 = run(Qt, y, C, node, S1, (s1, np.inf, 200, 0.8, True))
    o2 = run(Qt, y, C, node, S2, (s2, np.inf, 200, 0.8, True))
    return S1.a, S2.a, (o1[0], o1[1], o1[4]), (o2[0], o2[1], o2[4])


@pytest.mark.parametrize("seed", range(4))
def test_a_packed_state_continues_as_the_state_itself(seed):
    """pack / unpack (the state handed to Python and back to strong branching's probes)
    keep everything the pivots read: the same pivots, status and bound as a plain copy."""
    rng = np.random.default_rng(seed)
    m, n, k = 16, 30, 4
    X = rng.standard_normal((m, n))
    y = np.where(np.arange(m) % 2 == 0, 1.0, -1.0)
    Qt = np.ascontiguousarray((X * y[:, None]).T)
    node = (np.array([0], np.int64), np.arange(1, n, dtype=np.int64), k)
    for pivots in (1, 3, 6):
        a1, a2, o1, o2 = _two_ways(Qt, y, 1.0, node, (rng.uniform(0, 1, m),
                                                      np.zeros(0, np.int64)), pivots)
        assert o1 == o2 and np.array_equal(a1, a2)
