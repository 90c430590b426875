"""``sparsekm check PROBLEM SOLUTION``: points computed elsewhere, read by variable name.

The reference is paper D's (2) on a small instance, certified by enumeration. A solution file
of SCIP (read from the exported BigMP), of HiGHS and in Gurobi's format, a JSON support and a
JSON of the paper's variables are each checked against it; a malformed file exits 2 with one
line, an infeasible point exits 1 after its report.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_checks import refused, run_json, runner

from sparsekm.cli.app import app

FS = ("--data", "cleveland", "--rows", "60", "--B", "3", "--C", "1")


@pytest.fixture(scope="module")
def optimum() -> dict:
    res = run_json("solve", "fs-linear", *FS, "--method", "enumerate")
    assert res["status"] == "optimal"
    return res


@pytest.fixture(scope="module")
def scip_sol(tmp_path_factory) -> str:
    """SCIP's own .sol file of the exported BigMP (6)."""
    import pyscipopt

    d = tmp_path_factory.mktemp("check")
    model = str(d / "bigm.mps")
    run_json("export", "fs-linear", "--form", "bigm", "--format", "mps", "--out", model, *FS)
    scip = pyscipopt.Model()
    scip.hideOutput()
    scip.readProblem(model)
    scip.optimize()
    scip.writeBestSol(str(d / "bigm.sol"))
    return str(d / "bigm.sol")


@pytest.mark.parametrize("form", ["support", "z", "selected_names"])
def test_a_known_support_gets_its_certified_value(tmp_path, optimum, form) -> None:
    """The support as indices, as the 0/1 selection z of the tree search, or by name."""
    S = optimum["selected"]
    given = {"support": {"support": S}, "z": {"z": [int(j in S) for j in range(13)]},
             "selected_names": {"selected_names": optimum["selected_names"]}}[form]
    sol = tmp_path / "support.json"
    sol.write_text(json.dumps(given))
    out = run_json("check", "fs-linear", str(sol), *FS)
    assert out["feasible"] and out["status"] == "feasible" and out["max_violation"] == 0
    assert out["support"] == optimum["selected"]
    assert out["support_objective"] == pytest.approx(optimum["objective"], rel=1e-9)
    assert out["support_bound"] <= out["support_objective"]
    assert out["support_gap"] < 1e-8


def test_scip_sol_is_feasible_and_worth_the_optimum(scip_sol, optimum) -> None:
    out = run_json("check", "fs-linear", scip_sol, *FS)
    assert out["format"] == "scip" and out["feasible"]
    assert out["max_violation"] <= 1e-6
    assert out["objective"] == pytest.approx(optimum["objective"], rel=1e-6)
    assert out["objective_in_file"] == pytest.approx(optimum["objective"], rel=1e-6)
    assert out["support"] == optimum["selected"]
    assert out["support_objective"] == pytest.approx(optimum["objective"], rel=1e-9)


def test_highs_and_gurobi_files_read_by_name(tmp_path, scip_sol, optimum) -> None:
    from sparsekm.solvers.files import read_solution

    values = read_solution(scip_sol).values
    gurobi = tmp_path / "g.sol"
    gurobi.write_text(f"# Solution for model fs_linear_bigm\n# Objective value = "
                      f"{optimum['objective']!r}\n"
                      + "".join(f"{k} {v!r}\n" for k, v in values.items()))
    highs = tmp_path / "h.sol"
    highs.write_text("Model status\nOptimal\n\n# Primal solution values\nFeasible\n"
                     f"Objective {optimum['objective']!r}\n# Columns {len(values)}\n"
                     + "".join(f"{k} {v!r}\n" for k, v in values.items())
                     + "# Rows 0\n\n# Dual solution values\nNone\n")
    for path, kind in ((gurobi, "gurobi"), (highs, "highs")):
        out = run_json("check", "fs-linear", str(path), *FS)
        assert out["format"] == kind and out["feasible"]
        assert out["values_read"] == len(values)
        assert out["objective"] == pytest.approx(optimum["objective"], rel=1e-6)


def test_paper_variables_as_json(tmp_path, optimum) -> None:
    """w and b given: the objective is recomputed from the data (hinge, not the file's)."""
    from sparsekm.data import load_dataset

    ds = load_dataset("cleveland").head(60)
    X = (ds.X - ds.X.mean(0)) / ds.X.std(0)
    rng = np.random.default_rng(0)
    w = np.zeros(ds.n)
    w[optimum["selected"]] = rng.standard_normal(3)
    sol = tmp_path / "p.json"
    sol.write_text(json.dumps({"w": w.tolist(), "b": 0.25}))
    out = run_json("check", "fs-linear", str(sol), *FS)
    hinge = np.maximum(0, 1 - ds.y * (X @ w + 0.25)).sum()
    assert out["objective"] == pytest.approx(0.5 * w @ w + hinge, rel=1e-9)
    assert out["feasible"] and out["support"] == optimum["selected"]


