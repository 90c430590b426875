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
