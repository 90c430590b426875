"""``sparsekm export PROBLEM ...`` and ``sparsekm check PROBLEM SOLUTION ...``: command groups
built from the run layer's declarations (:mod:`sparsekm.run.export`, :mod:`sparsekm.run.check`)
like ``solve`` and ``relax`` (:mod:`.build`), found by the CLI through the
``sparsekm.commands`` entry point.

``check`` takes the solution file as its positional argument (its declared ``--solution``);
it exits 0 on a feasible point, 1 on an infeasible one (the report is printed first), 2 on a
user mistake (a malformed file among them), each as one line on stderr.
"""

from __future__ import annotations

import inspect
from typing import Annotated, Any

import typer

from .build import _option, cli_errors, emit, run_clock, signed, stdout_to_stderr

__all__ = ["check_app", "export_app"]

POSITIONAL = ("solution",)


def _command(cmd: Any) -> Any:
    """The typer function of ``cmd``: one option per declared parameter (``solution`` an
    argument), ``--json``; infeasible -> exit 1 after the report."""

    def command(**kwargs: Any) -> None:
        from sparsekm.run import execute, resolve

        clock = run_clock(kwargs.pop("ctx", None))
        json_out = bool(kwargs.pop("json_out", False))
        given = {k: v for k, v in kwargs.items() if v is not None}
        with cli_errors():
            call = resolve(cmd, given, [], clock=clock)
            with stdout_to_stderr(json_out):
                payload = execute(call)
        emit(payload, json_out)
        if payload.get("status") == "infeasible":
            typer.echo(f"error: the point is infeasible: largest violation "
                       f"{payload.get('max_violation'):.3g} ({payload.get('worst')}) > tol "
                       f"{payload.get('tol'):g}", err=True)
            raise typer.Exit(code=1)

    params = []
    for name, p in cmd.params().items():
        if name in POSITIONAL:
            ann = Annotated[str, typer.Argument(help=p.help, metavar=name.upper(),
                                                show_default=False)]
            params.insert(0, inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                               annotation=ann))
            continue
        ann, default = _option(p)
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                        annotation=ann))
    return signed(command, params, cmd)


def _group(help_text: str, commands: dict[str, Any]) -> typer.Typer:
    group = typer.Typer(help=help_text, no_args_is_help=True)
    for problem, cmd in commands.items():
        group.command(problem, help=cmd.help)(_command(cmd))
    return group


def _export() -> typer.Typer:
    from sparsekm.run.export import export_commands

    return _group("Write a formulation or relaxation as a standard instance file (LP, MPS, "
                  "NL, CBF) with a JSON sidecar.", export_commands())


def _check() -> typer.Typer:
    from sparsekm.run.check import check_commands

    return _group("Check a solution computed elsewhere: feasibility, objective, the exact "
                  "value of its support.", check_commands())


export_app = _export()
check_app = _check()
