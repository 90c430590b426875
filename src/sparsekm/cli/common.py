"""Shared pieces of the CLI: sub-apps, common options, data preparation, runners, JSON, errors.

Each problem module (``cli/fs_linear.py``, ...) holds a *runner* ``run(opts, **params) -> dict``
registered with :func:`runner`: it turns the common options (:class:`RunOptions`) and the
problem's parameters into the JSON payload. The typer command is a thin wrapper around it, and
``sparsekm bench`` calls the same runner, so an experiment runs exactly what ``solve`` runs.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sys
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

solve_app = typer.Typer(help="Solve a problem (exact model or algorithm).", no_args_is_help=True)
relax_app = typer.Typer(help="Compute a relaxation bound.", no_args_is_help=True)

# --- common options (use as parameter annotations) --------------------------------------------
DataOpt = Annotated[str, typer.Option("--data", help="Bundled dataset name or a CSV path.")]
LabelOpt = Annotated[str, typer.Option("--label", help="Label column of a CSV file.")]
ScaleOpt = Annotated[str, typer.Option(
    "--scale", help="Preprocessing fitted on training rows: none|standard|minmax01|minmax11.")]
RowsOpt = Annotated[int | None, typer.Option("--rows", help="Use only the first N rows.")]
SeedOpt = Annotated[int, typer.Option("--seed", help="Seed for every random choice.")]
SolverOpt = Annotated[str | None, typer.Option(
    "--solver", help="Solver name (see `sparsekm solvers`); default: configured per class.")]
TimeLimitOpt = Annotated[float | None, typer.Option("--time-limit", help="Seconds.")]
TestSizeOpt = Annotated[float, typer.Option(
    "--test-size", help="Stratified seeded test fraction (0: train on all rows).")]
TrainRowsOpt = Annotated[int | None, typer.Option(
    "--train-rows", help="Train on a stratified seeded sample of N rows (the rest is the test "
    "set); instead of --test-size.")]
ValidationOpt = Annotated[float, typer.Option(
    "--validation-size", help="Hold out this stratified seeded fraction of the training rows "
    "as a validation set: the model is fitted on the rest, and the JSON reports its "
    "validation_accuracy (model selection by `bench report`'s `select`).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object to stdout.")]
COpt = Annotated[float, typer.Option("--C", help="Misclassification penalty C > 0.")]

SCALES = ("none", "standard", "minmax01", "minmax11")
DEFAULT_DATA = "breast_cancer_diagnostic"


class CLIError(Exception):
    """A user mistake reported without a traceback."""


@dataclass(frozen=True)
class RunOptions:
    """The options every ``sparsekm solve/relax PROBLEM`` takes."""

    data: str = DEFAULT_DATA
    label: str = "label"
    scale: str = "standard"
    rows: int | None = None
    seed: int = 0
    solver: str | None = None
    time_limit: float | None = None
    test_size: float = 0.0
    train_rows: int | None = None

    def params(self) -> dict[str, Any]:
        """The options that shape a run (reported under ``params``)."""
        out = {"scale": self.scale, "seed": self.seed, "time_limit": self.time_limit,
               "test_size": self.test_size}
        if self.train_rows is not None:
            out["train_rows"] = self.train_rows
        return out


@dataclass(frozen=True)
class Split:
    """The loaded data set and its scaled training (and test) rows."""

    ds: Any
    train: Any
    test: Any | None


def load_cli_data(data: str, label: str = "label", rows: int | None = None) -> Any:
    """Load a bundled dataset by name, or a CSV path; keep the first ``rows`` rows."""
    from sparsekm.data import load_csv, load_dataset

    if Path(data).suffix in (".csv", ".gz") or Path(data).is_file():
        if not Path(data).is_file():
            raise CLIError(f"--data {data}: no such file")
        ds = load_csv(data, label=label)
    else:
        ds = load_dataset(data)  # an unknown name raises DataError listing the names
    if rows is not None:
        if rows < 2:
            raise CLIError(f"--rows {rows}: need at least 2 rows")
        ds = ds.head(rows)
    return ds


def scale_fit_transform(scale: str, train: Any, *others: Any) -> Any:
    """Fit ``Scaler(scale)`` on ``train`` rows; transform train and each of ``others``."""
    from dataclasses import replace

    from sparsekm.data import Scaler

    if scale not in SCALES:
        raise CLIError(f"--scale {scale!r}: choose one of {', '.join(SCALES)}")
    sc = Scaler(scale).fit(train.X)
    out = [replace(train, X=sc.transform(train.X))]
    out += [replace(o, X=sc.transform(o.X)) for o in others]
    return out if others else out[0]


def prepare(opts: RunOptions) -> Split:
    """Load, split (``test_size`` > 0 or ``train_rows``: stratified, seeded) and scale on the
    training rows."""
    from sparsekm.data import train_test_split

    ds = load_cli_data(opts.data, opts.label, opts.rows)
    if not 0.0 <= opts.test_size < 1.0:
        raise CLIError(f"--test-size {opts.test_size}: use a fraction in [0, 1)")
    test_size: float | int = opts.test_size
    if opts.train_rows is not None:
        if opts.test_size > 0:
            raise CLIError("--train-rows and --test-size both split the rows: give one")
        if not 2 <= opts.train_rows < ds.m:
            raise CLIError(f"--train-rows {opts.train_rows}: use 2 to {ds.m - 1} "
                           f"({ds.name} has {ds.m} rows)")
        test_size = ds.m - opts.train_rows
    if test_size > 0:
        train, test = train_test_split(ds, test_size=test_size, seed=opts.seed)
        train, test = scale_fit_transform(opts.scale, train, test)
        return Split(ds, train, test)
    return Split(ds, scale_fit_transform(opts.scale, ds), None)


def validation_split(train: Any, fraction: float, seed: int) -> tuple[Any, Any]:
    """(fit rows, validation rows): a stratified seeded ``fraction`` of the (scaled) training
    rows held out for model selection (``--validation-size``)."""
    from sparsekm.data import train_test_split

    if not 0.0 < fraction < 1.0:
        raise CLIError(f"--validation-size {fraction}: use a fraction in (0, 1)")
    return train_test_split(train, test_size=fraction, seed=seed)


def accuracy(decision: np.ndarray, y: np.ndarray) -> float:
    """Fraction of rows with sign(decision) == y (decision >= 0 predicts +1)."""
    return float(np.mean(np.where(np.asarray(decision) >= 0, 1.0, -1.0) == y))


# --- runners -----------------------------------------------------------------------------------
Runner = Callable[..., dict[str, Any]]
_RUNNERS: dict[tuple[str, str], Runner] = {}


def runner(action: str, problem: str) -> Callable[[Runner], Runner]:
    """Register ``run(opts: RunOptions, **params) -> payload`` for ``sparsekm ACTION PROBLEM``."""

    def deco(fn: Runner) -> Runner:
        _RUNNERS[(action, problem)] = fn
        return fn

    return deco


def get_runner(action: str, problem: str) -> Runner:
    """The runner of ``sparsekm ACTION PROBLEM`` (imports every CLI module first)."""
    import sparsekm.cli.app  # noqa: F401 - registers the runners

    try:
        return _RUNNERS[(action, problem)]
    except KeyError:
        known = ", ".join(f"{a} {p}" for a, p in sorted(_RUNNERS))
        raise CLIError(f"no command `sparsekm {action} {problem}`; known: {known}") from None


# --- output ----------------------------------------------------------------------------------
def _clean(x: Any) -> Any:
    """Make numpy scalars/arrays and non-finite floats JSON-safe."""
    if isinstance(x, dict):
        return {str(k): _clean(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_clean(v) for v in x]
    if isinstance(x, np.ndarray):
        return _clean(x.tolist())
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if hasattr(x, "value") and x.__class__.__module__.startswith("sparsekm"):
        return x.value  # enums
    if x is None or isinstance(x, str | int | float | bool):
        return x
    return str(x)  # anything else a method put in its extras: readable, never a crash


def result_payload(*, problem: str, method: str, ds: Any, params: dict,
                   **fields: Any) -> dict[str, Any]:
    """The CLI's JSON contract: the fixed keys first, problem-specific extras after.

    ``fields`` holds the outcome (``solver, status, objective, lower_bound, gap, selected,
    time_s``; a missing one is null) and any extras.
    """
    sel = fields.pop("selected", None)
    sel = None if sel is None else sorted(int(j) for j in sel)
    payload = {
        "problem": problem, "method": method, "solver": fields.pop("solver", None),
        "data": ds.name, "m": int(ds.m), "n": int(ds.n), "params": params,
        "status": str(fields.pop("status", "error")), "objective": fields.pop("objective", None),
        "lower_bound": fields.pop("lower_bound", None), "gap": fields.pop("gap", None),
        "selected": sel,
        "selected_names": None if sel is None else [ds.feature_names[j] for j in sel],
        "time_s": round(float(fields.pop("time_s", 0.0)), 6),
    }
    payload.update(fields)
    return _clean(payload)


FIXED_KEYS = ("problem", "method", "solver", "data", "m", "n", "params", "status", "objective",
              "lower_bound", "gap", "selected", "selected_names", "time_s")


def payload_from(res: Any, *, problem: str, method: str, ds: Any, params: dict,
                 **extra: Any) -> dict[str, Any]:
    """:func:`result_payload` filled from a :class:`~sparsekm.solvers.Result`: the fixed keys,
    ``termination``, the runner's ``extra`` and then every key of ``res.extra`` (no hand-written
    list: a new method's extras reach the JSON), a runner's key winning over the method's."""
    extra.setdefault("termination", res.termination.value)
    if res.message and res.status.value in ("error", "bound_only"):
        extra.setdefault("message", res.message)
    for key, val in res.extra.items():
        if key not in FIXED_KEYS:
            extra.setdefault(key, val)
    return result_payload(
        problem=problem, method=method, solver=res.solver or None, ds=ds, params=params,
        status=res.status.value, objective=res.objective, lower_bound=res.bound, gap=res.gap,
        selected=res.selected, time_s=res.time_s, **extra)


