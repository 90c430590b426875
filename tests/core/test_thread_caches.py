"""Caches that in-process (thread) workers share: each thread's and each worker's own.

Dask's in-process workers are threads of one process: module globals are shared, and the
problem copies they receive share their data arrays. The node engine's data cache (Qt and
the column norms that bound strong branching's skipped features) and the tree's per-worker
states must hold whatever the interleaving."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.parallel import slots
from sparsekm.relaxations.fs_linear.node_active import column_norms, scaled_rows


def _problems(count: int) -> list[FSLinearProblem]:
    rng = np.random.default_rng(0)
    y = np.where(np.arange(20) % 2 == 0, 1.0, -1.0)
    return [FSLinearProblem(rng.normal(size=(20, 8)) * (i + 1), y, B=2, C=1.0)
            for i in range(count)]


def test_column_norms_are_always_the_problems_own() -> None:
    """Problems of one shape in random order: the norms and Qt are each problem's (the norms
    were once cached by the address of a freed Qt and came back for other data: 347 of 3,000
    calls in this pattern)."""
    ps = _problems(6)
    rng = np.random.default_rng(1)
    for _ in range(600):
        p = ps[rng.integers(6)]
        if rng.random() < 0.5:
            scaled_rows(ps[rng.integers(6)])
        Qt = (p.X * p.y[:, None]).T
        np.testing.assert_array_equal(scaled_rows(p), Qt)
        np.testing.assert_allclose(column_norms(p), np.linalg.norm(Qt, axis=1), rtol=1e-14)


def test_threads_keep_their_own_data() -> None:
    """Two threads, two problems, interleaved: each reads its own Qt and norms."""
    ps, bad = _problems(2), []

    def work(p: FSLinearProblem) -> None:
        Qt = (p.X * p.y[:, None]).T
        for _ in range(300):
            if not (np.array_equal(scaled_rows(p), Qt) and np.allclose(
                    column_norms(p), np.linalg.norm(Qt, axis=1), rtol=1e-14)):
                bad.append(1)

    threads = [threading.Thread(target=work, args=(p,)) for p in ps]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not bad


class _Problem:
    def new_cache(self) -> dict:
        return {}


def test_each_worker_keeps_its_states() -> None:
    """Twelve in-process workers (slots) on one search: every one keeps its state (the
    states were capped per process, so a ninth worker evicted the first one's and its next
    task failed); past KEEP searches on one worker the oldest goes, with a clear error."""
    fp = "search-a"
    slots.forget(fp)
    try:
        for slot in range(12):
            slots._work(fp, slot, _Problem())
        for slot in range(12):
            assert slots._work(fp, slot, None).problem is not None
        for i in range(slots.KEEP):
            slots._work(f"other-{i}", 0, _Problem())
        with pytest.raises(RuntimeError, match="searches shared one worker"):
            slots._work(fp, 0, None)
        assert slots._work(fp, 1, None).problem is not None
    finally:
        for key in [fp] + [f"other-{i}" for i in range(slots.KEEP)]:
            slots.forget(key)
