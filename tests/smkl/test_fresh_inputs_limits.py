"""Fresh inputs: a kernel stack too slow for the time left is refused before its first full
kernel (spambase's first 4601 x 4601 kernel alone ran 8 s past ``--time-limit 5``): one
kernel on ``PROBE_ROWS`` rows, scaled by m^2, predicts the stack."""

from __future__ import annotations

import numpy as np
import pytest

from sparsekm.deadline import Deadline
from sparsekm.kernels import dictionary as dictionary_module
from sparsekm.kernels.dictionary import DictionaryTooLarge, KernelDictionary


def test_a_stack_too_slow_is_refused_before_a_full_kernel(monkeypatch) -> None:
    X = np.random.default_rng(2).normal(size=(2400, 8))
    D = KernelDictionary("linear,rbf:0.5,rbf:1,rbf:2")
    sizes: list[int] = []
    for spec in D.kernels:
        real = type(spec).__call__
        monkeypatch.setattr(type(spec), "__call__",
                            lambda self, A, B=None, _real=real: (sizes.append(len(A)),
                                                                 _real(self, A, B))[1])
        break
    spent = Deadline(1e-6)
    with pytest.raises(DictionaryTooLarge, match=r"4 kernels of 2400 x 2400\) takes about"):
        D.fit(X, deadline=spent)
    assert sizes == [dictionary_module.PROBE_ROWS]      # only the probe was computed
    assert D.K is None
    D.fit(X[:300], deadline=Deadline(60))                # small: no probe, built
    assert D.K is not None and D.K.shape == (4, 300, 300)


def test_test_accuracy_is_skipped_once_the_limit_is_spent(monkeypatch) -> None:
    """The test rows' kernels come after the solve: once the limit is spent they are not
    computed (spambase's took 3 s past a 5 s limit), and the JSON says why."""
    import time

    import sparsekm.algorithms.smkl as smkl_algorithms
    from sparsekm.run import run

    real = smkl_algorithms.solve_smkl

    def slow(problem, method, plan, **options):
        res = real(problem, method, plan, **options)
        while not plan.clock.expired():
            time.sleep(0.05)
        return res

    flags = {"data": "diabetes", "test_size": 0.5, "kernels": "linear,rbf:0.5", "k0": 1,
             "method": "average"}
    done = run("solve", "smkl", flags)
    assert 0.5 <= done["test_accuracy"] <= 1.0
    monkeypatch.setattr(smkl_algorithms, "solve_smkl", slow)
    spent = run("solve", "smkl", {**flags, "time_limit": 4})
    assert spent["test_accuracy"] is None
    assert spent["test_accuracy_note"] == "not computed: the time limit was spent"
    assert spent["objective"] == pytest.approx(done["objective"], rel=1e-9)
