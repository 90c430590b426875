"""The time limit is one typed Deadline passed down from the front door's start: no global.

The console entry point starts a Deadline at the import of sparsekm and hands it to the
command (click's context object); the run layer gives it the run's limit; a method's plan is a
part of that same deadline. A process that spent 3 s before its command leaves the command
only the rest of ``--time-limit``.
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import time

import pytest

from sparsekm.deadline import Deadline
from sparsekm.run import command, resolve


def test_a_limit_counts_from_the_clocks_start_and_survives_pickling() -> None:
    start = time.perf_counter() - 2.0
    clock = Deadline(None, since=start)
    limited = clock.limited(5.0)
    assert limited.start == pytest.approx(start) and limited.end == pytest.approx(start + 5.0)
    assert 2.9 <= limited.remaining() <= 3.0
    back = pickle.loads(pickle.dumps(limited))        # a worker reads the same moments
    assert back.remaining() == pytest.approx(limited.remaining(), abs=0.05)
    assert back.start == pytest.approx(limited.start, abs=0.05)


def test_the_call_carries_the_runs_deadline_and_the_plan_is_part_of_it() -> None:
    clock = Deadline(None, since=time.perf_counter() - 1.0)
    call = resolve(command("solve", "fs-linear"), {"time_limit": "4"}, [], clock=clock)
    assert call.deadline.end == pytest.approx(clock.start + 4.0)
    plan = call.solver_plan()
    # the method's part ends min(1 s, 10 %) = 0.4 s before the run's
    assert plan.clock.end == pytest.approx(call.deadline.end - 0.4, abs=0.05)
    fresh = resolve(command("solve", "fs-linear"), {"time_limit": "4"}, [])
    assert fresh.deadline.remaining() == pytest.approx(4.0, abs=0.2)
    spent = resolve(command("solve", "fs-linear"), {"time_limit": "1e-9"}, [])
    assert spent.solver_plan().clock.expired()          # no grace beyond the limit


def test_the_console_entry_point_counts_start_up() -> None:
    """The entry point's clock starts at the import of sparsekm: a process whose import is
    set 6 s back runs ``main()`` with --time-limit 8, and the enumeration (about 30 s of
    work, reading the clock between supports) gets what is left, under 2 s, not the 7.2 s
    its own limit would give a command that started the clock itself."""
    argv = ["sparsekm", "solve", "fs-linear", "--data", "ionosphere", "--B", "3", "--method",
            "enumerate", "--time-limit", "8", "--json"]
    code = ("import sys, sparsekm; sparsekm.IMPORTED_AT -= 6.0; "
            f"sys.argv = {argv!r}; from sparsekm.cli.app import main; main()")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=False)
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    assert payload["termination"] == "time_limit"
    assert payload["time_s"] < 4.0, payload["time_s"]
