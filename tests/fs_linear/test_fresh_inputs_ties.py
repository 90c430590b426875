"""Fresh inputs: features that tie by the hundred (svmlight columns of one entry each).

200 rows of an svmlight file naming 1,200 features, each in one row only, standardised: the
columns of a row are equal, so at the root every |s_j| of a row ties. The active-set engine
kept at most m + 2 ties and wrote past them (``malloc(): unsorted double linked list
corrupted``, exit 134); the node interior point met a singular Newton system ("error: Matrix
is singular", exit 2); and the engine's 2,000 pivots without progress took 25 s under a 20 s
limit. Here the same structure on 14 rows (42 columns, 3 per row): the engine on a working
set of every feature (42 > m + 2 ties), bnb against the enumerated optimum of (2).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from sparsekm.algorithms.fs_linear import solve_fs_linear
from sparsekm.algorithms.svm import solve_svm
from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.relaxations.fs_linear.node_active import active_node_task
from sparsekm.relaxations.fs_linear.node_form import NodeTask

ROWS, PER, B, C = 14, 3, 2, 10.0


@pytest.fixture(scope="module")
def tied() -> FSLinearProblem:
    X = np.zeros((ROWS, ROWS * PER))
    for i in range(ROWS):
        X[i, PER * i:PER * (i + 1)] = 1.0
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    y = np.where(np.arange(ROWS) % 2, 1.0, -1.0)
    return FSLinearProblem(X, y, B=B, C=C)


@pytest.fixture(scope="module")
def optimum(tied: FSLinearProblem) -> float:
    """min over all 861 supports of B = 2 features of the SVM (1) on them (Clarabel)."""
    return min(solve_svm(tied.X, tied.y, C, list(S))[2]
               for S in itertools.combinations(range(tied.n), B))


def test_engine_with_more_ties_than_samples(tied: FSLinearProblem, optimum: float) -> None:
    free = np.arange(tied.n)
    task = NodeTask(F1=np.zeros(0, np.int64), free=free, k=B, W0=free)
    for start in (np.full(ROWS, 0.5 * C), np.full(ROWS, 1e-3 * C)):
        sol, _ = active_node_task(tied, task, start)
        assert np.isfinite(sol.bound)
        assert sol.bound <= optimum * (1 + 1e-9)          # a bound on its side


def test_bnb_certifies_the_enumerated_optimum(tied: FSLinearProblem, optimum: float) -> None:
    res = solve_fs_linear(tied, "bnb")
    assert res.status.value == "optimal"
    assert res.objective == pytest.approx(optimum, rel=1e-6)
    assert res.bound <= optimum * (1 + 1e-9)
