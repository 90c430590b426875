"""A model knows what it certifies: the read-back of a formulation (the Python front door
``solve_formulation``) against enumeration.

A user's change to a toolkit model (a constraint added or deactivated, a variable fixed, a
bound or the objective changed) is found by comparing the model with its record; the solver's
bound then certifies only the changed model and is not reported as a bound on (2). The
registered cuts applied by the toolkit keep the certificate ((17)) or make a restriction
((18)). The reference values are enumerated: the optimum of (2), and the optimum of the changed
model over the supports it allows.
"""

from __future__ import annotations

import itertools
import math
import runpy
from pathlib import Path

import numpy as np
import pytest
from fs_linear_instances import enum_opt, issue_instance, prob

from sparsekm.algorithms import solve, solve_formulation
from sparsekm.models.fs_linear import (
    FSLinearProblem,
    add_new_feature_cut,
    add_objective_cut,
    bigm_model,
    cop_model,
    estimate_big_m,
    sr_dlmp_model,
)
from sparsekm.models.record import changes, record_of
from sparsekm.solvers import SolverError, SolverPlan

ROOT = Path(__file__).resolve().parents[2]


def enumerated(p: FSLinearProblem, allowed=lambda S: True) -> tuple[float, tuple[int, ...]]:
    """The least SVM (1) value over the supports of size B that ``allowed`` keeps."""
    best = (math.inf, ())
    for S in itertools.combinations(range(p.n), p.B):
        if allowed(S):
            best = min(best, (p.support_value(S)[0], S))
    return best


@pytest.fixture(scope="module")
def issue() -> tuple[FSLinearProblem, float, float]:
    p = issue_instance()
    opt, S = enumerated(p)
    assert not {0, 1} & set(S)
    cut_opt, _ = enumerated(p, lambda S: 0 in S or 1 in S)   # u_0 + u_1 <= 1
    return p, opt, cut_opt


@pytest.mark.parametrize("solver", ["scip", "gurobi"])
def test_a_users_cut_gives_no_false_bound_on_2(issue, solver: str) -> None:
    """u[0] + u[1] <= 1 on CoP (7) (perspective form): the changed model's optimum (the
    enumerated optimum over the supports holding feature 0 or 1) lies above the optimum of
    (2), so its bound is no bound on (2): the result carries none and says what it certifies;
    the point is feasible for (2) and worth the exact SVM value of its support."""
    import pyomo.environ as pyo

    p, opt, cut_opt = issue
    assert cut_opt > opt * 1.01
    m = cop_model(p, form="perspective")
    m.mine = pyo.Constraint(expr=m.u[0] + m.u[1] <= 1)
    try:
        res = solve_formulation(p, m, SolverPlan(solver=solver))
    except SolverError as exc:
        pytest.skip(f"{solver}: {exc}")
    assert res.lower_bound is None                         # never a bound on (2)
    assert res.extra["certifies"] == "user-modified model"
    assert res.extra["changes"] == ["constraint mine added"]
    assert res.extra["model_bound"] > opt                 # what a false bound would have said
    assert res.extra["model_bound"] <= cut_opt * (1 + 1e-6)
    assert math.isclose(res.extra["model_objective"], cut_opt, rel_tol=1e-6)
    assert res.extra["model_status"] == "optimal"
    on = res.extra["on_problem"]
    assert on["feasible"] and len(on["support"]) == p.B
    assert math.isclose(on["support_objective"], p.support_value(on["support"])[0],
                        rel_tol=1e-12)
    assert math.isclose(res.objective, cut_opt, rel_tol=1e-7) and res.objective > opt
    assert res.status.value == "feasible"


def test_the_unmodified_model_certifies_2_with_its_links(issue) -> None:
    """The same CoP (7) unchanged: the bound is a bound on (2), the status optimal, the
    optimum the enumerated one; the links' M = sqrt(2 UB) holds the optimum's |w_j|."""
    p, opt, _ = issue
    m = cop_model(p, form="perspective")
    assert record_of(m).role == "exact" and changes(m) == []
    res = solve_formulation(p, m, SolverPlan(solver="scip"))
    assert res.extra["certifies"] == "problem" and res.status.value == "optimal"
    assert res.lower_bound <= opt * (1 + 1e-9)
    assert math.isclose(res.objective, opt, rel_tol=1e-9)
    w_opt = solve(p, "enumerate").values["w"]
    assert m.fs_data["M"] >= np.abs(w_opt).max()


def _change(m, how: str) -> str:
    if how == "fix":
        m.u[3].fix(1)
        return "variable u[3] fixed at 1"
    if how == "bound":
        m.w[2].setub(0.01)
        return "bounds of w[2] changed to [None, 0.01]"
    if how == "objective":
        m.obj.expr = m.obj.expr + 0.5 * m.b
        return "objective obj changed"
    if how == "deactivate":
        m.card.deactivate()
        return "constraint card removed or deactivated"
    if how == "rewrite":
        m.margin[0].set_value(m.margin[0].body >= 2)
        return "constraint margin[0] changed"
    raise AssertionError(how)


