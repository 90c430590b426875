"""Configs are validated before anything runs; grids expand to stable, content-keyed runs."""

from __future__ import annotations

import pytest

from sparsekm.experiments.config import ConfigError, check_runners, load_config, parse_config
from sparsekm.experiments.grid import expand

BASE = """
name = "t"
[grid]
problem = "svm"
data = ["wine", "iris"]
seed = [0, 1]
[grid.params]
C = [1, 10.0]
kernel = ["linear"]
test_size = [0.25]
[run]
time_limit = 5
"""


def _err(write_config, text: str) -> str:
    with pytest.raises(ConfigError) as exc:
        check_runners(load_config(write_config(text)))
    return str(exc.value)


def test_expansion_is_the_product_and_keys_are_stable(write_config) -> None:
    cfg = load_config(write_config(BASE))
    specs = expand(cfg)
    assert len(specs) == 2 * 2 * 2  # data x seed x C
    assert len({s.key for s in specs}) == 8
    again = expand(load_config(write_config(BASE.replace('"t"', '"other-name"'), "b.toml")))
    assert [s.key for s in specs] == [s.key for s in again]  # the name is not the config
    s = specs[0]
    assert s.opts["test_size"] == 0.25 and s.opts["time_limit"] == 5.0 and s.opts["seed"] == 0
    assert {k: s.params[k] for k in ("kernel", "gamma", "degree", "coef0", "C")} == {
        "kernel": "linear", "gamma": None, "degree": 3, "coef0": 0.0, "C": 1.0}  # defaults in
    assert s.opts["validation_size"] == 0.0
    assert s.hard_limit == 10.0  # 5 s + grace max(5, 25 %)
    # C = 1 and C = 1.0 are one run; C = 2 is another
    one = expand(load_config(write_config(BASE.replace("C = [1, 10.0]", "C = [1.0]"), "c.toml")))
    assert one[0].key == s.key
    two = expand(load_config(write_config(BASE.replace("C = [1, 10.0]", "C = [2]"), "d.toml")))
    assert two[0].key != s.key


def test_csv_data_is_keyed_by_content(write_config, tmp_path) -> None:
    csv = tmp_path / "own.csv"
    csv.write_text("a,b,label\n0,1,1\n1,0,-1\n1,1,1\n0,0,-1\n")
    cfg = load_config(write_config(BASE.replace('["wine", "iris"]', '["own.csv"]')))
    k1 = expand(cfg)[0].key
    assert expand(cfg)[0].opts["data"] == str(csv.resolve())
    csv.write_text("a,b,label\n0,1,1\n1,0,-1\n1,1,1\n0,2,-1\n")
    assert expand(load_config(write_config(BASE.replace('["wine", "iris"]', '["own.csv"]'),
                                           "e.toml")))[0].key != k1


@pytest.mark.parametrize("change, expected", [
    (("time_limit = 5", "time_limit = 5\nworkers = 3"), "run.workers: unknown key"),
    (("[grid.params]", "[grid.params]\nBB = [1]"), "grid.params.BB: `sparsekm solve svm` has "
                                                    "no option 'BB'; known: C, coef0, degree"),
    (("C = [1, 10.0]", 'C = [1, "ten"]'), "grid.params.C[1] = 'ten'"),
    (('kernel = ["linear"]', "kernel = []"), "params.kernel is an empty list"),
    (('problem = "svm"', 'problem = "svn"'), "grid.problem = 'svn': no command `sparsekm solve "
                                             "svn`"),
    (('"iris"', '"iriss"'), "grid.data[1] = 'iriss': neither a bundled dataset"),
    (("time_limit = 5", "time_limit = -5"), "run.time_limit: Input should be greater than 0"),
    (('test_size = [0.25]', 'test_size = [1.5]'), "grid.params.test_size[0] = 1.5"),
    (('seed = [0, 1]', 'seed = [0, 1]\nmethod = ["x"]'), "grid.method: `sparsekm solve svm` "
                                                         "takes no method"),
    (('test_size = [0.25]', 'scale = ["log"]'), "grid.params.scale[0] = 'log': choose one of"),
])
def test_a_wrong_key_or_value_is_an_error_naming_it(write_config, change, expected) -> None:
    assert expected in _err(write_config, BASE.replace(*change))


def test_not_toml_and_missing_file(write_config, tmp_path) -> None:
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(write_config("name = \n"))
    with pytest.raises(ConfigError, match="no such config file"):
        load_config(tmp_path / "nope.toml")


def test_several_grids_and_scalars(tmp_path) -> None:
    cfg = parse_config({"name": "x", "grid": [
        {"problem": "svm", "data": "wine", "params": {"C": 1}},
        {"problem": "svm", "data": ["wine"], "params": {"C": [1, 2]}}]}, tmp_path)
    specs = expand(cfg)
    assert len(specs) == 2  # C = 1 appears in both grids: one run
    assert [s.params["C"] for s in specs] == [1.0, 2.0]


def test_options_reach_the_runner_as_the_command_passes_them(tmp_path) -> None:
    """A grid key is the declared parameter (`n_samples` of `solve fs-kernel`); `relax` sets
    the relaxation; defaults are the CLI's (paper-sized grids and the CLI cannot drift apart)."""
    cfg = parse_config({"name": "x", "grid": [
        {"problem": "fs-kernel", "data": "wine", "method": "ls-star",
         "params": {"n_samples": 20, "B": 3, "kernel": "rbf"}},
        {"problem": "fs-linear", "action": "relax", "data": "wine", "method": "dscop",
         "params": {"B": 2, "conic": "sdp"}}]}, tmp_path)
    fk, fl = expand(cfg)
    assert fk.params["n_samples"] == 20 and "samples" not in fk.params
    assert (fk.params["method"], fk.params["B"], fk.params["kernel"]) == ("ls-star", 3, "rbf")
    assert fk.params["C"] == 10.0 and fk.params["sense"] == "margin"  # the CLI's defaults
    assert {k: fl.params[k] for k in ("relaxation", "B", "C", "conic")} == {
        "relaxation": "dscop", "B": 2, "C": 10.0, "conic": "sdp"}
    assert fk.opts["data"] == "wine" and fk.opts["scale"] == "standard"
