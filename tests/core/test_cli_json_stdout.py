"""With --json, stdout is one JSON object whatever a solver prints (real processes: solvers
write to the file descriptor, which an in-process runner cannot see)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

CLI = [sys.executable, "-c", "from sparsekm.cli.app import main; main()"]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONWARNINGS": "default"}
    return subprocess.run([*CLI, *args], capture_output=True, text=True, env=env, timeout=300)


def test_time_limited_miqp_prints_only_json() -> None:
    """SCIP stopped by its time limit makes Pyomo warn about an 'aborted' status; the warning
    goes to stderr and the incumbent comes back with status time_limit. 60 rows and 15 s leave
    SCIP time to find a point even when the test runs beside others on 2 cores (at 120 rows
    and 10 s it found none under load)."""
    r = run_cli("solve", "fs-linear", "--data", "arrhythmia", "--rows", "60", "--B", "10",
                "--method", "cop", "--time-limit", "15", "--no-warm-start", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)  # the whole of stdout parses
    assert out["status"] in ("feasible", "optimal") and len(out["selected"]) <= 10
    assert out["termination"] in ("time_limit", "converged")
    assert out["objective"] > 0


def test_licence_banner_and_size_limit_go_to_stderr() -> None:
    """Gurobi's pip licence prints a banner and refuses DSCoP on ionosphere (454 variables with
    quadratic terms): stdout stays empty, stderr names the limit, the model's size and the
    solvers that can take it, exit code 2."""
    pytest.importorskip("gurobipy")
    r = run_cli("relax", "fs-linear", "--data", "ionosphere", "--B", "5", "--relaxation",
                "dscop", "--solver", "gurobi", "--json")
    assert r.returncode == 2 and r.stdout == ""
    assert "size limit" in r.stderr and "454 variables" in r.stderr
    assert "clarabel" in r.stderr and "Traceback" not in r.stderr
