"""BigMP (6) and CoP (7) by a solver, warm-started (CoP* of paper D's Table 5): the big-M from
the warm start's value (Remark 3.2), the certified optimum, and a limit that leaves no room to
load the model."""

from __future__ import annotations

import math

import pytest
from fs_linear_instances import enum_opt, prob

from sparsekm.algorithms import solve
from sparsekm.solvers import SolverPlan


def test_bigm_takes_its_big_m_from_the_warm_start_and_certifies_the_optimum() -> None:
    """M = sqrt(2 UB) is valid for any feasible UB (1/2 w_j^2 <= UB at every point of value at
    most UB); the warm start's value is one, so no SVM is solved for M, and the optimum is the
    enumerated one."""
    opt, support, _ = enum_opt("rand3", 3, 1.0)
    res = solve(prob("rand3", 3, 1.0), "bigm", SolverPlan(solver="scip", time_limit=120))
    warm = res.extra["warm_start"]["objective"]
    assert res.extra["M"] == pytest.approx(math.sqrt(2.0 * warm), rel=1e-12)
    assert res.status == "optimal" and res.objective == pytest.approx(opt, rel=1e-5)
    assert sorted(res.selected) == sorted(support)


def test_no_model_is_built_when_loading_it_would_pass_the_limit(monkeypatch) -> None:
    """The model's loading (about LOAD_S_PER_NNZ per margin nonzero) is estimated before it is
    built: with no room, the warm start comes back at once with termination time_limit."""
    from sparsekm.algorithms.fs_linear import direct

    def refuse(*args, **kwargs):
        raise AssertionError("the model was built although loading it could not fit")

    monkeypatch.setattr(direct, "LOAD_S_PER_NNZ", 10.0)   # 30 x 8 nonzeros: 2400 s to load
    monkeypatch.setattr(direct, "bigm_model", refuse)
    monkeypatch.setattr(direct, "cop_model", refuse)
    for method in ("bigm", "cop"):
        res = solve(prob("rand3", 3, 1.0), method, SolverPlan(time_limit=30))
        assert res.termination == "time_limit" and res.status in ("feasible", "optimal")
        assert res.objective == pytest.approx(res.extra["warm_start"]["objective"])
        assert res.time_s < 30
