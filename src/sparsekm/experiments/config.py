"""The TOML description of an experiment, validated before anything runs.

::

    name = "demo-grid"
    store = "results.duckdb"              # relative to the config file
    [grid]                                # or several [[grid]] tables, one store
    problem = "fs-linear"                 # any `sparsekm solve PROBLEM` (action = "relax": relax)
    data = ["wine", "path/to/own.csv"]    # bundled names or CSV paths
    method = ["local-search", "kernel-search"]
    seed = [0, 1]
    [grid.params]                         # any option of `sparsekm solve PROBLEM`, each a list
    B = [2, 3]
    C = [1.0, 10.0]
    scale = ["standard"]
    [grid.options]                        # any keyword option of the methods (--option NAME=...)
    cop_form = ["bilinear", "perspective"]
    [run]
    time_limit = 60                       # seconds per run (the run is killed at + grace)

:func:`load_config` reads and checks the shape (pydantic: a wrong key or value is an error that
names it); :func:`check_runners` checks every key against the declarations of the command
``sparsekm ACTION PROBLEM`` (:mod:`sparsekm.run`), so a typo fails before the first run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
)

__all__ = ["ConfigError", "ExperimentConfig", "GridConfig", "RunConfig", "ReportConfig",
           "load_config", "loads_config", "parse_config", "check_runners"]


class ConfigError(ValueError):
    """An experiment config that cannot run; the message names the key and the fix."""


def _as_list(v: Any) -> Any:
    return v if isinstance(v, list) else [v]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GridConfig(_Strict):
    """One grid: the product of data x method x seed x every ``params`` list."""

    problem: str
    action: Literal["solve", "relax", "path"] = "solve"
    data: list[str] = Field(min_length=1)
    method: list[str] | None = Field(default=None, min_length=1)
    seed: list[int] = Field(default=[0], min_length=1)
    params: dict[str, list[Any]] = Field(default_factory=dict)
    options: dict[str, list[Any]] = Field(default_factory=dict)  # the method's --option NAMEs
    # this grid's series name in reports (default: the values of the [report] columns keys);
    # two grids may name one run differently (a run is stored and run once)
    series: str | None = Field(default=None, min_length=1)

    @field_validator("data", "method", "seed", mode="before")
    @classmethod
    def _listify(cls, v: Any) -> Any:
        return None if v is None else _as_list(v)

    @field_validator("params", "options", mode="before")
    @classmethod
    def _listify_params(cls, v: Any, info: ValidationInfo) -> Any:
        if not isinstance(v, dict):
            return v
        out = {}
        for key, val in v.items():
            val = _as_list(val)
            if not val:
                raise ValueError(f"{info.field_name}.{key} is an empty list: give at least one "
                                 "value")
            out[key] = val
        return out


class RunConfig(_Strict):
    """How each run is executed."""

    time_limit: float | None = Field(default=None, gt=0)  # passed to the method (--time-limit)
    grace: float | None = Field(default=None, ge=0)  # kill at time_limit + grace seconds
    kill_after: float | None = Field(default=None, gt=0)  # explicit hard wall-clock limit
    threads: int = Field(default=1, ge=1)  # BLAS / OpenMP threads per run
    imports: list[str] = Field(default_factory=list)  # modules or .py files adding runners
    # modules imported once per worker before it forks runs (besides sparsekm and sklearn)
    preload: list[str] = Field(default_factory=lambda: ["pyomo.environ", "cvxpy"])

    def hard_limit(self, time_limit: float | None) -> float | None:
        """Seconds after which a run is killed: ``kill_after``, else ``time_limit + grace``
        (grace defaults to max(5 s, 25 % of the limit)); None without either."""
        if self.kill_after is not None:
            return self.kill_after
        if time_limit is None:
            return None
        grace = self.grace if self.grace is not None else max(5.0, 0.25 * time_limit)
        return time_limit + grace


class ReportConfig(_Strict):
    """Shape of ``bench report`` tables and ``bench plot`` figures."""

    rows: list[str] | None = None  # default: the grid keys that vary (not columns, not seed)
    columns: list[str] = Field(default_factory=lambda: ["method"])  # keys naming a series
    panels: str | None = None  # one performance-profile panel per value of this key
    reference: str | None = None  # CSV of published values (row keys, "series:value" columns)
    values: list[str] = Field(default_factory=lambda: ["objective", "gap", "time_s"])
    agg: Literal["best", "mean", "median"] = "best"  # over seeds (starts)
    sense: Literal["min", "max"] = "min"  # direction of the objective
    # significant digits of objectives, bounds and other values in the report tables (gaps,
    # accuracies and times have their own fixed decimals)
    digits: int = Field(default=7, ge=1, le=17)
    profile_metric: Literal["objective", "time_s"] = "objective"
    # model selection per seed before agg: keys maximised ("-key": minimised), e.g.
    # ["validation_accuracy", "-validation_loss"]
    select: list[str] = Field(default_factory=list)
    plots: list[str] | None = None  # `bench plot` kinds to draw (default: every kind with data)

    @field_validator("columns", "select", "plots", mode="before")
    @classmethod
    def _cols(cls, v: Any) -> Any:
        return v if v is None else _as_list(v)


class ExperimentConfig(_Strict):
    """A whole experiment file."""

    name: str = Field(min_length=1)
    description: str = ""
    store: str = "results.duckdb"
    grid: list[GridConfig] = Field(min_length=1)
    run: RunConfig = Field(default_factory=RunConfig)
    report: ReportConfig = Field(default_factory=ReportConfig)
    _base: Path = PrivateAttr(default_factory=Path.cwd)

    @field_validator("grid", mode="before")
    @classmethod
    def _grids(cls, v: Any) -> Any:
        return _as_list(v)

    @property
    def base_dir(self) -> Path:
        """The folder of the config file: relative paths are read from there."""
        return self._base

    @property
    def store_path(self) -> Path:
        """The DuckDB file of the results."""
        p = Path(self.store).expanduser()
        return p if p.is_absolute() else self._base / p

    def resolve(self, path: str) -> Path:
        """A path of the config, relative to its folder."""
        p = Path(path).expanduser()
        return p if p.is_absolute() else self._base / p


def _format_errors(err: ValidationError, where: str, one_grid: bool) -> str:
    lines = []
    for e in err.errors():
        loc = ".".join(str(p) for p in e["loc"])
        if one_grid and loc.startswith("grid.0"):
            loc = "grid" + loc[6:]  # a single [grid] table: no index
        given = e.get("input")
        shown = "" if isinstance(given, dict | list) else f" (given {given!r})"
        msg = "unknown key: remove it or check its spelling" if e["type"] == "extra_forbidden" \
            else e["msg"]
        lines.append(f"  {loc}: {msg}{shown}")
    return f"{where}: invalid experiment config\n" + "\n".join(lines)


def parse_config(data: dict[str, Any], base_dir: str | Path = ".",
                 where: str = "config") -> ExperimentConfig:
    """Validate a config given as a dict (the parsed TOML); ``base_dir`` anchors its paths."""
    try:
        cfg = ExperimentConfig.model_validate(data)
    except ValidationError as err:
        one = isinstance(data, dict) and isinstance(data.get("grid"), dict)
        raise ConfigError(_format_errors(err, where, one)) from None
    cfg._base = Path(base_dir).resolve()
    return cfg


def _toml() -> Any:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    return tomllib


def loads_config(text: str, base_dir: str | Path = ".", where: str = "config") -> ExperimentConfig:
    """Validate a config given as TOML text (a notebook's cell); ``base_dir`` anchors paths."""
    tomllib = _toml()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: not valid TOML: {exc}") from None
    return parse_config(data, base_dir, where)


def load_config(path: str | Path) -> ExperimentConfig:
    """Read and validate an experiment TOML file (shape only; see :func:`check_runners`)."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: no such config file")
    return loads_config(path.read_text(), path.resolve().parent, str(path))


# --- checks against the commands ---------------------------------------------------------------
def _check_data(cfg: ExperimentConfig, data: list[str], where: str) -> None:
    from sparsekm.data import list_datasets

    names = set(list_datasets())
    for i, d in enumerate(data):
        if d in names:
            continue
        p = cfg.resolve(d)
        if not p.is_file():
            raise ConfigError(f"{where}.data[{i}] = {d!r}: neither a bundled dataset "
                              f"(see `sparsekm datasets`) nor a file ({p})")


def import_plugins(cfg: ExperimentConfig) -> None:
    """Import ``run.imports`` (module names, or ``.py`` files relative to the config)."""
    from .child import import_plugin

    for item in cfg.run.imports:
        try:
            import_plugin(item if not item.endswith(".py") else str(cfg.resolve(item)))
        except Exception as exc:  # noqa: BLE001 - report which import failed
            raise ConfigError(f"run.imports: cannot import {item!r}: {exc}") from None


def _check_values(param: Any, values: list[Any], at: str) -> None:
    """Each value of a grid key checked and converted by the key's declaration."""
    from sparsekm.declare import ParamError

    for i, v in enumerate(values):
        try:
            values[i] = param.check(v)
        except ParamError as exc:
            raise ConfigError(f"{at}[{i}] = {v!r}: {exc.allowed}") from None


def _check_grid(g: GridConfig, where: str) -> None:
    from sparsekm.run import command

    try:
        cmd = command(g.action, g.problem)
    except ValueError as exc:
        raise ConfigError(f"{where}.problem = {g.problem!r}: {exc}") from None
    params = cmd.params()
    if g.method is not None:
        if cmd.kind is None:
            raise ConfigError(f"{where}.method: `sparsekm {g.action} {g.problem}` takes no "
                              "method; remove the key")
        _check_values(params[cmd.kind], g.method, f"{where}.method")
    methods = g.method or ([cmd.default_choice()] if cmd.kind else [])
    for key, values in g.params.items():
        at = f"{where}.params.{key}"
        name = cmd.lookup(key)
        if key in ("data", "seed") or (name == cmd.kind and g.method is not None):
            raise ConfigError(f"{at}: set `{key}` as a key of [grid], not in [grid.params]")
        if name is None:
            known = sorted(set(params) - {"data", "seed"})
            raise ConfigError(f"{at}: `sparsekm {g.action} {g.problem}` has no option "
                              f"{key!r}; known: {', '.join(known)}")
        if methods and not any(cmd.applies(name, cmd.entry(m)) for m in methods):
            raise ConfigError(f"{at}: no method of the grid ({', '.join(methods)}) takes "
                              f"{name}; methods that do: {', '.join(cmd.takers(name))}")
        _check_values(params[name], values, at)
    _check_options(cmd, g, where)


def check_runners(cfg: ExperimentConfig) -> ExperimentConfig:
    """Check every grid against its command ``sparsekm ACTION PROBLEM``: the command exists,
    every key is one of its declared parameters, every value passes its declaration, methods
    are registered, data sets exist. Values are replaced by their checked form (``C = 1`` ->
    1.0). Raises :class:`ConfigError` naming the first bad key."""
    import_plugins(cfg)
    for gi, g in enumerate(cfg.grid):
        where = f"grid[{gi}]" if len(cfg.grid) > 1 else "grid"
        _check_data(cfg, g.data, where)
        _check_grid(g, where)
    return cfg


def _check_options(cmd: Any, g: GridConfig, where: str) -> None:
    """``[grid.options]`` names and values against every method of the grid (its declared
    options), as ``--option NAME=VALUE`` would be checked."""
    from sparsekm.declare import ParamError

    if not g.options:
        return
    if g.method is None or cmd.kind is None:
        raise ConfigError(f"{where}.options: give the grid's methods (`method = [...]`): the "
                          "options are theirs")
    for name in g.method:
        declared = cmd.entry(name).params
        for key, values in g.options.items():
            if key not in declared:
                raise ConfigError(f"{where}.options.{key}: {cmd.kind} {name} takes no option "
                                  f"{key!r}; its options: {', '.join(declared) or 'none'}")
            for i, v in enumerate(values):
                try:
                    values[i] = declared[key].check(v)
                except ParamError as exc:
                    raise ConfigError(f"{where}.options.{key}[{i}] = {v!r} ({cmd.kind} "
                                      f"{name}): {exc.allowed}") from None
