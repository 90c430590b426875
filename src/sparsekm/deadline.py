"""The one time budget of a run: a :class:`Deadline`, passed down as an object, never a global.

A command's clock starts with its process: the CLI's entry point makes a :class:`Deadline`
without a limit that starts the moment :mod:`sparsekm` was imported and hands it to the
command (click's context object); the run layer gives it the run's limit
(:meth:`Deadline.limited`), and every method, node solve and worker reads that same object
or a part of it, so ``--time-limit`` covers start-up and every part of the work. A bench run
starts its own in its child process.
"""

from __future__ import annotations

import contextlib
import math
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

__all__ = ["Deadline", "interrupts_end"]


class Deadline:
    """A global wall-clock budget: ``remaining()`` seconds (inf without a limit).

    ``elapsed()`` counts from the clock's start; the budget ends ``time_limit`` seconds after
    ``since`` (a ``time.perf_counter()`` reading; default: now), so a command's limit can
    cover its own start-up (the CLI passes the process's start).
    """

    def __init__(self, time_limit: float | None, since: float | None = None) -> None:
        if time_limit is not None and not time_limit > 0:
            raise ValueError(f"time limit {time_limit} must be > 0 seconds (or None)")
        self.t0 = time.perf_counter()
        self.start = self.t0 if since is None else float(since)
        self.limit = time_limit
        self.end = math.inf if time_limit is None else self.start + time_limit
        self.interrupted = False

    def limited(self, time_limit: float | None) -> Deadline:
        """The deadline ``time_limit`` seconds after this one's start (a run's start, given
        its limit once the flags are read)."""
        return Deadline(time_limit, since=self.start)

    def interrupt(self) -> None:
        """End the budget now (the user's Ctrl-C): everything that keeps the limit stops as at
        a time limit and returns its incumbent; ``interrupted`` says why."""
        self.end, self.interrupted = time.perf_counter(), True

    def __getstate__(self) -> dict[str, Any]:
        """Sent to another process as wall-clock readings (``perf_counter`` has no meaning
        outside this one), so a worker, local or on Dask, stops at the same moment."""
        now_p, now_w = time.perf_counter(), time.time()
        return {"limit": self.limit, "interrupted": self.interrupted,
                "t0_wall": now_w - (now_p - self.t0),
                "start_wall": now_w - (now_p - self.start),
                "end_wall": self.end if math.isinf(self.end) else now_w + (self.end - now_p)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        now_p, now_w = time.perf_counter(), time.time()
        self.limit = state["limit"]
        self.interrupted = state.get("interrupted", False)
        self.t0 = now_p - (now_w - state["t0_wall"])
        self.start = now_p - (now_w - state.get("start_wall", state["t0_wall"]))
        end = state["end_wall"]
        self.end = end if math.isinf(end) else now_p + (end - now_w)

    def elapsed(self) -> float:
        return time.perf_counter() - self.t0

    def remaining(self) -> float:
        return max(0.0, self.end - time.perf_counter())

    def expired(self) -> bool:
        return self.remaining() <= 0.0

    def part(self, share: float = 1.0, less: float = 0.0) -> Deadline:
        """A clock for part of the work: ``share`` of the time left, ending at least ``less``
        seconds before this one (at least 10 ms; without a limit, none)."""
        r = self.remaining()
        if math.isinf(r):
            return Deadline(None)
        return Deadline(max(min(share * r, r - less), 0.01))

    def cap(self, t: float | None = None) -> float | None:
        """min(t, remaining) as a solver time limit (None = no limit)."""
        r = self.remaining()
        if t is None:
            return None if math.isinf(r) else max(r, 0.01)
        return max(min(t, r), 0.01)


@contextlib.contextmanager
def interrupts_end(deadline: Deadline) -> Iterator[None]:
    """While active, Ctrl-C (SIGINT) ends ``deadline`` instead of raising KeyboardInterrupt,
    so a search stops as at its time limit and returns its incumbent with its bound (a
    second Ctrl-C raises as usual). Only the main thread can take signals: elsewhere this
    does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        if deadline.interrupted:
            raise KeyboardInterrupt
        deadline.interrupt()

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
