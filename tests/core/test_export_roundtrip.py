"""Round trip: sparsekm writes a model to a file, another solver reads the file directly and
must find sparsekm's certified values (issue 28).

* the MIQP/MINLP forms of paper D (BigMP (6), CoP (7) as printed and in its perspective form)
  as LP and MPS files, read by SCIP (pyscipopt): the optimum enumerated by sparsekm;
* BigMP's MPS file read by HiGHS (highspy, no MIQP): its continuous relaxation is BoxMP (8)
  (``relax --relaxation box``), and with v fixed at the optimal support it is the optimum;
* the SOC relaxation DSCoP (13) as LP and MPS (cones as quadratic rows), read by SCIP: the
  value of ``relax --relaxation dscop``;
* CBF files (DSCoP with SOC and with 3x3 PSD blocks, SCoP (11), BoxMP, paper B's (14) and
  (16)) parsed by MOSEK's reader (no licence needed) and solved by Clarabel directly:
  the relaxations' certified values; MISDP (13) parses with its integer columns;
* paper A's MINLP (4) as NL, read and solved by SCIP: the optimum enumerated by sparsekm.
"""

from __future__ import annotations

import json

import pytest
from cli_checks import run_json

from sparsekm.solvers.files.independent import (
    read_with_highs,
    read_with_mosek,
    read_with_scip,
    solve_with_clarabel,
)

FS = ("--data", "cleveland", "--rows", "60", "--B", "3", "--C", "1")
SMKL = ("--data", "diabetes", "--rows", "40", "--kernels", "linear,rbf:0.5,poly:1:1:2", "--k0", "1")
REL = 1e-6


def export(tmp_path, problem: str, form: str, fmt: str, *flags: str) -> tuple[str, dict]:
    out = str(tmp_path / f"{problem}-{form}.{fmt}")
    payload = run_json("export", problem, "--form", form, "--format", fmt, "--out", out, *flags)
    return out, payload


def close(a: float, b: float, rel: float = REL) -> bool:
    return abs(a - b) <= rel * max(1.0, abs(b))


@pytest.fixture(scope="module")
def optimum() -> dict:
    """paper D's (2) on the instance, certified by enumeration of every support of size B."""
    res = run_json("solve", "fs-linear", *FS, "--method", "enumerate")
    assert res["status"] == "optimal"
    return res


@pytest.mark.parametrize("fmt", ["lp", "mps"])
@pytest.mark.parametrize("form", ["bigm", "cop"])
def test_scip_reads_bigm_and_cop_and_finds_the_certified_optimum(tmp_path, optimum, form,
                                                                   fmt) -> None:
    path, payload = export(tmp_path, "fs-linear", form, fmt, *FS)
    side = json.loads((tmp_path / f"fs-linear-{form}.{fmt}.json").read_text())
    assert side["data"]["sha256"] == payload["data_sha256"]
    assert side["params"] == {"B": 3, "C": 1.0, "cardinality": "eq"}
    res = read_with_scip(path)
    assert res.status == "optimal"
    assert close(res.objective, optimum["objective"]), (res.objective, optimum["objective"])
    assert close(res.bound, optimum["lower_bound"])
    w = sorted(int(name[2:-1]) for name, v in res.values.items()
               if name.startswith("w(") and abs(v) > 1e-6)
    assert w == optimum["selected"]


def test_scip_on_the_perspective_cop_is_within_its_cone_tolerance(tmp_path, optimum) -> None:
    """SCIP accepts w_j ~ 3e-5 where u_j = 1 (w_j^2 <= W_j s_j + its feasibility tolerance):
    its value is a hair below the optimum; the support it picks is the optimal one."""
    path, _ = export(tmp_path, "fs-linear", "cop-perspective", "mps", *FS)
    res = read_with_scip(path)
    assert res.status == "optimal"
    assert close(res.objective, optimum["objective"], 1e-4)
    S = sorted(int(name[2:-1]) for name, v in res.values.items()
               if name.startswith("u(") and v < 0.5)
    assert optimum["selected"] == S


