"""Enumeration of masks (paper A): the best mask's SVM handed back and refined to its
certified side, and no SVM cut short by the clock recorded as a mask's value."""

from __future__ import annotations

import numpy as np
import pytest

from sparsekm.algorithms.fs_kernel.enumerate import enumerate_masks
from sparsekm.models.fs_kernel import FSKernelProblem
from sparsekm.solvers import SolverPlan


def _problem(seed: int, degree: int, m: int = 40, n: int = 9, B: int = 4) -> FSKernelProblem:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    f = X[:, 0] ** 2 + X[:, 1] - 0.8 * X[:, 2] * X[:, 3] + 0.3 * rng.normal(size=m)
    y = np.where(f > np.median(f), 1.0, -1.0)
    return FSKernelProblem(X, y, B=B, C=10.0, kernel="poly", degree=degree)


@pytest.mark.parametrize("workers", [1, 2])
def test_enumeration_returns_the_best_masks_svm_without_solving_again(monkeypatch, workers):
    """The chunk that met the best mask hands back its SVM: the caller solves none (its first
    solve loaded the compiled solver after the limit, 0.78 s). The (alpha, b) are those of an
    SVM solved at that mask directly, then refined to a 1e-9 duality gap, and the objective
    is its certified side (-P in the margin sense, below libsvm's D); the same on 1 and 2
    workers."""
    from sparsekm.algorithms.fs_kernel.evaluator import (
        Evaluator,
        alpha_subproblem,
        certified_value,
    )

    p = _problem(6, 2, m=40, n=12, B=4)    # 495 masks: 2 workers run 8 chunks
    monkeypatch.setattr(Evaluator, "solve_mask", lambda *a: pytest.fail("solved again"))
    e = enumerate_masks(p, SolverPlan(), workers=workers)
    assert e.status.value == "optimal"
    beta = e.values["beta"]
    K = Evaluator(p).kernel(beta)
    alpha, b, v = alpha_subproblem(K, p.y, p.C)
    value, other, a_ref, b_ref = certified_value(p, beta, alpha)
    assert np.allclose(e.values["alpha"], a_ref, atol=1e-10)
    assert e.values["b"] == pytest.approx(b_ref) and e.objective == value
    assert value <= other <= v and other - value <= 1e-9 * abs(value)
    assert e.objective == pytest.approx(np.nanmax(e.extra["objectives"]), rel=1e-6)


def test_enumeration_never_records_an_svm_cut_short_by_the_clock(monkeypatch):
    """In its last second a chunk caps each SVM by the time left; a solve that comes back
    unconverged (here every capped one) leaves its mask unevaluated (NaN) instead of
    recording a value that is not the mask's. Uncapped (no limit) all masks are solved.
    The method registers a warm-up, so forked workers inherit the loaded solver."""
    import time

    from sparsekm import registry
    from sparsekm.algorithms.fs_kernel import enumerate as en
    from sparsekm.engines import smo
    from sparsekm.solvers import Termination

    p = _problem(6, 2, m=40, n=8, B=3)
    solve0 = smo.solve_svm_dual

    def capped(K, y, C, options=None):
        r = solve0(K, y, C, options=options)
        if options is not None and options.time_limit is not None:
            r.termination = Termination.ITERATION_LIMIT
        return r

    monkeypatch.setattr(smo, "solve_svm_dual", capped)
    obj, _, _ = en._chunk(p, 1, 20, until=time.time() + 0.5)
    assert np.isnan(obj).all()
    obj, _, _ = en._chunk(p, 1, 20, until=None)
    assert np.isfinite(obj).all()
    assert registry.get("fs-kernel", "method", "enumerate").warm_up is not None
