"""A big-M below ||w*||_inf is not a valid big-M: its bound is labelled, never a bound on (2).

``relax fs-linear --relaxation box --M 0.01`` on wholesale reported a lower bound of 2797.33
where the optimum of (2) is 968.56; dscomp and dsmp did the same. A given M is proven valid
when M >= sqrt(2 UB) (Remark 3.2); below that the relaxation's value moves to
``bound_under_M`` (a bound on (2) restricted to |w_j| <= M) and the result holds no bound.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
from fs_linear_instances import enum_opt, prob

from sparsekm.algorithms.fs_linear import solve_fs_linear
from sparsekm.models.fs_linear import estimate_big_m
from sparsekm.relaxations.fs_linear import solve_relaxation

CLI = [sys.executable, "-c", "from sparsekm.cli.app import main; main()"]


@pytest.mark.parametrize("name", ["box", "dscomp", "dsmp", "shor-bigm"])
def test_a_small_m_labels_the_bound(name):
    """M = 0.01 on rand1 (B = 2, C = 10): the value under M exceeds the enumerated optimum
    of (2), so it is no bound on (2): lower bound withheld, value in bound_under_M."""
    opt = enum_opt("rand1", 2, 10.0)[0]
    p = prob("rand1", 2, 10.0)
    r = solve_relaxation(p, name, M=0.01)
    assert r.bound is None and r.status.value != "optimal"
    assert r.extra["bound_under_M"] > opt * 1.01           # not a bound on (2)
    assert "bound_under_M" in r.message and "M = 0.01" in r.message


@pytest.mark.parametrize("name", ["box", "dscomp", "dsmp"])
def test_a_proven_valid_m_keeps_the_bound(name):
    """M >= sqrt(2 UB) is valid (Remark 3.2): the bound stays, below the optimum."""
    opt = enum_opt("rand1", 2, 10.0)[0]
    p = prob("rand1", 2, 10.0)
    M = estimate_big_m(p) * 1.5
    r = solve_relaxation(p, name, M=M)
    assert r.bound is not None and r.bound <= opt * (1 + 1e-6)
    assert r.extra["M_proven_valid_from"] <= M


def test_bigm_method_with_a_small_m_claims_no_bound():
    """The MIQP BigMP (6) with M = 0.01 restricts (2): its point is feasible for (2) (its value
    at least the optimum) but its solver's bound is not a bound on (2)."""
    opt = enum_opt("rand1", 2, 10.0)[0]
    r = solve_fs_linear(prob("rand1", 2, 10.0), "bigm", M=0.01)
    assert r.objective >= opt * (1 - 1e-6) and r.bound is None
    assert r.status.value != "optimal" and "M = 0.01" in r.message


def test_cli_box_small_m_on_wholesale():
    """The issue's command (subprocess): no lower bound, the labelled value in the JSON."""
    run = subprocess.run([*CLI, "relax", "fs-linear", "--data", "wholesale", "--B", "3",
                          "--C", "10", "--relaxation", "dsmp", "--M", "0.01", "--json"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["lower_bound"] is None and out["bound_under_M"] > 968.56
    assert math.isfinite(out["M_proven_valid_from"]) and out["M_proven_valid_from"] > 0.01
