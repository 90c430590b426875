"""A command for the experiment tests, loaded by the configs' ``run.imports`` (a file path).

``sparsekm solve probe`` solves the plain linear SVM through the real ``solve svm`` runner
after an optional sleep, and can raise or kill its own process instead; each finished call
appends a line to ``log``. Like every CLI module: a runner and a thin typer command.
"""

from __future__ import annotations

import os
import signal
import time
from typing import Any

from sparsekm.cli.common import (
    DEFAULT_DATA,
    DataOpt,
    JsonOpt,
    RunOptions,
    SeedOpt,
    TestSizeOpt,
    TimeLimitOpt,
    get_runner,
    run_command,
    runner,
    solve_app,
)


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


@solve_app.command("probe")
def probe_cmd(data: DataOpt = DEFAULT_DATA, seed: SeedOpt = 0, time_limit: TimeLimitOpt = None,
              test_size: TestSizeOpt = 0.0, json_out: JsonOpt = False, sleep: float = 0.0,
              fail: str = "none", log: str = "", C: float = 1.0) -> None:
    """Test probe: sleep, then fail as asked or solve the linear SVM."""
    opts = RunOptions(data=data, seed=seed, time_limit=time_limit, test_size=test_size)
    run_command(run, opts, json_out, sleep=sleep, fail=fail, log=log, C=C)
