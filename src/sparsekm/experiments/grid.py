"""A config's grids expanded into runs, each keyed by a hash of its full configuration.

A run is the call of a command of the run layer (:func:`sparsekm.run.resolve`, the same as
``sparsekm solve PROBLEM``): its key hashes everything that shapes the result -- the command,
the data (a bundled name, or a file's name and SHA-256), every run option (scale, rows, seed,
solver, time limit, test size, label) and every parameter and method option with its declared
default filled in -- and the package version. The experiment's name, the store, the worker
count and the kill deadline are not part of it: the same run in two configs is one run.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .child import file_sha256
from .config import ConfigError, ExperimentConfig, check_runners

__all__ = ["RunSpec", "check_specs", "expand", "file_sha256", "run_key"]


def _version() -> str:
    from sparsekm import __version__

    return __version__


@dataclass(frozen=True)
class RunSpec:
    """One run of a grid: what to call and with what (plain data: it travels to workers).

    ``given`` are the values the grid gives the command (``data`` resolved to a bundled name
    or an absolute path) and ``options`` its method options; the child process resolves them
    again (:func:`sparsekm.run.resolve`). ``opts`` / ``params`` are the resolved call's run
    options and parameters (every default filled in), ``labels`` the grid keys as the config
    wrote them (report columns).
    """

    key: str
    experiment: str
    action: str
    problem: str
    given: dict[str, Any]
    options: dict[str, Any]
    opts: dict[str, Any]
    params: dict[str, Any]
    labels: dict[str, Any]
    data_sha256: str | None = None
    hard_limit: float | None = None
    threads: int = 1
    imports: tuple[str, ...] = ()
    version: str = field(default_factory=_version)

    @property
    def method(self) -> str | None:
        """The method (or relaxation) the grid chose, if any."""
        return self.labels.get("method")

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (JSON-ready)."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def run_key(action: str, problem: str, given: dict[str, Any], options: dict[str, Any],
            data_sha256: str | None, version: str) -> str:
    """The store key: SHA-256 (first 32 hex digits) of the canonical JSON of what the grid
    gives the run (its checked values and method options; a file by its name and SHA-256) and
    the package version. Defaults are not part of it, so an option added to a method later
    keeps the stored runs' keys (a changed default needs a new version)."""
    given = dict(given)
    if data_sha256 is not None:
        given["data"] = f"{Path(given['data']).name}@{data_sha256}"
    blob = {"action": action, "problem": problem, "given": given, "options": options,
            "version": version}
    text = json.dumps(blob, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def check_specs(specs: list[RunSpec]) -> None:
    """Validate every run before the first one starts: each distinct configuration (seeds
    aside) goes through its runner's own checks on a small stratified subset of its data
    (:func:`sparsekm.run.dry_run`); the first mistake is a ConfigError naming it."""
    from sparsekm.run import dry_run

    seen: set[str] = set()
    for s in specs:
        given = {**s.given, "seed": 0}
        sig = json.dumps([s.action, s.problem, given, s.options], sort_keys=True, default=str)
        if sig in seen:
            continue
        seen.add(sig)
        try:
            dry_run(s.action, s.problem, s.given, s.options)
        except Exception as exc:  # noqa: BLE001 - any refusal of the runner is the config's
            shown = {k: v for k, v in s.labels.items() if k not in ("problem", "action")}
            raise ConfigError(f"{s.experiment}: {shown}: {exc}") from None


def _resolve_data(cfg: ExperimentConfig, name: str) -> tuple[str, str | None]:
    from sparsekm.data import list_datasets

    if name in set(list_datasets()):
        return name, None
    path = cfg.resolve(name).resolve()
    return str(path), file_sha256(path)


def _applies(cmd: Any, key: str, method: str | None) -> bool:
    """A grid key applies to a run unless it is an option its method does not take (a key of
    a grid of several methods goes to those that take it)."""
    return method is None or cmd.applies(cmd.lookup(key), cmd.entry(method))


def _checked(cmd: Any, name: str, value: Any) -> Any:
    """A given value in its checked form (``C = 1`` and ``C = 1.0`` are one run)."""
    name = cmd.lookup(name)
    return cmd.params()[name].check(value) if name != cmd.kind else cmd.entry(value).name


def expand(cfg: ExperimentConfig, check: bool = True, views: bool = False) -> list[RunSpec]:
    """Every run of the config, in a stable order (grids in order; data, method, seed, then
    the params in the order written). Duplicates (same key) are kept once; with ``views``,
    once per distinct series name (reports: one run may count in two grids' series)."""
    from sparsekm.run import GRID, UserError, command, resolve

    if check:
        check_runners(cfg)
    version = _version()
    imports = tuple(str(cfg.resolve(i)) if i.endswith(".py") else i for i in cfg.run.imports)
    specs: dict[str, RunSpec] = {}
    for g in cfg.grid:
        cmd = command(g.action, g.problem)
        keys, names = list(g.params), list(g.options)
        for data, method, seed, *vals in itertools.product(
                g.data, g.method or [None], g.seed, *(g.params[k] for k in keys),
                *(g.options[k] for k in names)):
            values = dict(zip(keys + names, vals))
            resolved, sha = _resolve_data(cfg, data)
            given = {"data": resolved, "seed": int(seed),
                     **{k: values[k] for k in keys if _applies(cmd, k, method)}}
            if cfg.run.time_limit is not None and "time_limit" not in given:
                given["time_limit"] = cfg.run.time_limit
            if method is not None:
                given[cmd.kind] = method
            options = {k: values[k] for k in names}
            try:
                call = resolve(cmd, given, options, GRID)
            except UserError as exc:
                raise ConfigError(f"{data} {values}: {exc}") from None
            given = {k: _checked(cmd, k, v) for k, v in given.items()}
            labels = {"problem": g.problem, "action": g.action, "data": data, "method": method,
                      "seed": int(seed), **values}
            if g.series is not None:
                labels["series"] = g.series
            key = run_key(g.action, g.problem, given, options, sha, version)
            slot = (key, g.series) if views else key
            if slot not in specs:
                specs[slot] = RunSpec(
                    key=key, experiment=cfg.name, action=g.action, problem=g.problem,
                    given=given, options=options, opts=call.opts.to_dict(),
                    params=call.params(), labels=labels, data_sha256=sha,
                    hard_limit=cfg.run.hard_limit(call.opts.time_limit),
                    threads=cfg.run.threads, imports=imports, version=version)
    return list(specs.values())
