"""The node engine's kernels against numpy: the QR updates keep E' = Q [R; 0] with Q
orthogonal (Q stored transposed), and the top-k selection from a guessed floor is exact."""

from __future__ import annotations

import numpy as np
import pytest

from sparsekm.engines.node_active.partition import top_abs
from sparsekm.engines.node_active.qr import (
    add_constraint,
    add_variable,
    drop_constraint,
    drop_variable,
    householder,
)


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


@pytest.mark.parametrize("floor", [0.0, 0.3, 0.9, 5.0])
def test_top_abs_is_exact_whatever_the_floor(floor):
    rng = np.random.default_rng(3)
    v = np.round(rng.standard_normal(300), 1)    # rounded: many ties at the k-th value
    for k in (1, 7, 40, 300):
        got = np.sort(top_abs(v, k, floor))
        assert np.array_equal(got, np.sort(np.abs(v))[-k:])
