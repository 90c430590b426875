"""A command for the experiment tests, loaded by the configs' ``run.imports`` (a file path).

``sparsekm solve probe`` solves the plain linear SVM through the real ``solve svm`` command
after an optional sleep, and can raise or kill its own process instead; each finished call
appends a line to ``log``. Like every run module: a runner, its own parameters declared in a
dataclass, and the :class:`~sparsekm.run.Command` that registers them.
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass
from typing import Any

from sparsekm import declare
from sparsekm.run import Command, register_command, run
from sparsekm.run.data import ready


@dataclass(frozen=True)
class Probe:
    """The probe's own parameters."""

    sleep: float = declare.field(0.0, "Seconds to sleep before anything else.", ge=0)
    fail: str = declare.field("none", "Fail as asked: none, raise (an exception) or crash "
                              "(SIGKILL of the run's own process).",
                              choices=("none", "raise", "crash"))
    log: str = declare.field("", "A file each finished call appends `seed C` to.")
    C: float = declare.field(1.0, "The SVM's C.", gt=0)


def run_probe(call: Any) -> dict[str, Any]:
    """Sleep, then fail as asked (``raise`` / ``crash``) or return the SVM's payload."""
    own, opts = call.own, call.opts
    ready()  # a grid's dry run stops here: the values are checked
    time.sleep(own["sleep"])
    if own["fail"] == "raise":
        raise ValueError(f"boom (C = {own['C']})")
    if own["fail"] == "crash":
        os.kill(os.getpid(), signal.SIGKILL)
    given = {"data": opts.data, "seed": opts.seed, "time_limit": opts.time_limit,
             "test_size": opts.test_size, "kernel": "linear", "C": own["C"]}
    payload = run("solve", "svm", given)
    if own["log"]:
        with open(own["log"], "a") as fh:
            fh.write(f"{opts.seed} {own['C']}\n")
    return payload


PROBE = register_command(Command(
    "solve", "probe", run_probe, "Test probe: sleep, then fail as asked or solve the linear "
    "SVM.", kind=None, own=Probe, problem_params=False,
    run_options=("data", "seed", "time_limit", "test_size")))
