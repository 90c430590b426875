"""``sparsekm bench run|status|report|plot CONFIG.toml``: experiment grids
(docs/topics/experiments.md).

This command group belongs to the experiments, not to the CLI package: the ``sparsekm``
command finds it through the ``sparsekm.commands`` entry point (``pyproject.toml``), so
neither front end imports the other.

Runs call the same runners as ``sparsekm solve/relax`` (:mod:`sparsekm.experiments`), on a Dask
LocalCluster (``--workers N``, default one per core), on an existing cluster (``--scheduler
tcp://HOST:PORT`` or a scheduler file) or sequentially (``--workers 0``). Every finished run is
stored at once; ``run`` again resumes. Reports and plots read the store, never re-run.

Every path option is checked before any work starts: a file where a folder is needed, a
folder where a file is needed or a missing parent folder is one line naming the flag as
typed (``-o``, ``--output``, ``--out``) and the fix, exit 2, nothing on stdout.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import typer

from sparsekm.run.errors import reported as cli_errors

JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object to stdout.")]
app = typer.Typer(name="bench", no_args_is_help=True,
                            help="Experiment grids from a TOML config: run on Dask, resume, "
                                 "report, plot.")

ConfigArg = Annotated[Path, typer.Argument(help="Experiment config (TOML).", show_default=False)]


class PathOptionError(ValueError):
    """A path option that cannot be used as given (one line naming the flag; exit 2)."""


def _load(config: Path):  # noqa: ANN202 - ExperimentConfig, imported lazily
    from .config import check_runners, load_config

    if config.is_dir():
        raise PathOptionError(f"{config}: is a folder; give the experiment's TOML config file")
    return check_runners(load_config(config))


def _nearest(path: Path) -> Path | None:
    """The nearest of ``path``'s parents that exists (None: none does)."""
    return next((p for p in path.parents if p.exists()), None)


def _check_parent(shown: str, path: Path) -> None:
    """The folder that ``path`` goes in must exist, be a folder and be writable."""
    parent = path.parent
    near = _nearest(path)
    if near is not None and not near.is_dir():
        raise PathOptionError(f"{shown}: {near} is a file, not a folder; give a path in a "
                              "folder")
    if not parent.is_dir():
        raise PathOptionError(f"{shown}: folder {parent} does not exist; create it first "
                              f"(mkdir -p {parent}) or give a path in an existing folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise PathOptionError(f"{shown}: folder {parent} is not writable; give a path in a "
                              "folder you can write to")


def check_output_file(flag: str, path: Path) -> None:
    """``flag PATH`` names a file to write: not a folder, in an existing writable folder."""
    shown = f"{flag} {path}"
    if path.is_dir():
        raise PathOptionError(f"{shown}: is a folder; give a file name (e.g. {flag} "
                              f"{path / 'report.md'})")
    _check_parent(shown, path)
    if path.exists() and not os.access(path, os.W_OK):
        raise PathOptionError(f"{shown}: the file is not writable; give another file name")


def check_output_folder(flag: str, path: Path) -> None:
    """``flag PATH`` names a folder (created if missing; its parent must exist)."""
    shown = f"{flag} {path}"
    if path.exists() and not path.is_dir():
        raise PathOptionError(f"{shown}: is a file, not a folder; give a folder for the "
                              "figures (it is created if missing)")
    if path.is_dir():
        if not os.access(path, os.W_OK | os.X_OK):
            raise PathOptionError(f"{shown}: the folder is not writable; give a folder you "
                                  "can write to")
        return
    _check_parent(shown, path)


@app.command("run")
def run_cmd(
    config: ConfigArg,
    workers: Annotated[int | None, typer.Option(
        "--workers", help="LocalCluster workers (default: one per core; 0: sequential, in "
                          "this process).")] = None,
    scheduler: Annotated[str | None, typer.Option(
        "--scheduler", help="An existing Dask cluster: tcp://HOST:PORT or a scheduler file.")]
    = None,
    retry_failed: Annotated[bool, typer.Option(
        "--retry-failed", help="Run again the runs stored as error / timeout / crashed.")]
    = False,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
    json_out: JsonOpt = False,
) -> None:
    """Run every configuration of the grid that is not stored yet."""
    from .execute import run_experiment

    with cli_errors():
        if workers is not None and workers < 0:
            raise ValueError(f"--workers {workers}: use 0 (sequential) or a positive count")
        cfg = _load(config)
        out = run_experiment(cfg, workers=workers, scheduler=scheduler,
                             retry_failed=retry_failed, progress=not quiet)
    if json_out:
        typer.echo(json.dumps(out))
    else:
        typer.echo(f"{cfg.name}: ran {out['ran']} in {out['seconds']:.1f} s; total "
                   f"{out['total']}, done {out['done']}, failed {out['failed']}, pending "
                   f"{out['pending']} (store {cfg.store_path})")


@app.command("status")
def status_cmd(config: ConfigArg, json_out: JsonOpt = False) -> None:
    """Counts of the grid: total / done / failed / pending."""
    from .execute import status

    with cli_errors():
        cfg = _load(config)
        out = status(cfg)
    if json_out:
        typer.echo(json.dumps(out))
    else:
        typer.echo(" ".join(f"{k} {v}" for k, v in out.items()) + f"  ({cfg.name})")


@app.command("report")
def report_cmd(
    config: ConfigArg,
    fmt: Annotated[str, typer.Option("--format", help="markdown|latex|csv")] = "markdown",
    output: Annotated[Path | None, typer.Option(
        "--output", help="Write to this file instead of stdout (its folder must exist).")]
    = None,
    output_short: Annotated[Path | None, typer.Option(
        "-o", help="Short for --output.")] = None,
) -> None:
    """Tables from the store, never re-running: markdown / LaTeX like the papers', CSV per run."""
    from .tables import report

    # -o and --output are two options so that a message names the one typed
    with cli_errors():
        if output is not None and output_short is not None:
            raise PathOptionError(f"-o {output_short} and --output {output}: give one")
        flag, target = ("-o", output_short) if output_short is not None else \
            ("--output", output)
        if target is not None:
            check_output_file(flag, target)
        text = report(_load(config), fmt)
        if target is not None:
            try:
                target.write_text(text)
            except OSError as exc:
                raise PathOptionError(f"{flag} {target}: cannot write it "
                                      f"({exc.strerror or exc}); give another file") from None
    if target is None:
        typer.echo(text, nl=not text.endswith("\n"))


@app.command("plot")
def plot_cmd(
    config: ConfigArg,
    out: Annotated[Path | None, typer.Option(
        "--out", help="Folder for the figures, created in an existing folder if missing "
                      "(default: <store>_plots next to the store).")]
    = None,
    kinds: Annotated[str | None, typer.Option(
        "--kinds", help="Comma list of profile,box,objective,gap,accuracy (default: the "
        "config's [report] plots, else all; a kind without data for its chart is skipped).")
    ] = None,
) -> None:
    """Figures from the store (PNG + SVG): profiles, box plots, gap vs time, accuracy vs B."""
    from .plots import plot

    with cli_errors():
        if out is not None:
            check_output_folder("--out", out)
        files = plot(_load(config), out,
                     kinds=None if kinds is None else [k.strip() for k in kinds.split(",")])
    for f in files:
        typer.echo(str(f))
