"""The options every ``sparsekm solve/relax`` command shares beyond the data ones:
``--option/-o NAME=VALUE`` (any keyword option of the chosen method or relaxation) and the CSV
options ``--missing``, ``--positive-class``, ``--drop-columns``; added by one decorator."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Annotated, Any

import typer

__all__ = ["SHARED", "Shared", "shared_options"]

OptionOpt = Annotated[list[str] | None, typer.Option(
    "--option", "-o", help="NAME=VALUE: any keyword option of the chosen method or relaxation "
    "(repeatable; `sparsekm methods PROBLEM --json` lists them). Typed from its signature.")]
MissingOpt = Annotated[str | None, typer.Option(
    "--missing", help="Missing values in the data: error|drop|zero (default: error for a CSV "
    "file, drop for a bundled dataset).")]
PositiveClassOpt = Annotated[str | None, typer.Option(
    "--positive-class", help="CSV label mapped to +1 (needed with more than two classes: "
    "one-vs-rest).")]
DropColumnsOpt = Annotated[str | None, typer.Option(
    "--drop-columns", help="Comma-separated CSV columns to ignore (ids, text).")]


@dataclass(frozen=True)
class Shared:
    """The options :func:`shared_options` adds to a command (raw, as typed)."""

    option: tuple[str, ...] = ()
    missing: str | None = None
    positive_class: str | None = None
    drop_columns: str | None = None


SHARED: ContextVar[Shared | None] = ContextVar("sparsekm_shared", default=None)
SHARED_PARAMS = {"option": OptionOpt, "missing": MissingOpt, "positive_class": PositiveClassOpt,
                 "drop_columns": DropColumnsOpt}


def shared_options(fn: Callable[..., None]) -> Callable[..., None]:
    """Add ``--option/-o NAME=VALUE``, ``--missing``, ``--positive-class`` and
    ``--drop-columns`` to a solve/relax command: its body is unchanged, and
    :func:`~sparsekm.cli.common.run_command` receives them (a new command gets them from this
    one line)."""
    sig = inspect.signature(fn, eval_str=True)  # typer reads the resolved annotations
    extra = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None,
                               annotation=ann) for name, ann in SHARED_PARAMS.items()]
    params = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in sig.parameters.values()]

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        raw = {name: kwargs.pop(name, None) for name in SHARED_PARAMS}
        token = SHARED.set(Shared(tuple(raw["option"] or ()), raw["missing"],
                                  raw["positive_class"], raw["drop_columns"]))
        try:
            fn(*args, **kwargs)
        finally:
            SHARED.reset(token)

    wrapper.__signature__ = sig.replace(parameters=params + extra)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in params + extra}
    return wrapper


