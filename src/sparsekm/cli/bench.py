"""``sparsekm bench run|status|report|plot CONFIG.toml``: experiment grids (docs/experiments.md).

Runs call the same runners as ``sparsekm solve/relax`` (:mod:`sparsekm.experiments`), on a Dask
LocalCluster (``--workers N``, default one per core), on an existing cluster (``--scheduler
tcp://HOST:PORT`` or a scheduler file) or sequentially (``--workers 0``). Every finished run is
stored at once; ``run`` again resumes. Reports and plots read the store, never re-run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from .common import JsonOpt, cli_errors

COMMAND_GROUP = typer.Typer(name="bench", no_args_is_help=True,
                            help="Experiment grids from a TOML config: run on Dask, resume, "
                                 "report, plot.")

ConfigArg = Annotated[Path, typer.Argument(help="Experiment config (TOML).", show_default=False)]


def _load(config: Path):  # noqa: ANN202 - ExperimentConfig, imported lazily
    from sparsekm.experiments.config import check_runners, load_config

    return check_runners(load_config(config))


@COMMAND_GROUP.command("run")
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
    from sparsekm.experiments.execute import run_experiment

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


@COMMAND_GROUP.command("status")
def status_cmd(config: ConfigArg, json_out: JsonOpt = False) -> None:
    """Counts of the grid: total / done / failed / pending."""
    from sparsekm.experiments.execute import status

    with cli_errors():
        cfg = _load(config)
        out = status(cfg)
    if json_out:
        typer.echo(json.dumps(out))
    else:
        typer.echo(" ".join(f"{k} {v}" for k, v in out.items()) + f"  ({cfg.name})")


@COMMAND_GROUP.command("report")
def report_cmd(
    config: ConfigArg,
    fmt: Annotated[str, typer.Option("--format", help="markdown|latex|csv")] = "markdown",
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="Write to this file instead of stdout.")] = None,
) -> None:
    """Tables from the store, never re-running: markdown / LaTeX like the papers', CSV per run."""
    from sparsekm.experiments.tables import report

    with cli_errors():
        text = report(_load(config), fmt)
        if output is not None:
            output.write_text(text)
    if output is None:
        typer.echo(text, nl=not text.endswith("\n"))


@COMMAND_GROUP.command("plot")
def plot_cmd(
    config: ConfigArg,
    out: Annotated[Path | None, typer.Option(
        "--out", help="Folder for the figures (default: <store>_plots next to the store).")]
    = None,
    kinds: Annotated[str | None, typer.Option(
        "--kinds", help="Comma list of profile,box,objective,gap,accuracy (default: the "
        "config's [report] plots, else all; a kind without data for its chart is skipped).")
    ] = None,
) -> None:
    """Figures from the store (PNG + SVG): profiles, box plots, gap vs time, accuracy vs B."""
    from sparsekm.experiments.plots import plot

    with cli_errors():
        files = plot(_load(config), out,
                     kinds=None if kinds is None else [k.strip() for k in kinds.split(",")])
    for f in files:
        typer.echo(str(f))
