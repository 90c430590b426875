"""The typer commands of ``sparsekm solve / relax / path``, built from the run layer's
declarations (:class:`~sparsekm.run.command.Command`): one flag per declared parameter, its
help and default from the declaration, plus ``--option/-o NAME=VALUE`` and ``--json``.

Every flag takes its value as typed (a string) and the declaration converts and checks it, so
a bad value is one line naming the flag (``error: --C 0: give a finite number >= 1e-08 ...``),
exit 2, stdout empty: never a usage box.
"""

from __future__ import annotations

import inspect
import json
import sys
import warnings
from collections.abc import Callable
from typing import Annotated, Any

import typer
import typer.core

from sparsekm.declare import Param
from sparsekm.run.quiet import quiet_third_party_warnings, stdout_to_stderr

__all__ = ["OneLineErrors", "add_commands", "cli_errors", "emit", "quiet_third_party_warnings",
           "run_command", "stdout_to_stderr"]

OptionItems = Annotated[list[str] | None, typer.Option(
    "--option", "-o", help="NAME=VALUE: any declared option of the chosen method or "
    "relaxation (repeatable; `sparsekm methods PROBLEM --json` lists them).")]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object to stdout.")]


def cli_errors() -> Any:
    """A user mistake as one line on stderr, exit 2 (:func:`sparsekm.run.errors.reported`)."""
    from sparsekm.run.errors import reported

    return reported()


def _one_line_warning(message: Warning | str, category: type, filename: str, lineno: int,
                      file: Any = None, line: str | None = None) -> None:
    """A warning as the CLI shows it: one line ``warning: ...`` on stderr (no source line)."""
    from sparsekm.declare import in_words

    template = getattr(message, "template", None)   # a warning that mentions parameters
    text = in_words(template, "cli") if isinstance(template, str) else str(message)
    print(f"warning: {' '.join(text.split())}", file=sys.stderr, flush=True)


def _click_errors() -> Any:
    """The click exception module typer uses (vendored since typer 0.16, click before)."""
    try:
        from typer._click import exceptions
    except ImportError:  # pragma: no cover - typer < 0.16 uses click itself
        from click import exceptions
    return exceptions


