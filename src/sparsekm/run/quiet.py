"""Keeping a run's output clean: stdout for the JSON alone, third-party noise silenced."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

__all__ = ["quiet_third_party_warnings", "stdout_to_stderr"]


def quiet_third_party_warnings() -> None:
    """Silence third-party warnings that say nothing about the user's run: Xpress's
    DeprecationWarning raised inside Pyomo's plugin on every Pyomo-backed command, and the
    RuntimeWarnings of CVXPY's internal arithmetic (a run's status and message say how it
    ended). Called by the CLI and by each bench run; library users keep their own filters."""
    import warnings

    # xpress.DeprecationWarning is Xpress's own class (not the builtin): match the text
    warnings.filterwarnings("ignore", message=r"Deprecated in Xpress")
    warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"cvxpy(\.|$)")


@contextlib.contextmanager
def stdout_to_stderr(active: bool = True) -> Iterator[None]:
    """Send everything written to stdout (Python prints and the C libraries of solvers) to
    stderr while active, so that ``--json`` output is the JSON object alone."""
    if not active:
        yield
        return
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved, 1)
        os.close(saved)