def emit(payload: dict[str, Any], as_json: bool) -> None:
    """Print the payload as one JSON object, or as an aligned key: value report.

    A payload with status ``error`` also goes to stderr with its message and exits 1.
    """
    if as_json:
        typer.echo(json.dumps(payload))
    else:
        width = max(len(k) for k in payload)
        for key, val in payload.items():
            if isinstance(val, float):
                val = f"{val:.10g}"
            elif isinstance(val, list) and len(val) > 12:
                val = f"{val[:12]} ... ({len(val)} items)"
            typer.echo(f"{key:<{width}}  {val}")
    if payload.get("status") == "error":
        typer.echo(f"error: the solve failed: {payload.get('message') or 'no message'}",
                   err=True)
        raise typer.Exit(code=1)


@contextlib.contextmanager
def cli_errors() -> Iterator[None]:
    """Turn user mistakes (bad data, unknown/unlicensed solver, bad option) into a one-line
    message on stderr and exit code 2, without a traceback."""
    from sparsekm.data import DataError
    from sparsekm.solvers import SolverError

    try:
        yield
    except (CLIError, DataError, SolverError, ValueError, FileNotFoundError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=2) from None


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


_CAPTURE: ContextVar[list[tuple[Runner, RunOptions, dict[str, Any]]] | None] = \
    ContextVar("sparsekm_capture", default=None)


@contextlib.contextmanager
def capture_runner_calls() -> Iterator[list[tuple[Runner, RunOptions, dict[str, Any]]]]:
    """Inside this block :func:`run_command` records ``(runner, opts, params)`` instead of
    running: how ``sparsekm bench`` turns a command's own options into its runner call, so an
    experiment runs exactly what ``sparsekm solve`` runs (per thread / task)."""
    calls: list[tuple[Runner, RunOptions, dict[str, Any]]] = []
    token = _CAPTURE.set(calls)
    try:
        yield calls
    finally:
        _CAPTURE.reset(token)


def run_command(fn: Runner, opts: RunOptions, json_out: bool, **params: Any) -> None:
    """Run a runner for the CLI: user errors as one line (exit 2), stdout kept clean for JSON,
    the payload printed, a failed solve reported on stderr (exit 1). Under
    :func:`capture_runner_calls` the call is recorded instead."""
    calls = _CAPTURE.get()
    if calls is not None:
        calls.append((fn, opts, params))
        return
    with cli_errors():
        with stdout_to_stderr(json_out):
            payload = fn(opts, **params)
        emit(payload, json_out)
