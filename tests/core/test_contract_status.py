"""The contract's words (issue 21): optimal = certified, locally_optimal = a local method's
stopping point with its measure, feasible = a heuristic's point; for relax, objective = the
relaxation's value and lower_bound = its certified value (or null, with the reason)."""

from __future__ import annotations

import pytest
from cli_checks import run_json

from sparsekm.solvers import Result, SolutionStatus, Status, Termination


def test_status_words_follow_what_the_result_holds() -> None:
    assert Result(bound=3.0).status is Status.BOUND_ONLY  # a bound, no incumbent: not an error
    assert Result().status is Status.ERROR
    assert Result(bound=3.0, termination=Termination.TIME_LIMIT).status is Status.TIME_LIMIT
    local = Result(objective=2.0, solution_status=SolutionStatus.FEASIBLE).mark_local("KKT", 1e-9)
    assert local.status is Status.LOCALLY_OPTIMAL and not local.ok
    assert local.extra["local_optimality"] == {"condition": "KKT", "residual": 1e-9}
    proven = Result(objective=2.0, solution_status=SolutionStatus.FEASIBLE).certify(2.0)
    assert proven.mark_local("KKT").status is Status.OPTIMAL  # a certificate is not downgraded
    assert Result(objective=2.0, solution_status=SolutionStatus.FEASIBLE).status \
        is Status.FEASIBLE


def test_minmax_fs_fast_is_locally_optimal_with_its_kkt_residual() -> None:
    out = run_json("solve", "minmax-fs", "--data", "wine", "--rows", "60", "--gamma0", "0.3",
                   "--C", "5", "--method", "fast")
    assert out["status"] == "locally_optimal" and out["lower_bound"] is None
    assert out["local_optimality"]["residual"] == out["kkt_residual"] < 1e-3


def test_local_searches_and_heuristics_never_say_optimal() -> None:
    base = ["solve", "fs-kernel", "--data", "cleveland", "--rows", "50", "--B", "3"]
    for method, word in [("ls", "locally_optimal"), ("ls-star", "locally_optimal"),
                         ("rfe1", "feasible"), ("rfe2", "feasible")]:
        out = run_json(*base, "--method", method)
        assert out["status"] == word, (method, out["status"])
    exact = run_json(*base, "--method", "enumerate")  # the certified optimum of the same case
    assert exact["status"] == "optimal" and exact["lower_bound"] == exact["objective"]
    ls = run_json(*base, "--method", "ls")
    assert ls["objective"] <= exact["objective"] + 1e-9  # margin sense: maximised


def test_abr_is_never_called_optimal_without_a_closed_gap() -> None:
    out = run_json("solve", "smkl", "--data", "ionosphere", "--rows", "80", "--kernels",
                   "rbf:0.05,rbf:0.5,linear", "--method", "abr")
    assert out["status"] in ("locally_optimal", "feasible")
    assert out["lower_bound"] <= out["objective"]


def test_scs_box_relaxation_is_certified_at_its_multipliers() -> None:
    """BoxMP (8) has a closed-form dual: SCS's multipliers give a certified bound, equal to
    the interior-point value (strong duality) within SCS's accuracy."""
    base = ["relax", "fs-linear", "--data", "ionosphere", "--B", "5", "--relaxation", "box"]
    scs, ipm = run_json(*base, "--solver", "scs"), run_json(*base, "--solver", "clarabel")
    assert scs["lower_bound"] <= scs["objective"]
    assert scs["lower_bound"] <= ipm["objective"] * (1 + 1e-9)  # a valid bound on (8)
    assert scs["lower_bound"] == pytest.approx(ipm["objective"], rel=1e-5)
    assert scs["selected"] is None and len(scs["rounded_selected"]) == 5


def test_uncertified_relaxation_exits_0_with_null_bound_and_the_reason() -> None:
    out = run_json("relax", "fs-linear", "--data", "ionosphere", "--B", "5", "--relaxation",
                   "dscomp", "--solver", "scs")
    assert out["lower_bound"] is None and out["objective"] > 0
    assert "not a certified bound" in out["message"] and "clarabel" in out["message"]


@pytest.mark.parametrize("relaxation", ["soc-basis", "soc-random", "sdp-3x3", "sdp-full",
                                        "sdp-full-cp"])
def test_smkl_relaxation_bound_never_exceeds_its_value(relaxation: str) -> None:
    """Issue 21: the Lagrangian bound at a weaker relaxation's alpha (a bound on (4) by another
    argument) exceeded that relaxation's value (soc-basis: 0.610 > 0.574 here); it is now
    reported apart, and lower_bound is the relaxation's own certified value."""
    out = run_json("relax", "smkl", "--rows", "40", "--kernels", "rbf:0.05,rbf:0.5,linear",
                   "--relaxation", relaxation)
    assert out["lower_bound"] <= out["objective"] * (1 + 1e-6)
    assert out["lower_bound"] == pytest.approx(out["objective"], rel=1e-3)
    if relaxation.startswith("soc"):
        assert out["lagrangian_bound"] > out["objective"]  # stronger, and kept under its key
