"""Shared pieces of the CLI: sub-apps, common options, data preparation, JSON output, errors.

Problem modules (``cli/solve_svm.py``, ``cli/fs_linear.py``, ...) register commands on
``solve_app`` / ``relax_app`` and build their output with :func:`result_payload`.
"""

from __future__ import annotations

import contextlib
import json
import math
import sys
from collections.abc import Iterator, Sequence
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
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object to stdout.")]
COpt = Annotated[float, typer.Option("--C", help="Misclassification penalty C > 0.")]

SCALES = ("none", "standard", "minmax01", "minmax11")
DEFAULT_DATA = "breast_cancer_diagnostic"


class CLIError(Exception):
    """A user mistake reported without a traceback."""


def load_cli_data(data: str, label: str = "label", rows: int | None = None):
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


def scale_fit_transform(scale: str, train, *others):
    """Fit ``Scaler(scale)`` on ``train`` rows; transform train and each of ``others``."""
    from dataclasses import replace

    from sparsekm.data import Scaler

    if scale not in SCALES:
        raise CLIError(f"--scale {scale!r}: choose one of {', '.join(SCALES)}")
    sc = Scaler(scale).fit(train.X)
    out = [replace(train, X=sc.transform(train.X))]
    out += [replace(o, X=sc.transform(o.X)) for o in others]
    return out if others else out[0]


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
    return x


def result_payload(*, problem: str, method: str, solver: str | None, ds, params: dict,
                   status: str, objective: float | None, lower_bound: float | None = None,
                   gap: float | None = None, selected: Sequence[int] | None = None,
                   time_s: float = 0.0, **extra: Any) -> dict[str, Any]:
    """The CLI's JSON contract: fixed keys first, problem-specific extras after."""
    sel = None if selected is None else sorted(int(j) for j in selected)
    payload = {
        "problem": problem, "method": method, "solver": solver, "data": ds.name,
        "m": int(ds.m), "n": int(ds.n), "params": params, "status": str(status),
        "objective": objective, "lower_bound": lower_bound, "gap": gap, "selected": sel,
        "selected_names": None if sel is None else [ds.feature_names[j] for j in sel],
        "time_s": round(float(time_s), 6),
    }
    payload.update(extra)
    return _clean(payload)


def emit(payload: dict[str, Any], as_json: bool) -> None:
    """Print the payload as one JSON object, or as an aligned key: value report."""
    if as_json:
        typer.echo(json.dumps(payload))
        return
    width = max(len(k) for k in payload)
    for key, val in payload.items():
        if isinstance(val, float):
            val = f"{val:.10g}"
        elif isinstance(val, list) and len(val) > 12:
            val = f"{val[:12]} ... ({len(val)} items)"
        typer.echo(f"{key:<{width}}  {val}")


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


def echo_err(msg: str) -> None:
    print(msg, file=sys.stderr)
