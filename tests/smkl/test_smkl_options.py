"""Paper B's declared options: the front doors check them (names, types, ranges, choices),
a value wrong only with the data names the option, and sdp-full-cp's relative-gap tolerance
is ``gap_tol``, the result's own tolerance."""

from __future__ import annotations

import pytest

from sparsekm import registry
from sparsekm.algorithms.smkl import solve_smkl
from sparsekm.declare import ParamError
from sparsekm.relaxations import relax
from sparsekm.solvers import SolverPlan


@pytest.mark.parametrize("method,options,needle", [
    ("abr", {"starts": 0}, "starts=0: give an integer >= 1"),
    ("abr", {"init": "best"}, "init='best': choose one of ranking, random, sdp-3x3"),
    ("abr", {"tol": -1e-3}, "tol=-0.001"),
    ("abr", {"faces": "maybe"}, "faces='maybe': give true or false"),
    ("easymkl", {"lam_easy": 1.5}, "lam_easy=1.5: give a finite number >= 0 and <= 1"),
    ("single", {"Cs": [1.0, 0.0]}, "Cs="),
    ("single", {"folds": 1}, "folds=1"),
])
def test_declared_options_are_checked_at_the_front_door(tiny, method, options, needle):
    with pytest.raises(ParamError, match=needle.replace("(", r"\(")):
        solve_smkl(tiny, method, SolverPlan(), **options)


def test_a_value_wrong_with_the_data_names_its_option(tiny):
    smallest = int(min((tiny.y > 0).sum(), (tiny.y < 0).sum()))
    with pytest.raises(ParamError, match=f"folds={smallest + 1}: at most {smallest}"):
        solve_smkl(tiny, "single", SolverPlan(), folds=smallest + 1)


def test_abr_options_by_the_front_door_equal_a_direct_call(tiny):
    direct = registry.get("smkl", "method", "abr")(tiny, starts=2, seed=5, max_iter=10)
    door = solve_smkl(tiny, "abr", SolverPlan(), starts="2", seed=5, max_iter=10.0)
    assert door.objective == pytest.approx(direct.objective, rel=1e-12)


def test_sdp_full_cp_stops_at_gap_tol_and_the_status_uses_it(tiny):
    loose = relax(tiny, "sdp-full-cp", SolverPlan(), gap_tol=0.05)
    tight = relax(tiny, "sdp-full-cp", SolverPlan())
    assert loose.gap_tol == 0.05 and tight.gap_tol == 1e-4
    assert loose.status.value == tight.status.value == "optimal"
    assert loose.extra["iterations"] <= tight.extra["iterations"]
    assert loose.gap <= 0.05 and tight.gap <= 1e-4
    with pytest.raises(ParamError, match="takes no option 'tol'.*gap_tol"):
        relax(tiny, "sdp-full-cp", SolverPlan(), tol=1e-3)