def test_an_infeasible_point_exits_1_after_its_report(tmp_path) -> None:
    sol = tmp_path / "too_many.json"
    sol.write_text(json.dumps({"support": [0, 1, 2, 3]}))
    res = runner.invoke(app, ["check", "fs-linear", str(sol), *FS, "--json"])
    assert res.exit_code == 1
    out = json.loads(res.stdout)
    assert out["status"] == "infeasible" and out["worst"] == "support_size"
    assert out["max_violation"] == 1.0
    assert res.stderr.strip().startswith("error: the point is infeasible")


@pytest.mark.parametrize("text", [
    "objective value: 3\nw(0) 1.0 (obj:0)\nw(1) abc (obj:0)\n",        # not a number
    "objective value: 3\nw(0) 1.0\nw(0) 2.0\n",                         # given twice
    "objective value: 3\n",                                             # no variable
    "objective value: 3\nomega(2) 1.0\n",                               # not this problem's
    "objective value: 3\nw(99) 1.0\n",                                  # outside the data
    "Model status\nOptimal\n\n# Primal solution values\nFeasible\nObjective 1\n"
    "# Columns 5\nw(0) 1\nw(1) 2\n",                                    # truncated HiGHS
    '{"w": [1, "x"]}',                                                  # JSON, not a number
    "{not json",
])
def test_a_malformed_file_is_one_line_exit_2(tmp_path, text) -> None:
    sol = tmp_path / "bad.sol"
    sol.write_text(text)
    line = refused("check", "fs-linear", str(sol), *FS)
    assert line.startswith("error: ") and str(sol) in line


def test_positional_names_need_the_sidecar(tmp_path, optimum) -> None:
    """An NL file names columns by position: the sidecar maps x<k> to the model's names."""
    model = str(tmp_path / "bigm.nl")
    run_json("export", "fs-linear", "--form", "bigm", "--format", "nl", "--out", model, *FS)
    side = json.loads((tmp_path / "bigm.nl.json").read_text())
    by_model = {v["model"]: k for k, v in side["variables"]["names"].items()}
    support = tmp_path / "s.json"
    support.write_text(json.dumps({"support": optimum["selected"]}))
    ref = run_json("check", "fs-linear", str(support), *FS)
    sol = tmp_path / "x.sol"
    w = {by_model[f"w[{j}]"]: 0.0 for j in range(13)}
    sol.write_text("".join(f"{k} {v}\n" for k, v in w.items()))
    refused("check", "fs-linear", str(sol), *FS)                      # x<k>: not a w
    out = run_json("check", "fs-linear", str(sol), *FS, "--sidecar",
                   str(tmp_path / "bigm.nl.json"))
    assert out["feasible"] and out["support"] == []
    assert out["objective"] > ref["support_objective"]


@pytest.mark.parametrize("text", [
    '{"w": [1e400, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], "b": 0}',       # JSON 1e400: inf
    "objective value: 3\nw(0) 1e400\nb 0\n",                            # a .sol line
    "objective value: 3\nw(2) -inf\n",
])
def test_a_non_finite_value_is_refused(tmp_path, text) -> None:
    """A w read as inf is no point of (2): exit 2 naming the value, never 'feasible,
    objective inf'."""
    sol = tmp_path / "inf.sol"
    sol.write_text(text)
    line = refused("check", "fs-linear", str(sol), *FS)
    assert "is not a finite number" in line and str(sol) in line


def test_the_problem_checks_its_own_points() -> None:
    """Problem.check_point (the check command's and the read-back's) on hand-computed
    points: the optimum of the SVM on a support is its exact value, a hand-made point's
    objective and violations are computed from the data, inf is refused."""
    from sparsekm.models.fs_linear import FSLinearProblem

    X = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 1.0]])
    y = np.array([1.0, 1.0, -1.0, -1.0])
    p = FSLinearProblem(X, y, B=1, C=1.0)
    # w = (1, 0, 0), b = 0: margins y_i w'x_i = 1, 0, 1, 0 -> hinge 0 + 1 + 0 + 1 = 2
    chk = p.check_point({"w": [1.0, 0.0, 0.0], "b": 0.0, "v": [1, 0, 0]})
    assert chk.objective == pytest.approx(0.5 + 2.0) and chk.feasible()
    assert chk.support == [0] and chk.violations["v_budget"] == 0.0
    two = p.check_point({"w": [1.0, 0.5, 0.0], "b": 0.0})
    assert not two.feasible() and two.worst == "cardinality" and two.max_violation == 0.5
    # SVM on feature 0: min 1/2 w^2 + sum hinge; w = 1, b = 0 is optimal (value 2.5)
    val, bound = p.support_value([0])
    assert val == pytest.approx(2.5, rel=1e-6) and bound <= val
    with pytest.raises(ValueError, match=r"w\[1\] = inf is not a finite number"):
        p.check_point({"w": [0.0, np.inf, 0.0]})
