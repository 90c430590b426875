"""Runners for the experiment tests, loaded by the configs' ``run.imports`` (a file path).

``probe`` solves the plain SVM through the real ``solve svm`` runner after an optional sleep,
and can raise or kill its own process instead; each finished call appends a line to ``log``.
"""

from __future__ import annotations

import os
import signal
import time
from typing import Any

from sparsekm.cli.common import RunOptions, get_runner, runner


@runner("solve", "probe")
def run(opts: RunOptions, *, sleep: float = 0.0, fail: str = "none", log: str = "",
        C: float = 1.0) -> dict[str, Any]:
    """Sleep, then fail as asked (``raise`` / ``crash``) or return the SVM's payload."""
    time.sleep(sleep)
    if fail == "raise":
        raise ValueError(f"boom (C = {C})")
    if fail == "crash":
        os.kill(os.getpid(), signal.SIGKILL)
    payload = get_runner("solve", "svm")(opts, kernel="linear", C=C)
    if log:
        with open(log, "a") as fh:
            fh.write(f"{opts.seed} {C}\n")
    return payload
