"""Runner parameters added after runs were stored keep those runs' keys at their old value."""

from __future__ import annotations

from sparsekm.experiments.grid import LATE_PARAMS, run_key


def test_late_params_at_their_earlier_value_leave_the_key_unchanged() -> None:
    opts = {"data": "iris", "seed": 0, "scale": "standard"}
    params = {"kernels": "paper10", "k0": 2, "method": "abr"}
    before = run_key("solve", "smkl", opts, params, None, "1.0")
    assert run_key("solve", "smkl", opts, {**params, **LATE_PARAMS}, None, "1.0") == before
    assert run_key("solve", "smkl", opts, {**params, **LATE_PARAMS, "workers": 2}, None,
                   "1.0") != before