@pytest.mark.parametrize("how", ["fix", "bound", "objective", "deactivate", "rewrite"])
def test_every_kind_of_change_is_found(how: str) -> None:
    """Fixing, a bound, the objective, a deactivated or rewritten constraint: each is named,
    and the read-back drops the bound; the point is checked on (2)."""
    p = prob("rand0", 3, 1.0)
    opt = enum_opt("rand0", 3, 1.0)[0]
    m = cop_model(p, form="bilinear")
    said = _change(m, how)
    assert changes(m) == [said]
    res = solve_formulation(p, m, SolverPlan(solver="scip"))
    assert res.lower_bound is None and res.extra["certifies"] == "user-modified model"
    assert res.extra["changes"] == [said]
    on = res.extra["on_problem"]
    if how == "deactivate":    # no budget row: the point may use more than B features
        assert on["feasible"] == (len([j for j in range(p.n)
                                       if m.u[j].value < 0.5]) <= p.B)
    assert res.objective >= opt * (1 - 1e-9)            # a point of (2) is never below


def test_registered_cuts_keep_or_restrict_the_certificate() -> None:
    """(17) objective <= UB keeps every better point: the bound is (2)'s. (18) removes
    supports: a restriction, no bound on (2). A user's constraint added before or after a
    registered cut is still found."""
    import pyomo.environ as pyo

    p = prob("rand0", 3, 1.0)
    opt, S, _ = enum_opt("rand0", 3, 1.0)
    m = add_objective_cut(cop_model(p), 1.05 * opt)
    assert record_of(m).cuts == ("objective-ub",) and changes(m) == []
    res = solve_formulation(p, m, SolverPlan(solver="scip"))
    assert res.extra["certifies"] == "problem" and res.status.value == "optimal"
    assert res.lower_bound <= opt * (1 + 1e-9)
    new = [j for j in range(p.n) if j not in S][:3]
    m = add_new_feature_cut(cop_model(p), new)
    assert record_of(m).role == "restriction"
    res = solve_formulation(p, m, SolverPlan(solver="scip"))
    assert res.extra["certifies"] == "restricted subproblem" and res.lower_bound is None
    assert res.extra["model_bound"] > opt
    before = cop_model(p)
    before.mine = pyo.Constraint(expr=before.u[0] == 1)
    add_objective_cut(before, 2 * opt)
    assert changes(before) == ["constraint mine added", "constraint ub_cut added"]
    after = add_objective_cut(cop_model(p), 2 * opt)
    after.mine = pyo.Constraint(expr=after.u[0] == 1)
    assert changes(after) == ["constraint mine added"]


def test_a_clone_keeps_its_record_and_restrictions_say_so() -> None:
    """Pyomo's clone maps the record with the model (no change found); CoP(K) (16), BigMP on
    K and SR-DLMP with relaxed u say what they are; a hand-built model certifies nothing."""
    import pyomo.environ as pyo

    p = prob("rand0", 3, 1.0)
    assert changes(cop_model(p, form="perspective").clone()) == []
    assert record_of(cop_model(p, K=[0, 1, 2, 5])).role == "restriction"
    assert record_of(bigm_model(p, estimate_big_m(p), K=[0, 1, 2])).certifies == \
        "restricted subproblem"
    assert record_of(bigm_model(p, estimate_big_m(p))).certifies == "problem"
    assert record_of(sr_dlmp_model(p, K=[0, 1])).role == "relaxation"
    assert record_of(sr_dlmp_model(p, K=range(p.n))).role == "exact"
    mine = pyo.ConcreteModel()
    with pytest.raises(ValueError, match="not one of sparsekm.models.fs_linear"):
        mine.x = pyo.Var(bounds=(0, 1))
        mine.obj = pyo.Objective(expr=mine.x)
        solve_formulation(p, mine, SolverPlan(solver="scip"))


def test_the_docs_example_runs(capsys) -> None:
    """docs/examples/formulation.py, the guide's example of the front door, runs and says
    what it should: the changed model's bound above the optimum is no bound on (2)."""
    runpy.run_path(str(ROOT / "docs" / "examples" / "formulation.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "certifies problem" in out and "certifies user-modified model" in out
    assert "(above the optimum of (2): True ) bound on (2): None" in out
    assert "cuts ['objective-ub']" in out


@pytest.mark.parametrize("form", ["perspective", "bilinear"])
def test_method_cop_with_scip_certifies_the_issue_instance(issue, form: str) -> None:
    """``--method cop`` with SCIP (both forms, warm-started by ``fast``) reaches ``optimal``
    at the enumerated optimum: without the linking rows the perspective form's bound landed
    1.9e-4 low and the status dropped to feasible."""
    p, opt, _ = issue
    res = solve(p, "cop", SolverPlan(solver="scip", time_limit=300), cop_form=form)
    assert res.status.value == "optimal", (res.gap, res.message)
    assert math.isclose(res.objective, opt, rel_tol=1e-9)
    assert res.lower_bound <= opt * (1 + 1e-9) and res.gap <= 1e-4