class OneLineErrors(typer.core.TyperGroup):
    """The root group: a usage mistake (an unknown flag, a missing value) is one line on
    stderr and exit 2 like every other user mistake, not a usage box."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        errors = _click_errors()
        standalone = kwargs.pop("standalone_mode", True)
        quiet_third_party_warnings()
        warnings.showwarning = _one_line_warning
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
            code = code if isinstance(code, int) else 0
        except errors.NoArgsIsHelpError as exc:   # a bare group: its help
            typer.echo(exc.ctx.get_help())
            code = 0
        except errors.UsageError as exc:
            where = f"{exc.ctx.command_path}: " if exc.ctx is not None else ""
            typer.echo(f"error: {where}{exc.format_message()} (see --help)", err=True)
            code = 2
        except (typer.Abort, KeyboardInterrupt):
            typer.echo("error: aborted", err=True)
            code = 130
        except typer.Exit as exc:
            code = exc.exit_code
        if standalone:
            sys.exit(code)
        return code


def _shown(val: Any) -> str:
    if isinstance(val, float):
        return f"{val:.10g}"
    if isinstance(val, list) and len(val) > 12:
        return f"{val[:12]} ... ({len(val)} items)"
    return str(val)


TABLE_SKIP = ("w_selected", "selected")  # long per-row lists (names are shown instead)


def _table(rows: list[dict[str, Any]]) -> list[str]:
    """Rows of dicts (a path's entries) as an aligned table of their scalar columns, the
    selected names last."""
    cols = [k for k in rows[0] if k not in TABLE_SKIP
            and all(not isinstance(r.get(k), list | dict) for r in rows)]
    names = "selected_names" if "selected_names" in rows[0] else None
    cells = [[_shown(r.get(c)) if not isinstance(r.get(c), float) else f"{r[c]:.6g}"
              for c in cols] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]
    out = ["  ".join(c.rjust(w) for c, w in zip(cols, widths)) + ("  selected" if names else "")]
    for r, row in zip(rows, cells):
        tail = "  " + ", ".join(map(str, r[names])) if names else ""
        out.append("  ".join(v.rjust(w) for v, w in zip(row, widths)) + tail)
    return out


def emit(payload: dict[str, Any], as_json: bool) -> None:
    """Print the payload as one JSON object, or as an aligned key: value report (a list of
    dicts, such as a path's entries, as a table). A payload with status ``error`` also goes
    to stderr with its message and exits 1."""
    if as_json:
        typer.echo(json.dumps(payload))
    else:
        width = max(len(k) for k in payload)
        for key, val in payload.items():
            if isinstance(val, list) and val and all(isinstance(v, dict) for v in val):
                typer.echo(f"{key}:")
                for line in _table(val):
                    typer.echo(f"  {line}")
                continue
            typer.echo(f"{key:<{width}}  {_shown(val)}")
    if payload.get("status") == "error":
        typer.echo(f"error: the solve failed: {payload.get('message') or 'no message'}",
                   err=True)
        raise typer.Exit(code=1)


def run_command(cmd: Any, given: dict[str, Any], items: list[str], json_out: bool,
                clock: Any = None) -> None:
    """Resolve, run and print one command: user mistakes as one line (exit 2), stdout kept
    for the JSON, a failed solve on stderr (exit 1). ``clock``: the command's
    :class:`~sparsekm.deadline.Deadline` from the process's start (:func:`run_clock`)."""
    from sparsekm.run import execute, resolve

    with cli_errors():
        call = resolve(cmd, given, items, clock=clock)
        with stdout_to_stderr(json_out):
            payload = execute(call)
    emit(payload, json_out)


def _help(p: Param) -> str:
    text = p.help
    choices = p.spec.allowed_choices()     # a registry's names too: the forms of export
    if choices and "|" not in text and "one of" not in text.lower():
        text += f" One of: {', '.join(choices)}."
    if p.default is not None and p.base is not bool:
        text += f" (default {p.default})"
    return text


def _metavar(p: Param) -> str:
    if p.spec.allowed_choices() is not None:
        return "CHOICE"
    return {int: "INT", float: "NUM"}.get(p.base, "LIST" if "list" in str(p.base) else "TEXT")


def _option(p: Param) -> tuple[Any, Any]:
    """(annotation, default) of the typer parameter for ``p``: its text as typed, or a flag."""
    if p.base is bool:
        flags = p.spec.flag or p.flag
        return Annotated[bool | None, typer.Option(flags, help=_help(p),
                                                   show_default=False)], None
    return Annotated[str | None, typer.Option(p.flag, help=_help(p), metavar=_metavar(p),
                                              show_default=False)], None


def build(cmd: Any) -> Callable[..., None]:
    """The typer function of ``cmd``: its signature is the declared parameters."""

    def command(**kwargs: Any) -> None:
        clock = run_clock(kwargs.pop("ctx", None))
        json_out = bool(kwargs.pop("json_out", False))
        items = list(kwargs.pop("option", None) or [])
        given = {k: v for k, v in kwargs.items() if v is not None}
        run_command(cmd, given, items, json_out, clock)

    params = []
    for name, p in cmd.params().items():
        ann, default = _option(p)
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                        annotation=ann))
    if cmd.kind is not None:
        params.append(inspect.Parameter("option", inspect.Parameter.KEYWORD_ONLY, default=None,
                                        annotation=OptionItems))
    return signed(command, params, cmd)


def run_clock(ctx: Any) -> Any:
    """The command's clock: the :class:`~sparsekm.deadline.Deadline` the entry point started
    with the process (click's context object, :func:`sparsekm.cli.app.main`); None when the
    app runs without it (then the clock starts at the command)."""
    from sparsekm.deadline import Deadline

    obj = None if ctx is None else ctx.find_root().obj
    return obj if isinstance(obj, Deadline) else None


def signed(command: Callable[..., None], params: list[inspect.Parameter], cmd: Any
           ) -> Callable[..., None]:
    """``command`` with the signature Typer reads: ``params`` plus ``--json`` and the click
    context (the run's clock), and the command's help and name."""
    params = [*params, inspect.Parameter("json_out", inspect.Parameter.KEYWORD_ONLY,
                                         default=False, annotation=JsonFlag),
              inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, default=None,
                                annotation=typer.Context)]
    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params}
    command.__doc__ = cmd.help
    command.__name__ = f"{cmd.action}_{cmd.problem.replace('-', '_')}"
    return command


def add_commands(groups: dict[str, typer.Typer]) -> None:
    """Add every command of the run layer to its group (``solve``, ``relax``, ``path``)."""
    from sparsekm.run import commands

    for (action, problem), cmd in commands().items():
        groups[action].command(problem, help=cmd.help)(build(cmd))
