"""A call that a deadline can stop: run in a forked child process, killed at the limit.

Some compiled solvers read their clock only between iterations, and some spend long stretches
where no clock is read at all: SCS factorises its KKT matrix before its first iteration (13 s
of a 5 s limit on the PSD relaxation (14) of paper B, ionosphere), and one interior-point
iteration of Clarabel on SCoP (11) of paper D with a 121 x 121 PSD block took seconds (20.6 s
under a 5 s limit, sonar). :func:`call_until` runs such a call in a child forked from this
process (its memory shared copy-on-write, nothing pickled on the way in), waits until the
time is up and kills the child if it has not answered; the answer comes back pickled.

Linux and macOS only (``fork``); elsewhere the call runs in this process, unstoppable.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Callable
from typing import Any

__all__ = ["Stopped", "call_until"]


class Stopped(RuntimeError):
    """The call did not finish within its time and its process was killed."""


def _child(conn: Any, fn: Callable[..., Any], args: tuple) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # Ctrl-C is the parent's to handle
    try:
        out: tuple[bool, Any] = (True, fn(*args))
    except BaseException as exc:  # noqa: BLE001 - sent back and raised in the parent
        out = (False, exc)
    try:
        conn.send(out)
    except Exception as exc:  # noqa: BLE001 - an answer that does not pickle
        conn.send((False, RuntimeError(f"the answer could not be sent back: {exc}")))
    finally:
        conn.close()
        os._exit(0)        # no atexit handlers of the parent (Dask, temporary folders)


def call_until(fn: Callable[..., Any], args: tuple, seconds: float) -> Any:
    """``fn(*args)``, run in a forked child for at most ``seconds``; :class:`Stopped` when the
    child had to be killed. An exception raised by ``fn`` is raised here."""
    try:
        ctx = multiprocessing.get_context("fork")
    except ValueError:      # no fork on this platform: the call cannot be stopped
        return fn(*args)
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(send, fn, args), daemon=True)
    proc.start()
    send.close()
    try:
        if not recv.poll(max(seconds, 0.0)):
            raise Stopped(f"stopped after {seconds:.2f} s")
        try:
            ok, value = recv.recv()
        except EOFError:
            raise RuntimeError(f"the child process died (exit code {proc.exitcode})") from None
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        recv.close()
    if not ok:
        raise value
    return value
