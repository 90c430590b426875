"""A config's grids expanded into runs, each keyed by a hash of its full configuration.

A run's key hashes everything that shapes its result: the command (``solve``/``relax`` and the
problem), the data (a bundled name, or a CSV file's name and SHA-256), every common option
(scale, rows, seed, solver, time limit, test size, label) and every runner parameter with the
runner's defaults filled in, and the package version. The experiment's name, the store, the
worker count and the kill deadline are not part of it: the same run in two configs is one run.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .child import file_sha256
from .config import ConfigError, ExperimentConfig, check_runners, method_option

__all__ = ["RunSpec", "check_specs", "expand", "file_sha256", "run_key"]


LATE_OPTS = ("missing", "positive_class", "drop_columns")
# runner parameters added later, with the value that reproduces the earlier runs: left out of
# the key at that value, so stored runs keep their keys (smkl's tree options)
LATE_PARAMS = {"workers": 1, "checkpoint": None}


def _version() -> str:
    from sparsekm import __version__

    return __version__


@dataclass(frozen=True)
class RunSpec:
    """One run of a grid: what to call and with what (plain data: it travels to workers).

    ``opts`` are the :class:`~sparsekm.cli.common.RunOptions` fields (``data`` resolved to a
    bundled name or an absolute CSV path) and ``params`` the runner's keyword arguments, both
    as the command ``sparsekm ACTION PROBLEM`` builds them from its options (every default
    filled in); ``labels`` are the grid keys as the config wrote them (report columns).
    """

    key: str
    experiment: str
    action: str
    problem: str
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


def run_key(action: str, problem: str, opts: dict[str, Any], params: dict[str, Any],
            data_sha256: str | None, version: str) -> str:
    """The store key: SHA-256 (first 32 hex digits) of the canonical JSON of the run. The CSV
    options added later (``LATE_OPTS``) count only when set, the runner parameters added later
    (``LATE_PARAMS``) only off their earlier value, so stored runs keep their keys."""
    data = opts["data"] if data_sha256 is None else f"{Path(opts['data']).name}@{data_sha256}"
    opts = {k: v for k, v in opts.items() if not (k in LATE_OPTS and v is None)}
    params = {k: v for k, v in params.items()
              if not (k in LATE_PARAMS and v == LATE_PARAMS[k])}
    blob = {"action": action, "problem": problem, "opts": {**opts, "data": data},
            "params": params, "version": version}
    text = json.dumps(blob, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _option_text(value: Any) -> str:
    """A TOML value as ``--option`` reads it (JSON for lists, ``none`` for None)."""
    if value is None:
        return "none"
    if isinstance(value, bool | list | dict):
        return json.dumps(value)
    return str(value)


def check_specs(specs: list[RunSpec]) -> None:
    """Validate every run before the first one starts: each distinct configuration (seeds
    aside) goes through its runner's own checks on a small stratified subset of its data
    (:func:`sparsekm.cli.common.check_run`); the first mistake is a ConfigError naming it."""
    from sparsekm.cli.common import check_run

    seen: set[str] = set()
    for s in specs:
        opts = {**s.opts, "seed": 0, "time_limit": None}
        sig = json.dumps([s.action, s.problem, opts, s.params], sort_keys=True, default=str)
        if sig in seen:
            continue
        seen.add(sig)
        try:
            check_run(s.action, s.problem, s.opts, s.params)
        except Exception as exc:  # noqa: BLE001 - any refusal of the runner is the config's
            shown = {k: v for k, v in s.labels.items() if k not in ("problem", "action")}
            raise ConfigError(f"{s.experiment}: {shown}: {exc}") from None


def _resolve_data(cfg: ExperimentConfig, name: str) -> tuple[str, str | None]:
    from sparsekm.data import list_datasets

    if name in set(list_datasets()):
        return name, None
    path = cfg.resolve(name).resolve()
    return str(path), file_sha256(path)


def expand(cfg: ExperimentConfig, check: bool = True) -> list[RunSpec]:
    """Every run of the config, in a stable order (grids in order; data, method, seed, then
    the params in the order written). Duplicates (same key) are kept once."""
    from .command import command

    if check:
        check_runners(cfg)
    version = _version()
    imports = tuple(str(cfg.resolve(i)) if i.endswith(".py") else i for i in cfg.run.imports)
    specs: dict[str, RunSpec] = {}
    for g in cfg.grid:
        cmd = command(g.action, g.problem)
        mp = method_option(cmd)
        keys, names = list(g.params), list(g.options)
        for data, method, seed, *vals in itertools.product(
                g.data, g.method or [None], g.seed, *(g.params[k] for k in keys),
                *(g.options[k] for k in names)):
            given = dict(zip(keys + names, vals))
            resolved, sha = _resolve_data(cfg, data)
            values = {"data": resolved, "seed": int(seed), "time_limit": cfg.run.time_limit,
                      **{k: given[k] for k in keys}}
            if names:  # [grid.options]: the command's --option NAME=VALUE
                values["option"] = [f"{k}={_option_text(given[k])}" for k in names]
            if method is not None:
                values[mp] = method
            try:
                opts, params = cmd.call(values)
            except ValueError as exc:
                raise ConfigError(f"{data} {given}: {exc}") from None
            labels = {"problem": g.problem, "action": g.action, "data": data, "method": method,
                      "seed": int(seed), **given}
            key = run_key(g.action, g.problem, opts, params, sha, version)
            if key not in specs:
                specs[key] = RunSpec(
                    key=key, experiment=cfg.name, action=g.action, problem=g.problem,
                    opts=opts, params=params, labels=labels, data_sha256=sha,
                    hard_limit=cfg.run.hard_limit(opts["time_limit"]), threads=cfg.run.threads,
                    imports=imports, version=version)
    return list(specs.values())
