"""When a run started: the moment its time limit counts from (start-up included).

The CLI marks the process's start (the import of :mod:`sparsekm`); a bench run marks the
start of its child process. :meth:`~sparsekm.run.resolve.Call.solver_plan` starts every
method's clock from there, so ``--time-limit`` covers loading data, building the problem,
starting workers and the method itself.
"""

from __future__ import annotations

import time

__all__ = ["mark_start", "started"]

_START: list[float] = []


def mark_start(t: float | None = None) -> None:
    """Record that the run started at ``t`` (a ``time.perf_counter()`` reading; default now)."""
    _START[:] = [time.perf_counter() if t is None else float(t)]


def started() -> float:
    """The run's start (now, when none was marked)."""
    return _START[0] if _START else time.perf_counter()
