"""Ctrl-C on a tree search returns its incumbent and bound, as a time limit does.

Before, SIGINT on ``bnb`` printed a 255-line traceback (the driver's and each worker's) and
lost the incumbent. Now the signal ends the run's deadline: the search stops at once, the
workers (which ignore SIGINT) are released, and the command prints its one JSON object with
termination ``interrupted``, exit 0. A second Ctrl-C still aborts.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest

from sparsekm.deadline import Deadline, interrupts_end

CLI = [sys.executable, "-c", "from sparsekm.cli.app import main; main()"]


def test_interrupt_ends_the_deadline_in_process():
    """The handler turns SIGINT into the deadline's end; outside the block SIGINT raises."""
    d = Deadline(100.0)
    with interrupts_end(d):
        signal.raise_signal(signal.SIGINT)
        assert d.expired() and d.interrupted
        with pytest.raises(KeyboardInterrupt):   # a second Ctrl-C: abort
            signal.raise_signal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        signal.raise_signal(signal.SIGINT)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_sigint_on_bnb_returns_the_incumbent_and_its_bound(workers):
    """Subprocess: fs-linear bnb on colorectal (B = 20, open for minutes), SIGINT once its
    search prints progress: exit 0 within seconds, one JSON object, the incumbent with a
    certified bound below it, termination interrupted, no traceback on stderr."""
    proc = subprocess.Popen([*CLI, "solve", "fs-linear", "--data", "colorectal", "--B", "20",
                             "--method", "bnb", "--workers", workers, "--time-limit", "300",
                             "--verbose", "-o", "log_every=0.5", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = []
    try:
        for line in proc.stderr:                  # the search is running: nodes reported
            seen.append(line)
            if " nodes " in line:
                break
        t0 = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    waited = time.perf_counter() - t0
    assert proc.returncode == 0, "".join(seen) + err
    assert "Traceback" not in err and waited < 20.0
    res = json.loads(out)
    assert res["termination"] == "interrupted" and res["status"] in ("feasible", "optimal")
    assert res["objective"] is not None and res["lower_bound"] is not None
    assert res["lower_bound"] <= res["objective"] and res["nodes"] > 0
