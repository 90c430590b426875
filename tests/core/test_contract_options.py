"""Every option reachable from one place (issues 21, 29): ``--option NAME=VALUE`` on every solve
and relax command, typed and checked from the declaration in the registered function's
signature; the same names in bench grids (``[grid.options]``) and in the estimators
(``method_options``); Result extras in the JSON."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from cli_checks import refused, run_json

from sparsekm import registry
from sparsekm.declare import ParamError

BNB = ["solve", "fs-linear", "--data", "wholesale", "--B", "2", "--method", "bnb"]


def test_gap_tol_reaches_bnb() -> None:
    """With gap_tol = 0.5 the tree stops at a gap the default tolerance (1e-4) would refuse."""
    default = run_json(*BNB)
    loose = run_json(*BNB, "--option", "gap_tol=0.5")
    assert default["status"] == "optimal" and default["gap"] <= 1e-4
    assert loose["params"]["gap_tol"] == 0.5
    assert 1e-4 < loose["gap"] <= 0.5 and loose["nodes"] < default["nodes"]
    assert loose["lower_bound"] <= default["objective"] <= loose["objective"]


def test_unknown_option_names_the_known_ones() -> None:
    err = refused(*BNB, "-o", "nope=1")
    assert "--option nope=1" in err and "gap_tol" in err and "node_limit" in err
    err = refused(*BNB, "-o", "gap_tol=abc")
    assert "--option gap_tol=abc: give a finite number >= 0 and < 1" in err
    err = refused(*BNB, "-o", "gap_tol")
    assert "NAME=VALUE" in err


@pytest.mark.parametrize("args,key,check", [
    (["solve", "smkl", "--data", "wine", "--rows", "60", "--kernels", "rbf:0.5,linear,rbf:2",
      "-o", "max_iter=1"], "iterations", lambda v: v <= 1),
    (["relax", "smkl", "--data", "ionosphere", "--rows", "40", "--kernels", "rbf:0.5,linear",
      "--relaxation", "sdp-3x3", "-o", "max_rounds=1"], "rounds", lambda v: v == 1),
    (["solve", "sklr", "--data", "wine", "--rows", "60", "-o", "max_iter=3"], "iterations",
     lambda v: v <= 3),
])
def test_option_reaches_every_problem(args, key, check) -> None:
    out = run_json(*args)
    assert check(out[key]), out[key]


def test_options_are_typed_from_the_declaration() -> None:
    bnb = registry.get("fs-linear", "method", "bnb").params
    assert bnb["gap_tol"].check("1e-3") == 1e-3 and bnb["node_limit"].check("none") is None
    assert bnb["k"].check("3") == 3
    assert registry.get("fs-kernel", "method", "ls").params["fast"].check("no") is False
    assert registry.get("smkl", "method", "single").params["Cs"].check("[1, 10]") == (1.0, 10.0)
    with pytest.raises(ParamError, match="give an integer"):
        bnb["k"].check("2.5")
    assert bnb["gap_tol"].check(np.float32(0.25)) == 0.25
    for bad in ("nan", "inf", "1", "-1"):
        with pytest.raises(ParamError):
            bnb["gap_tol"].check(bad)


def test_estimators_reach_registered_options() -> None:
    from sparsekm.data import Scaler, load_dataset
    from sparsekm.estimators import CardinalityLinearSVC

    ds = load_dataset("wholesale")
    X = Scaler("standard").fit(ds.X).transform(ds.X)
    est = CardinalityLinearSVC(B=2, method="bnb", method_options={"gap_tol": 0.5}).fit(X, ds.y)
    assert 1e-4 < est.gap_ <= 0.5
    with pytest.raises(ValueError, match="takes no option 'nope'; its options: .*gap_tol"):
        CardinalityLinearSVC(B=2, method="bnb", method_options={"nope": 1}).fit(X, ds.y)


def test_result_extras_reach_the_json_without_a_key_list(monkeypatch) -> None:
    """A new method's extras appear in the JSON with no CLI edit (they used to be dropped)."""
    from sparsekm.algorithms.smkl.result import method_result

    def fresh(problem, plan=None, *, tag: int = 0):
        """A method registered by this test."""
        import time

        beta = np.full(problem.q, 1.0 / problem.q)
        return method_result(problem, "fresh", time.perf_counter(), evaluation=beta,
                             brand_new=tag)

    entry = registry.Entry("smkl", "method", "fresh", fresh, "B", "test", "A test method.")
    monkeypatch.setitem(registry._ENTRIES, ("smkl", "method", "fresh"), entry)
    out = run_json("solve", "smkl", "--data", "ionosphere", "--rows", "40", "--kernels",
                   "rbf:0.5,linear", "--k0", "2", "--method", "fresh", "-o", "tag=7")
    assert out["brand_new"] == 7 and out["method"] == "fresh"


def test_grid_options_are_the_method_options() -> None:
    from sparsekm.experiments.config import ConfigError, check_runners, loads_config
    from sparsekm.experiments.grid import expand

    cfg = loads_config(textwrap.dedent("""
        name = "opts"
        [grid]
        problem = "fs-linear"
        data = ["wholesale"]
        method = ["bnb"]
        [grid.params]
        B = [2]
        [grid.options]
        gap_tol = [0.5, 0.01]
    """))
    specs = expand(check_runners(cfg))
    assert sorted(s.options["gap_tol"] for s in specs) == [0.01, 0.5]
    assert sorted(s.params["gap_tol"] for s in specs) == [0.01, 0.5]
    assert len({s.key for s in specs}) == 2
    bad = loads_config(textwrap.dedent("""
        name = "opts"
        [grid]
        problem = "fs-linear"
        data = ["wholesale"]
        method = ["bnb", "kernel-search"]
        [grid.options]
        gap_tol = [0.5]
    """))
    with pytest.raises(ConfigError, match="kernel-search.*takes no option 'gap_tol'"):
        check_runners(bad)


def test_an_option_group_resolves_its_declaration_once(monkeypatch) -> None:
    """Building an option group checks its fields against the declaration, which is read once
    per class: ``fast`` builds a ``SwapOptions`` per swap search, and resolving the type
    hints each time cost more than the compiled work on small problems. A bad value is still
    refused on every build."""
    from sparsekm import declare
    from sparsekm.algorithms.fs_linear.swap import SwapOptions

    calls = []
    real = declare._hints
    monkeypatch.setattr(declare, "_hints", lambda obj: calls.append(obj) or real(obj))
    declare._declared_fields.cache_clear()
    for _ in range(5):
        assert SwapOptions(candidates=7).candidates == 7
    assert calls.count(SwapOptions) == 1
    with pytest.raises(ParamError, match="candidates"):
        SwapOptions(candidates=0)