def test_highs_reads_bigm_mps_its_relaxation_is_box_and_the_support_the_optimum(
        tmp_path, optimum) -> None:
    path, payload = export(tmp_path, "fs-linear", "bigm", "mps", *FS)
    M = json.loads((tmp_path / "fs-linear-bigm.mps.json").read_text())["options"]["M"]
    box = run_json("relax", "fs-linear", *FS, "--relaxation", "box", "-o", f"M={M!r}")
    relaxed = read_with_highs(path, relax_integers=True)
    assert relaxed.status == "optimal"
    assert close(relaxed.objective, box["objective"], 1e-6)
    assert relaxed.objective >= box["lower_bound"] - 1e-6 * box["objective"]
    fix = {f"v({j})": float(j in optimum["selected"]) for j in range(payload["variables"] and 13)}
    fixed = read_with_highs(path, relax_integers=True, fix=fix)
    assert close(fixed.objective, optimum["objective"], 1e-7)


@pytest.mark.parametrize("fmt", ["lp", "mps"])
def test_scip_reads_dscop_with_cones_as_quadratic_rows(tmp_path, fmt) -> None:
    rel = run_json("relax", "fs-linear", *FS, "--relaxation", "dscop")
    path, payload = export(tmp_path, "fs-linear", "dscop", fmt, *FS)
    assert payload["class"] == "SOCP"
    res = read_with_scip(path)
    assert res.status == "optimal"
    assert close(res.objective, rel["objective"], 1e-5)
    assert close(res.bound, rel["lower_bound"], 1e-5)


@pytest.mark.parametrize(("form", "relaxation", "flags"), [
    ("dscop", "dscop", ()), ("dscop", "dscop", ("--conic", "sdp")),
    ("shor-cop", "shor-cop", ()), ("box", "box", ())])
def test_cbf_parsed_by_mosek_and_solved_by_clarabel(tmp_path, form, relaxation, flags) -> None:
    rel = run_json("relax", "fs-linear", *FS, "--relaxation", relaxation)
    path, payload = export(tmp_path, "fs-linear", form, "cbf", *FS, *flags)
    data = read_with_mosek(path)
    if "sdp" in flags or form == "shor-cop":
        assert any(kind == "psd" for kind, _ in data.cones)
    res = solve_with_clarabel(data)
    assert res.status == "solved"
    assert close(res.objective, rel["objective"], 1e-6)
    assert close(res.bound, rel["lower_bound"], 1e-6)


@pytest.mark.parametrize(("form", "fmt"), [("soc-basis", "cbf"), ("soc-basis", "lp"),
                                           ("sdp-full", "cbf")])
def test_paper_b_relaxations_round_trip(tmp_path, form, fmt) -> None:
    rel = run_json("relax", "smkl", *SMKL, "--relaxation", form)
    path, _ = export(tmp_path, "smkl", form, fmt, *SMKL)
    if fmt == "cbf":
        res = solve_with_clarabel(read_with_mosek(path))
        assert res.status == "solved"
    else:
        res = read_with_scip(path)
        assert res.status == "optimal"
    assert close(res.objective, rel["objective"], 1e-5)


def test_misdp_cbf_parses_with_its_binaries_and_psd_block(tmp_path) -> None:
    path, payload = export(tmp_path, "smkl", "misdp", "cbf", *SMKL)
    assert payload["class"] == "MISDP" and payload["integer"] == 3
    data = read_with_mosek(path)
    assert len(data.integer) == 3
    assert ("psd", 41) in data.cones            # the (m + 1) x (m + 1) block of (13)
    with pytest.raises(ValueError, match="integer"):
        solve_with_clarabel(data)


def test_paper_a_minlp_as_nl_read_by_scip_gives_each_masks_certified_value(tmp_path) -> None:
    """SCIP reads MINLP (4) from the NL file; with beta fixed at a mask it solves the rest (a
    QP in alpha) and finds that mask's certified value, the enumerated optimum at the best
    mask. (SCIP does not close the full MINLP even at 10 rows and 3 features in 300 s.)"""
    flags = ("--data", "haberman", "--train-rows", "10", "--B", "2", "--sense", "paper")
    best = run_json("solve", "fs-kernel", *flags, "--method", "enumerate")
    path, payload = export(tmp_path, "fs-kernel", "minlp", "nl", *flags)
    assert payload["class"] == "MINLP"
    for mask in ([0, 1], [0, 2], [1, 2]):
        support = tmp_path / "support.json"
        support.write_text(json.dumps({"support": mask}))
        exact = run_json("check", "fs-kernel", str(support), *flags)
        res = read_with_scip(path, time_limit=120,
                             fix={f"beta[{j}]": float(j in mask) for j in range(3)})
        assert res.status == "optimal"
        assert close(res.objective, exact["support_objective"], 1e-6)
        if mask == best["selected"]:
            assert close(res.objective, best["objective"], 1e-6)
