"""The run layer: what the CLI and the experiment runner share, below both of them.

A run is a :class:`~.command.Command` (``solve fs-linear``) called with values a user gave:
:func:`resolve` checks them against the declarations into a :class:`~.resolve.Call`, and
:func:`execute` runs its runner (data prepared by :mod:`.data`, the method through the Python
front door) into the JSON payload (:mod:`.payload`). The CLI (``sparsekm.cli``) and
``sparsekm bench`` (``sparsekm.experiments``) are two front ends of this layer; neither
imports the other.
"""

from __future__ import annotations

from typing import Any

from sparsekm.data.errors import DataError
from sparsekm.declare import ParamError

from .command import Command, command, commands, register_command
from .errors import UserError
from .options import RunOptions
from .resolve import CLI, GRID, PYTHON, Call, Style, resolve

__all__ = ["CLI", "GRID", "PYTHON", "Call", "Command", "ParamError", "RunOptions", "Style",
           "UserError", "command", "commands", "dry_run", "execute", "register_command",
           "resolve", "run"]


def execute(call: Call) -> dict[str, Any]:
    """Run ``call``'s runner; a bad value found on the way (the problem's own checks, a data
    file) becomes a :class:`UserError` in the user's words."""
    try:
        payload = call.command.runner(call)
    except UserError:
        raise
    except ParamError as exc:   # the cause stays (e.g. a CheckpointError), shown in one line
        raise call.error(exc) from exc
    except DataError as exc:    # the parameters it mentions, in the front door's words
        raise UserError(call.style.words(exc.template)) from exc
    except Exception as exc:    # a solver the user named refused on the way: in their words
        named = _named_solver_error(call, exc)
        if named is None:
            raise
        raise named from exc
    solvers = call.solvers()
    if solvers and isinstance(payload, dict):   # what the method reported first
        payload["solvers"] = {**solvers, **(payload.get("solvers") or {})}
    return payload


def _named_solver_error(call: Call, exc: Exception) -> UserError | None:
    """A solver-layer error about the solver the user named (``--solver cplex``), as one line
    that starts with the flag as they typed it; None for any other error."""
    from sparsekm.solvers import BACKENDS, SolverError, canonical_name

    if not isinstance(exc, SolverError) or call.opts.solver is None:
        return None
    name = canonical_name(call.opts.solver)
    display = BACKENDS[name].display if name in BACKENDS else name
    if display.lower() not in str(exc).lower():
        return None
    p = call.command.params().get("solver")
    shown = call.shown.get("solver") or (call.style.param(p, call.opts.solver) if p else name)
    return UserError(f"{shown}: {exc}")


def run(action: str, problem: str, given: dict[str, Any], options: dict[str, Any] | None = None,
        style: Any = GRID, clock: Any = None) -> dict[str, Any]:
    """``sparsekm ACTION PROBLEM`` with these values, in this process: its JSON payload
    (``clock``: the run's :class:`~sparsekm.deadline.Deadline`, started by the caller;
    default: from now)."""
    return execute(resolve(command(action, problem), given, options or {}, style, clock))


def dry_run(action: str, problem: str, given: dict[str, Any],
            options: dict[str, Any] | None = None) -> None:
    """Validate a run without solving: its runner loads the data (a small stratified subset),
    builds its problem and options and stops before the solve. A mistake raises."""
    from .data import Ready, checking

    call = resolve(command(action, problem), given, options or {}, GRID)
    with checking():
        try:
            execute(call)
        except Ready:
            return
