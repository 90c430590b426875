"""A command (``sparsekm solve fs-linear``, ``relax smkl``, ``path fs-linear``) as declarations.

A :class:`Command` names its runner and where its parameters are declared: the run options
(:class:`~.options.RunOptions`), the problem class's fields, the method (or relaxation) chosen
from the registry, the command's own parameters (a small dataclass), the
:class:`~sparsekm.solvers.SolverPlan` fields it exposes, and the chosen method's options (those
declared with a flag become flags; every option is reachable as ``--option NAME=VALUE``).
The CLI builds its typer command from :meth:`Command.params`, a bench grid checks its keys
against it, and :func:`~.resolve.resolve` turns values from either into a :class:`Call`.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sparsekm.declare import Param, Spec, params_of

from .options import RunOptions

__all__ = ["BASE_OPTIONS", "Command", "command", "commands", "register_command"]

BASE_OPTIONS = ("data", "label", "scale", "rows", "seed", "solver", "time_limit", "test_size",
                "missing", "positive_class", "drop_columns")


@dataclass(frozen=True)
class Command:
    """``sparsekm ACTION PROBLEM``: its runner and the declarations of its parameters.

    kind : "method" or "relaxation": the registry kind chosen by ``--method`` /
        ``--relaxation`` (None: the command has no choice, e.g. ``solve svm``).
    default : the default choice (None: the problem's declared default method / relaxation).
    own : a dataclass declaring the command's own parameters (``--starts``, ``--cv-folds``).
    plan : the :class:`~sparsekm.solvers.SolverPlan` fields given as flags.
    run_options : the :class:`RunOptions` fields it takes; ``run_defaults`` overrides theirs.
    problem_params : take the registered problem class's parameters (minus ``exclude``).
    applicable : whether one of the command's own parameters applies to a method (paper A's
        ``starts`` only to the methods that start from a mask); a method's option applies
        to the methods that declare it.
    """

    action: str
    problem: str
    runner: Callable[..., dict[str, Any]]
    help: str
    kind: str | None = "method"
    default: str | None = None
    own: type | None = None
    plan: tuple[str, ...] = ()
    run_options: tuple[str, ...] = BASE_OPTIONS
    run_defaults: tuple[tuple[str, Any], ...] = ()
    problem_params: bool = True
    exclude: tuple[str, ...] = ()
    applicable: Callable[[str, Any], bool] | None = None

    @property
    def name(self) -> str:
        return f"{self.action} {self.problem}"

    @property
    def choice_name(self) -> str | None:
        """The parameter naming the choice: ``method`` or ``relaxation``."""
        return self.kind

    def default_choice(self) -> str | None:
        """The default method / relaxation: the command's, else the problem's declared one."""
        from sparsekm import registry

        if self.default is not None or self.kind is None:
            return self.default
        return getattr(registry.problem(self.problem), self.kind)

    def entries(self) -> list[Any]:
        """The registered entries the choice ranges over."""
        from sparsekm import registry

        return registry.entries(self.problem, self.kind) if self.kind else []

    def entry(self, name: str) -> Any:
        from sparsekm import registry

        return registry.get(self.problem, self.kind, name)

    def params(self) -> dict[str, Param]:
        """Every parameter of the command, in help order: run options, problem, the choice,
        own, plan, then the options declared with a flag."""
        return _params(self)

    def groups(self) -> dict[str, str]:
        """Parameter name -> where it goes: run, problem, choice, own, plan or option."""
        return _groups(self)

    def flag_options(self) -> dict[str, Param]:
        """The methods' options declared with a flag (each under its first declaration)."""
        out: dict[str, Param] = {}
        for e in self.entries():
            for name, p in e.params.items():
                if p.spec.flag is not None and name not in out:
                    out[name] = p
        return out

    def lookup(self, key: str) -> str | None:
        """The parameter a key names: its name, or its flag written as a name (``samples``
        for ``--samples``, the flag of ``n_samples``); None when neither."""
        params = self.params()
        if key in params:
            return key
        for name, p in params.items():
            if p.flag.split("/")[0].lstrip("-").replace("-", "_") == key:
                return name
        return None

    def applies(self, name: str, entry: Any) -> bool:
        """Whether parameter ``name`` applies to the method ``entry`` (see ``applicable``)."""
        group = self.groups().get(name)
        if group == "option":
            return name in entry.params
        if group == "own" and self.applicable is not None:
            return self.applicable(name, entry)
        return True

    def takers(self, name: str) -> list[str]:
        """The choices that ``name`` applies to."""
        return [e.name for e in self.entries() if self.applies(name, e)]


def _choice_param(cmd: Command) -> Param:
    names = tuple(e.name for e in cmd.entries())
    what = {"method": "Method", "relaxation": "Relaxation"}[cmd.kind]

    def choices() -> tuple[str, ...]:   # read when checked: a plug-in may register more
        return tuple(e.name for e in cmd.entries()) + _aliases(cmd)

    return Param(cmd.kind, str, cmd.default_choice(),
                 Spec(f"{what}: {', '.join(names)} (`sparsekm methods {cmd.problem}` says "
                      "what each is).", choices=choices))


def _aliases(cmd: Command) -> tuple[str, ...]:
    return tuple(a for e in cmd.entries() for a in e.aliases)


@functools.cache
def _run_params() -> dict[str, Param]:
    return params_of(RunOptions)


@functools.cache
def _sections(cmd: Command) -> tuple[tuple[str, dict[str, Param]], ...]:
    from sparsekm import registry
    from sparsekm.solvers import SolverPlan

    defaults = dict(cmd.run_defaults)
    run = {n: dataclasses.replace(p, default=defaults.get(n, p.default))
           for n, p in _run_params().items() if n in cmd.run_options}
    problem: dict[str, Param] = {}
    if cmd.problem_params:
        cls = registry.problem(cmd.problem).cls
        problem = {n: p for n, p in params_of(cls).items() if n not in cmd.exclude}
    choice = {cmd.kind: _choice_param(cmd)} if cmd.kind else {}
    own = params_of(cmd.own) if cmd.own is not None else {}
    plan = {n: p for n, p in params_of(SolverPlan).items() if n in cmd.plan}
    taken = {**run, **problem, **choice, **own, **plan}
    options = {n: p for n, p in cmd.flag_options().items() if n not in taken}
    return (("run", run), ("problem", problem), ("choice", choice), ("own", own),
            ("plan", plan), ("option", options))


def _params(cmd: Command) -> dict[str, Param]:
    out: dict[str, Param] = {}
    for _, section in _sections(cmd):
        out.update(section)
    return out


def _groups(cmd: Command) -> dict[str, str]:
    return {name: group for group, section in _sections(cmd) for name in section}


_COMMANDS: dict[tuple[str, str], Command] = {}


def register_command(cmd: Command) -> Command:
    """Add ``cmd`` (a run module calls this at import)."""
    _COMMANDS[(cmd.action, cmd.problem)] = cmd
    return cmd


def commands() -> dict[tuple[str, str], Command]:
    """Every command, by (action, problem) (imports the run modules first)."""
    from .discovery import run_modules

    run_modules()
    return dict(sorted(_COMMANDS.items()))


def command(action: str, problem: str) -> Command:
    """The command ``sparsekm ACTION PROBLEM`` (ValueError naming the known ones)."""
    known = commands()
    try:
        return known[(action, problem)]
    except KeyError:
        names = ", ".join(f"{a} {p}" for a, p in known)
        raise ValueError(f"no command `sparsekm {action} {problem}`; known: {names}") from None
