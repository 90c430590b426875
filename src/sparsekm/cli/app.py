"""The ``sparsekm`` command: solve, relax, path (built from the run layer's declarations),
bench, solvers, datasets, methods, demo."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from .build import JsonFlag as JsonOpt
from .build import OneLineErrors, add_commands, cli_errors

app = typer.Typer(help="sparsekm: sparse, interpretable kernel machines by mathematical "
                       "programming.", no_args_is_help=True, add_completion=False,
                  cls=OneLineErrors)
GROUPS = {
    "solve": typer.Typer(help="Solve a problem (exact model or algorithm).",
                         no_args_is_help=True),
    "relax": typer.Typer(help="Compute a relaxation bound.", no_args_is_help=True),
    "path": typer.Typer(help="A warm-started path of a problem over its budget.",
                        no_args_is_help=True),
}


def _print_version(value: bool) -> None:
    """``--version``: the installed package's version (its metadata), then exit."""
    if value:
        from importlib.metadata import version

        typer.echo(f"sparsekm {version('sparsekm')}")
        raise typer.Exit()


@app.callback()
def _options(
    show_version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True,
        help="Print the installed version and exit.")] = False,
) -> None:
    """sparsekm: sparse, interpretable kernel machines by mathematical programming."""


for _name, _group in GROUPS.items():
    app.add_typer(_group, name=_name)
add_commands(GROUPS)


def _plugin_groups() -> None:
    """Command groups other packages declare under the ``sparsekm.commands`` entry point
    (``sparsekm bench`` is the experiments' own): the CLI imports none of them by name."""
    from importlib.metadata import entry_points

    for ep in sorted(entry_points(group="sparsekm.commands"), key=lambda e: e.name):
        try:
            group = ep.load()
        except (ImportError, AttributeError) as exc:  # an install older or newer than its code
            typer.echo(f"warning: command group '{ep.name}' ({ep.value}) cannot be loaded: "
                       f"{exc}; reinstall sparsekm (pip install -e .)", err=True)
            continue
        app.add_typer(group, name=ep.name)


_plugin_groups()


@app.command("solvers")
def solvers_cmd(json_out: JsonOpt = False) -> None:
    """Registered solvers: installed, licensed, version, problem classes."""
    from sparsekm.solvers import solver_table

    rows = solver_table()
    if json_out:
        typer.echo(json.dumps(rows))
        return
    typer.echo(f"{'solver':<9} {'installed':<9} {'licensed':<8} {'version':<11} classes")
    for r in rows:
        typer.echo(f"{r['name']:<9} {str(r['installed']):<9} {str(r['licensed']):<8} "
                   f"{r['version']:<11} {','.join(r['classes'])}"
                   + (f"\n{'':<9} note: {r['note']}" if r["note"] else ""))


@app.command("methods")
def methods_cmd(
    problem: Annotated[str | None, typer.Argument(help="A problem (default: all).")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Registered formulations, relaxations, cuts and methods, with their paper references
    (a Markdown table; --json adds each one's options)."""
    from sparsekm import registry

    with cli_errors():
        if problem is not None:
            problem = registry.problem(problem).name
        rows = registry.entries(problem)
        if json_out:
            typer.echo(json.dumps([{"problem": e.problem, "kind": e.kind, "name": e.name,
                                    "reference": e.citation, "class": e.problem_class,
                                    "summary": e.summary,
                                    "options": {k: repr(v) for k, v in e.options.items()}}
                                   for e in rows]))
            return
        typer.echo(registry.markdown(problem))


@app.command("datasets")
def datasets_cmd(json_out: JsonOpt = False) -> None:
    """Bundled datasets with their size, class balance and citation."""
    from sparsekm.data import dataset_info, list_datasets

    rows = [dataset_info(n) for n in list_datasets()]
    if json_out:
        typer.echo(json.dumps(rows, default=str))
        return
    typer.echo(f"{'name':<26} {'m':>6} {'n':>5} {'+1 %':>6}  citation")
    for r in rows:
        typer.echo(f"{r['name']:<26} {r['m']:>6} {r['n']:>5} "
                   f"{100 * r['positive_fraction']:>6.1f}  {r['citation'][:60]}")


@app.command("demo")
def demo_cmd(
    data: Annotated[str, typer.Option("--data")] = "breast_cancer_diagnostic",
    quick: Annotated[bool, typer.Option("--quick", help="Smaller runs.")] = False,
) -> None:
    """A short, readable tour on a bundled dataset."""
    from .demo import run_demo

    with cli_errors():
        for line in run_demo(data, quick=quick):
            typer.echo(line)


def main() -> None:
    """Console-script entry point: the command's clock starts with the process (a
    :class:`~sparsekm.deadline.Deadline` from the import of :mod:`sparsekm`, handed to the
    command as click's context object), and the process ends as soon as the command has
    (:func:`_exit_now`)."""
    from sparsekm import IMPORTED_AT
    from sparsekm.deadline import Deadline

    try:
        app(obj=Deadline(None, since=IMPORTED_AT))   # --time-limit covers the start-up
        code: object = 0
    except SystemExit as exc:
        code = exc.code
    _exit_now(code)


def _exit_now(code: object) -> None:
    """Exit with ``code`` after the exit handlers, without the interpreter's module teardown:
    with numba, cvxpy and Pyomo loaded the teardown took 1.3 s after the JSON was printed
    (madelon, 2-core machine under load), counted by a user who times a ``--time-limit``
    run. Streams are flushed and ``atexit`` handlers run (solver licences, logging, dask);
    while another thread or a child process is alive, the normal exit waits for it."""
    import atexit
    import multiprocessing
    import os
    import sys
    import threading

    if isinstance(code, str):
        print(code, file=sys.stderr)
        code = 1
    status = 0 if code is None else int(code)  # type: ignore[call-overload]
    if threading.active_count() > 1 or multiprocessing.active_children():
        sys.exit(status)
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


if __name__ == "__main__":
    main()
