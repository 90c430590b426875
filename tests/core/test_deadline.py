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


def test_the_console_entry_point_counts_start_up() -> None:
    """sparsekm imported, 3 s spent, then ``main()`` with --time-limit 4: the enumeration
    (which reads the clock between supports) gets what is left (under a second), not 4 s."""
    argv = ["sparsekm", "solve", "fs-linear", "--data", "ionosphere", "--B", "3", "--method",
            "enumerate", "--time-limit", "4", "--json"]      # 5984 supports: about 30 s
    code = ("import sys, time, sparsekm; time.sleep(3); "
            f"sys.argv = {argv!r}; from sparsekm.cli.app import main; main()")
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=False)
    wall = time.perf_counter() - t0
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    assert payload["termination"] == "time_limit"
    assert payload["time_s"] < 1.5, payload["time_s"]          # 4 s from its own start
    assert wall < 3 + 4 + 2.5
