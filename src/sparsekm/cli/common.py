"""Shared pieces of the CLI: sub-apps, common options, data preparation, runners, JSON, errors.

Each problem module (``cli/fs_linear.py``, ...) holds a *runner* ``run(opts, **params) -> dict``
registered with :func:`runner`: it turns the common options (:class:`RunOptions`) and the
problem's parameters into the JSON payload. The typer command is a thin wrapper around it, and
``sparsekm bench`` calls the same runner, so an experiment runs exactly what ``solve`` runs.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from .payload import FIXED_KEYS as FIXED_KEYS  # re-exported: problem modules use c.NAME
from .payload import emit as emit
from .payload import payload_from as payload_from
from .payload import result_payload as result_payload
from .shared import SHARED, Shared
from .shared import shared_options as shared_options

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


def quiet_third_party_warnings() -> None:
    """Silence third-party warnings that say nothing about the user's run: Xpress's
    DeprecationWarning raised inside Pyomo's plugin on every Pyomo-backed command, and the
    RuntimeWarnings of CVXPY's internal arithmetic (a run's status and message say how it
    ended). Called by the CLI and by each bench run; library users keep their own filters."""
    import warnings

    # xpress.DeprecationWarning is Xpress's own class (not the builtin): match the text
    warnings.filterwarnings("ignore", message=r"Deprecated in Xpress")
    warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"cvxpy(\.|$)")


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
    missing: str | None = None
    positive_class: str | None = None
    drop_columns: str | None = None

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


def load_cli_data(data: str, label: str = "label", rows: int | None = None, *,
                  missing: str | None = None, positive_class: str | None = None,
                  drop_columns: str | None = None) -> Any:
    """Load a bundled dataset by name, or a CSV path; keep the first ``rows`` rows."""
    from sparsekm.data import load_csv, load_dataset

    if Path(data).suffix in (".csv", ".gz") or Path(data).is_file():
        if not Path(data).is_file():
            raise CLIError(f"--data {data}: no such file")
        drop = [c.strip() for c in (drop_columns or "").split(",") if c.strip()]
        ds = load_csv(data, label=label, positive_class=positive_class,
                      missing=missing or "error", drop_columns=drop)
    else:
        for flag, given in (("--label", None if label == "label" else label),
                            ("--positive-class", positive_class),
                            ("--drop-columns", drop_columns)):
            if given is not None:
                raise CLIError(f"{flag} {given}: a bundled dataset has its own label column "
                               f"and classes; {flag} applies to a CSV file (--data FILE.csv)")
        ds = load_dataset(data, missing=missing or "drop")  # unknown name: DataError lists them
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

    ds = load_cli_data(opts.data, opts.label, opts.rows, missing=opts.missing,
                       positive_class=opts.positive_class, drop_columns=opts.drop_columns)
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
    if _VALIDATING.get():  # a dry run (check_run): the same checks on a few rows
        full_m, ds = ds.m, _small_stratified(ds)
        if test_size >= 1:
            test_size = min(max(test_size / full_m, 0.1), 0.5)
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
_CHECKS: set[tuple[str, str]] = set()


def runner(action: str, problem: str, *, checks: bool = False) -> Callable[[Runner], Runner]:
    """Register ``run(opts: RunOptions, **params) -> payload`` for ``sparsekm ACTION PROBLEM``.

    ``checks=True``: the runner calls :func:`ready` once its inputs are validated (data loaded,
    problem built, options bound) and before the solve, so :func:`check_run` can validate a
    grid point before the first run of ``sparsekm bench``.
    """

    def deco(fn: Runner) -> Runner:
        _RUNNERS[(action, problem)] = fn
        if checks:
            _CHECKS.add((action, problem))
        return fn

    return deco


def runner_key(fn: Runner) -> tuple[str, str] | None:
    """``(action, problem)`` of a registered runner."""
    return next((k for k, f in _RUNNERS.items() if f is fn), None)


# --- checking a run before it runs -------------------------------------------------------------
_VALIDATING: ContextVar[bool] = ContextVar("sparsekm_validating", default=False)
CHECK_ROWS_PER_CLASS = 15


class _Ready(Exception):
    """Raised by :func:`ready` while :func:`check_run` validates: inputs are valid."""


def ready() -> None:
    """Called by a runner once its inputs are validated, just before it solves: under
    :func:`check_run` this ends the (dry) run there."""
    if _VALIDATING.get():
        raise _Ready


def _small_stratified(ds: Any) -> Any:
    """The first CHECK_ROWS_PER_CLASS rows of each class (what a dry run validates on)."""
    keep = np.concatenate([np.flatnonzero(ds.y == c)[:CHECK_ROWS_PER_CLASS]
                           for c in (-1.0, 1.0)])
    return ds.subset_rows(np.sort(keep)) if keep.size < ds.m else ds


def check_run(action: str, problem: str, opts: dict[str, Any], params: dict[str, Any]) -> None:
    """Validate ``sparsekm ACTION PROBLEM`` with these runner arguments without solving: the
    runner loads the data (a small stratified subset), builds its problem and options and
    stops at :func:`ready`. A user mistake raises (CLIError, DataError, ValueError, ...);
    runners registered without ``checks`` are not run."""
    if (action, problem) not in _CHECKS:
        return
    fn = get_runner(action, problem)
    token = _VALIDATING.set(True)
    try:
        with stdout_to_stderr():
            fn(RunOptions(**opts), **params)
    except _Ready:
        return
    finally:
        _VALIDATING.reset(token)


def get_runner(action: str, problem: str) -> Runner:
    """The runner of ``sparsekm ACTION PROBLEM`` (imports every CLI module first)."""
    from .discovery import command_modules

    command_modules()  # each problem module registers its runners
    try:
        return _RUNNERS[(action, problem)]
    except KeyError:
        known = ", ".join(f"{a} {p}" for a, p in sorted(_RUNNERS))
        raise CLIError(f"no command `sparsekm {action} {problem}`; known: {known}") from None


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


SOLVER_PARAMS = ("relax_solver", "misocp_solver", "qp_solver")


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def resolve_call(fn: Runner, opts: RunOptions, option: tuple[str, ...],
                 params: dict[str, Any]) -> dict[str, Any]:
    """The runner's params with ``--option`` values parsed against the chosen registered
    method (solve) or relaxation (relax) into ``params["options"]``; every solver name
    checked. Raises CLIError naming the flag and the fix."""
    from sparsekm import registry
    from sparsekm.options import parse_options
    from sparsekm.solvers import SolverError, check_solver

    for name, value in [("solver", opts.solver)] + [(k, params.get(k)) for k in SOLVER_PARAMS]:
        if value is not None:
            try:
                check_solver(value)
            except SolverError as exc:
                raise CLIError(f"{_flag(name)} {value}: {exc}") from None
    key = runner_key(fn)
    kind = "relaxation" if key is not None and key[0] == "relax" else "method"
    chosen = params.get(kind)
    if kind == "relaxation" and chosen is not None and registry.names(key[1], kind):
        check_capable(registry.get(key[1], kind, chosen), opts.solver)
    if not option:
        return params
    if key is None or chosen is None or not registry.names(key[1], kind):
        cmd = f"`sparsekm {key[0]} {key[1]}`" if key else "this command"
        raise CLIError(f"--option: {cmd} has no registered {kind} to take options")
    entry = registry.get(key[1], kind, chosen)
    return {**params, "options": parse_options(entry, option)}


def check_capable(entry: Any, solver: str | None) -> None:
    """CLIError when ``--solver`` cannot solve ``entry``'s problem class (a relaxation's
    model), naming the usable solvers that can."""
    from sparsekm.solvers import ProblemClass, canonical_name, usable_solvers

    if solver is None or entry.problem_class not in ProblemClass.__members__:
        return
    able = usable_solvers(ProblemClass(entry.problem_class))
    if canonical_name(solver) not in able:
        raise CLIError(f"--solver {solver}: {entry.kind} {entry.name} of {entry.problem} is "
                       f"a {entry.problem_class} model; solvers that can take it: "
                       f"{', '.join(able) or 'none installed'}")


WorkersOpt = Annotated[int, typer.Option(
    "--workers", help="Tree-search methods (bnb, exact): worker processes (1: this process).")]
CheckpointOpt = Annotated[str | None, typer.Option(
    "--checkpoint", help="Tree-search methods: a resumable state file; the same command with "
    "the same file resumes the search.")]


def tree_options(entry: Any, workers: int, checkpoint: str | None) -> dict[str, Any]:
    """``--workers`` / ``--checkpoint`` for a tree-search method; an error naming the methods
    that take them otherwise."""
    if not (isinstance(workers, int) and workers >= 1):
        raise CLIError(f"--workers {workers}: use 1 (this process) or more worker processes")
    given: dict[str, Any] = {}
    if workers != 1:
        given["workers"] = workers
    if checkpoint:
        given["checkpoint"] = checkpoint
    for key in given:
        if key not in entry.options:
            raise CLIError(f"--{key} applies to the tree-search methods (fs-linear / fs-kernel "
                           f"bnb, smkl exact), not to --method {entry.name}")
    return given


def method_options(entry: Any, given: dict[str, Any], options: dict[str, Any] | None
                   ) -> dict[str, Any]:
    """Flat options for ``entry.run``: the runner's own flag values that ``entry`` declares,
    then the ``--option`` values (which win)."""
    own = entry.options
    return {**{k: v for k, v in given.items() if k in own}, **(options or {})}


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
    from dataclasses import replace

    shared = SHARED.get() or Shared()
    opts = replace(opts, missing=shared.missing, positive_class=shared.positive_class,
                   drop_columns=shared.drop_columns)
    calls = _CAPTURE.get()
    if calls is not None:  # bench: the command's own checks raise here, before any run
        calls.append((fn, opts, resolve_call(fn, opts, shared.option, params)))
        return
    with cli_errors():
        params = resolve_call(fn, opts, shared.option, params)
        with stdout_to_stderr(json_out):
            payload = fn(opts, **params)
        emit(payload, json_out)
