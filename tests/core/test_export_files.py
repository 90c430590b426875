"""The file writers and readers on problems small enough to check by hand.

* a CBF file's exact text for a hand-written conic problem (CBF 3: structure items, then
  data; ``g = -A x + b`` in L=, L+, Q; a PSD constraint's lower triangle in HCOORD/DCOORD);
* CBF files of a PSD, an SOC and an exponential-cone problem parsed by MOSEK and solved by
  Clarabel give CVXPY's optimum (a known value each);
* names: every column of a model with ``nonneg`` / PSD variables keeps its CVXPY name;
* what each format refuses, in one line: a PSD model as LP, a nonlinear model as MPS, a Pyomo
  model as CBF, a form and a format that do not go together on the command line;
* the solution readers on each solver's format.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from cli_checks import refused, run_json

from sparsekm.solvers.files import conic_data, parse_solution, write_model
from sparsekm.solvers.files.cbf import write_cbf
from sparsekm.solvers.files.independent import read_with_mosek, solve_with_clarabel


def test_cbf_text_of_a_small_problem(tmp_path) -> None:
    """min x + 2y + 3 s.t. x + y = 2, y >= 0.5, t := x + 1 >= |y|: every line by hand."""
    import cvxpy as cp

    x, y = cp.Variable(name="x"), cp.Variable(name="y")
    prob = cp.Problem(cp.Minimize(x + 2 * y + 3),
                      [x + y == 2, y >= 0.5, cp.SOC(x + 1, cp.reshape(y, (1,), order="F"))])
    data = conic_data(prob)
    assert data.columns == ["x", "y"] and data.d == 3.0
    path = write_cbf(data, tmp_path / "t.cbf", ["hand"])
    text = path.read_text()
    assert text.startswith("# hand\nVER\n3\n\nOBJSENSE\nMIN\n\nVAR\n2 1\nF 2\n\nCON\n4 3\n"
                           "L= 1\nL+ 1\nQ 2\n\n")
    assert "OBJACOORD\n2\n0 1.0\n1 2.0\n\nOBJBCOORD\n3.0\n\n" in text
    back = read_with_mosek(path)
    res = solve_with_clarabel(back)
    # optimum: y as small as allowed (0.5), x = 1.5 -> 1.5 + 1 + 3
    assert res.objective == pytest.approx(5.5, abs=1e-7)
    assert res.bound == pytest.approx(5.5, abs=1e-7)


def test_cbf_psd_block_and_exponential_cone_round_trip(tmp_path) -> None:
    """max lambda_min of [[2, 1], [1, 2]] - t I is 1 (t = 1); min x s.t. exp(1) <= x (x = e),
    written through the PSD and exponential cones."""
    import cvxpy as cp

    t = cp.Variable(name="t")
    A = np.array([[2.0, 1.0], [1.0, 2.0]])
    psd = cp.Problem(cp.Maximize(t), [A - t * np.eye(2) >> 0])
    x = cp.Variable(name="x")
    expo = cp.Problem(cp.Minimize(x), [cp.exp(1.0 + 0 * x) <= x])
    for prob, value in ((psd, 1.0), (expo, math.e)):
        data = conic_data(prob)
        write_cbf(data, tmp_path / "p.cbf")
        back = read_with_mosek(tmp_path / "p.cbf")
        assert back.sense == data.sense
        res = solve_with_clarabel(back)
        assert res.objective == pytest.approx(value, abs=1e-7)


def test_columns_keep_cvxpy_names_through_attribute_variables() -> None:
    import cvxpy as cp

    a = cp.Variable(3, nonneg=True, name="a")
    S = cp.Variable((2, 2), PSD=True, name="S")
    b = cp.Variable(name="b")
    prob = cp.Problem(cp.Minimize(cp.sum(a) + cp.trace(S) + b), [a + b >= 1, S[0, 1] == b])
    data = conic_data(prob)
    assert {f"a[{i}]" for i in range(3)} <= set(data.columns)
    assert "b" in data.columns
    assert not any(c.startswith("x") for c in data.columns)


def test_formats_refuse_what_they_cannot_hold(tmp_path) -> None:
    import cvxpy as cp
    import pyomo.environ as pyo

    X = cp.Variable((2, 2), PSD=True, name="X")
    sdp = cp.Problem(cp.Minimize(cp.trace(X)), [X[0, 0] >= 1])
    with pytest.raises(ValueError, match="CBF"):
        write_model(sdp, tmp_path / "a.lp", "lp")
    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, 1))
    m.o = pyo.Objective(expr=pyo.exp(m.x))
    with pytest.raises(ValueError, match="nl"):
        write_model(m, tmp_path / "a.mps", "mps")
    with pytest.raises(ValueError, match="lp, mps or nl"):
        write_model(m, tmp_path / "a.cbf", "cbf")
    assert write_model(m, tmp_path / "a.nl", "nl").fmt == "nl"


def test_cli_refusals_are_one_line() -> None:
    flags = ("--data", "cleveland", "--rows", "60", "--B", "3")
    assert "formats: cbf" in refused("export", "fs-linear", "--form", "shor-cop",
                                     "--format", "lp", *flags)
    assert "--form" in refused("export", "fs-linear", "--format", "lp", *flags)
    assert "choose one of" in refused("export", "fs-linear", "--form", "nope", *flags)
    assert "formats: nl" in refused("export", "fs-kernel", "--form", "minlp", "--format",
                                    "mps", "--data", "cleveland", "--rows", "10")


def test_sidecar_names_every_column_of_the_file(tmp_path) -> None:
    out = tmp_path / "d.lp"
    payload = run_json("export", "fs-linear", "--form", "dscop", "--format", "lp", "--out",
                       str(out), "--data", "cleveland", "--rows", "60", "--B", "3")
    side = json.loads((tmp_path / "d.lp.json").read_text())
    names = side["variables"]["names"]
    assert names["w(3)"] == {"model": "w[3]", "paper": "w_3"}
    assert names["xi(59)"]["paper"] == "xi_59"
    assert names["b"]["paper"] == "b"
    assert side["objective"] == {"sense": "min", "constant": 0.0, "constant_in_file": True}
    assert side["data"]["sha256"] == payload["data_sha256"] and side["data"]["m"] == 60
    assert side["class"] == "SOCP" and side["equation"] == "paper D, eq. (13)"
    text = out.read_text()
    assert " ^ 2" not in text and " ^2" in text


SCIP = "solution status: optimal solution found\nobjective value: 2.5\nx(0) 1 \t(obj:1)\n"
HIGHS_PRETTY = ("Columns\n    Index Status        Lower        Upper       Primal         Dual"
                "  Name\n        0     BS         -inf          inf          1.5            0"
                "  x(0)\nRows\n")
CPLEX = ('<?xml version = "1.0" standalone="yes"?>\n<CPLEXSolution version="1.2">\n'
         ' <header objectiveValue="2.5" solutionStatusString="integer optimal solution"/>\n'
         ' <variables>\n  <variable name="x(0)" index="0" value="1"/>\n'
         '  <variable name="y" index="1" value="-0.5"/>\n </variables>\n</CPLEXSolution>\n')


@pytest.mark.parametrize(("text", "kind", "values", "objective"), [
    (SCIP, "scip", {"x(0)": 1.0}, 2.5),
    (HIGHS_PRETTY, "highs", {"x(0)": 1.5}, None),
    (CPLEX, "cplex", {"x(0)": 1.0, "y": -0.5}, 2.5),
    ("# Objective value = 2.5\nx(0) 1\n", "gurobi", {"x(0)": 1.0}, 2.5),
    ("x 1\n# c\ny 2e-3\n", "plain", {"x": 1.0, "y": 0.002}, None),
])
def test_solution_readers(text, kind, values, objective) -> None:
    sol = parse_solution(text)
    assert sol.kind == kind and sol.values == values and sol.objective == objective


def test_export_forms_come_from_the_registry(monkeypatch, tmp_path) -> None:
    """``sparsekm export`` writes what the registry declares: every exportable form of every
    problem is a choice of its export command, each declared by its own formulation or
    relaxation; a formulation registered here with an export (a CoP with feature 0 forced
    in, a restriction) reaches the command with no other edit, and its sidecar says what it
    certifies."""
    import pyomo.environ as pyo

    from sparsekm import registry
    from sparsekm.models.fs_linear import cop_model
    from sparsekm.models.record import stamp
    from sparsekm.run.export import EXPORT_COMMANDS
    from sparsekm.run.export_forms import forms

    for problem in registry.problems():
        if registry.export_forms(problem):
            assert problem in EXPORT_COMMANDS
            assert set(forms(problem)) == set(registry.export_forms(problem))
    assert {"bigm", "cop", "cop-perspective", "dscop", "box"} <= set(forms("fs-linear"))
    monkeypatch.setattr(registry, "_ENTRIES", dict(registry._ENTRIES))

    def build(problem, options):
        model = cop_model(problem)
        model.force = pyo.Constraint(expr=model.u[0] == 0)
        return stamp(model, "fs-linear", "cop-with-0", ref="test", role="restriction")

    @registry.register("fs-linear", "formulation", "cop-with-0", paper="test",
                       ref="CoP (7) with feature 0 selected", problem_class="MINLP")
    @registry.exportable(registry.Export("cop-with-0", build, registry.QUADRATIC))
    def cop_with_0(problem):
        """CoP (7) with u_0 = 0 (a test formulation)."""
        return build(problem, {})

    out = str(tmp_path / "c0.lp")
    payload = run_json("export", "fs-linear", "--form", "cop-with-0", "--format", "lp",
                       "--out", out, "--data", "cleveland", "--rows", "40", "--B", "2")
    assert payload["certifies"] == "restricted subproblem"
    side = json.loads((tmp_path / "c0.lp.json").read_text())
    assert side["certifies"]["role"] == "restriction" and side["equation"].startswith("test")
    assert "u(0)" in (tmp_path / "c0.lp").read_text()
