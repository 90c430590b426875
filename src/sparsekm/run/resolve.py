"""From values as a user gave them (CLI flags, a grid's keys, an estimator's parameters) to one
validated :class:`Call` of a command, by one set of rules.

* every value is checked by its declaration (:meth:`~sparsekm.declare.Param.check`);
* ``--option NAME=VALUE`` reaches any option the chosen method or relaxation declares;
* a flag the chosen method does not take is refused (naming the methods that do), never
  silently recorded;
* the same parameter given twice with different values (``--workers 1 -o workers=2``) is
  refused: give it once;
* a method that takes a ``seed`` gets the run's ``--seed`` unless ``--option seed=`` says.

A refusal is a :class:`UserError`: one line in the user's own words (:class:`Style`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sparsekm.deadline import Deadline
from sparsekm.declare import Param, ParamError

from .command import Command
from .errors import UserError
from .options import RunOptions

__all__ = ["CLI", "GRID", "PYTHON", "Call", "Style", "resolve"]

WRAP_UP_S = 1.0   # of a run's limit kept for its report (the final SVM at the incumbent, the
                  # accuracies, the JSON): the method's clock ends this much earlier


@dataclass(frozen=True)
class Style:
    """How a front end shows a value the user gave: ``--C 0`` (CLI), ``C=0`` (Python)."""

    name: str

    def param(self, p: Param, raw: Any) -> str:
        if self.name == "cli":
            if p.base is bool and p.spec.flag and "/" in p.spec.flag:
                on, off = p.spec.flag.split("/")
                return on if raw in (True, "true") else off
            return f"{p.flag} {raw}"
        if self.name == "grid":
            return f"{p.name} = {raw!r}"
        return f"{p.name}={raw!r}"

    def words(self, text: str) -> str:
        """``text`` with the parameters it mentions in this front door's words."""
        from sparsekm.declare import in_words

        return in_words(text, "cli" if self.name == "cli" else "python")

    def option(self, name: str, raw: Any) -> str:
        if self.name == "cli":
            return f"--option {name}={raw}"
        if self.name == "grid":
            return f"options.{name} = {raw!r}"
        return f"method_options[{name!r}]={raw!r}"


CLI, GRID, PYTHON = Style("cli"), Style("grid"), Style("python")


@dataclass(frozen=True)
class Call:
    """A command's validated call: what its runner receives."""

    command: Command
    opts: RunOptions
    problem: dict[str, Any]
    choice: str | None
    options: dict[str, Any]
    own: dict[str, Any]
    plan: dict[str, Any]
    style: Style = CLI
    shown: dict[str, str] = field(default_factory=dict)
    deadline: Deadline = field(default_factory=lambda: Deadline(None), compare=False)

    @property
    def entry(self) -> Any:
        """The chosen registry entry (None for a command without a choice)."""
        return self.command.entry(self.choice) if self.choice else None

    def effective_options(self) -> dict[str, Any]:
        """The chosen method's options as it runs: its declared defaults, then the given."""
        defaults = self.entry.options if self.entry is not None else {}
        return {**defaults, **self.options}

    def params(self) -> dict[str, Any]:
        """The run's parameters for the JSON ``params`` (the ``solver`` asked for included)."""
        out: dict[str, Any] = {**self.problem}
        if self.opts.solver is not None:
            out["solver"] = self.opts.solver
        if self.choice is not None:
            out[self.command.kind] = self.choice
        out.update(self.own)
        out.update(self.plan)
        out.update(self.effective_options())
        return {**self.opts.params(), **out}   # a method's own seed is the one it ran

    def solver_plan(self, **extra: Any) -> Any:
        """The :class:`~sparsekm.solvers.SolverPlan` of the run on the run's own
        :class:`~sparsekm.deadline.Deadline` (started by the front door: the time limit
        covers start-up); the method's part of it ends ``min(WRAP_UP_S, 10 %)`` of the limit
        earlier, for the report."""
        from sparsekm.solvers import SolverPlan

        plan = {**self.plan, **extra}
        limit = self.opts.time_limit
        reserve = 0.0 if limit is None else min(WRAP_UP_S, 0.1 * limit)
        clock = self.deadline.limited(None if limit is None else limit - reserve)
        return SolverPlan(solver=self.opts.solver, time_limit=limit, **plan).with_(
            deadline=clock)

    def build(self, cls: type, X: Any, y: Any, **changes: Any) -> Any:
        """The problem ``cls`` on (X, y) with the call's parameters (and ``changes``)."""
        return cls(X, y, **{**self.problem, **changes})

    def key_dict(self) -> dict[str, Any]:
        """Everything that shapes the result, as plain data (hashed into a run's key)."""
        return {"action": self.command.action, "problem": self.command.problem,
                "opts": self.opts.to_dict(), "params": self.params()}

    def solver_fields(self) -> dict[str, Any]:
        """The solvers the run was given: ``solver`` and the plan's ``*_solver`` fields."""
        return {**{k: v for k, v in self.plan.items() if k.endswith("solver")},
                "solver": self.opts.solver}

    def solvers(self) -> dict[str, str]:
        """Part of the chosen method's work -> the solver that runs it (its declaration)."""
        from .solver_parts import solvers_report

        entry = self.entry
        if entry is None or self.command.kind != "method" or not entry.parts:
            return {}
        return solvers_report(entry, self.effective_options(), self.solver_fields())

    def error(self, exc: ParamError) -> UserError:
        """``exc`` (raised after resolution, e.g. by the problem's own checks) rendered with
        the parameter as the user wrote it."""
        shown = self.shown.get(exc.name)
        if shown is None:
            p = self.command.params().get(exc.name)
            shown = self.style.param(p, exc.value) if p is not None else \
                self.style.option(exc.name, exc.value)
        return UserError(exc.render(shown, "cli" if self.style.name == "cli" else "python"))


def _check(p: Param, raw: Any, shown: str) -> Any:
    try:
        return p.check(raw)
    except ParamError as exc:
        raise UserError(exc.render(shown)) from None


def _option_items(items: Mapping[str, Any] | Iterable[str], style: Style
                  ) -> list[tuple[str, Any, str]]:
    """(name, raw value, as shown) of ``--option NAME=VALUE`` items or a mapping."""
    if isinstance(items, Mapping):
        return [(str(k), v, style.option(str(k), v)) for k, v in items.items()]
    out = []
    for item in items:
        name, sep, raw = str(item).partition("=")
        if not sep or not name.strip():
            raise UserError(f"--option {item}: write NAME=VALUE")
        out.append((name.strip(), raw.strip(), f"--option {name.strip()}={raw.strip()}"))
    return out


def _choice(cmd: Command, given: Mapping[str, Any], style: Style) -> str | None:
    if cmd.kind is None:
        return None
    p = cmd.params()[cmd.kind]
    raw = given.get(cmd.kind, cmd.default_choice())
    return cmd.entry(_check(p, raw, style.param(p, raw))).name


def _options(cmd: Command, choice: str | None, flags: dict[str, tuple[Any, str]],
             items: list[tuple[str, Any, str]]) -> tuple[dict[str, Any], dict[str, str]]:
    """The chosen method's options from its flags and ``--option`` items (one rule for
    conflicts); returns (values, how each was shown)."""
    declared = cmd.entry(choice).params if choice else {}
    what = f"{cmd.kind} {choice}" if choice else f"`sparsekm {cmd.name}`"
    values: dict[str, Any] = {}
    shown: dict[str, str] = {}
    for name, (raw, text) in flags.items():
        if name not in declared:
            takers = cmd.takers(name)
            raise UserError(f"{text}: {what} takes no {name}"
                            + (f"; methods that do: {', '.join(takers)}" if takers else ""))
        values[name], shown[name] = _check(declared[name], raw, text), text
    for name, raw, text in items:
        if name not in declared:
            known = ", ".join(declared) or "none"
            raise UserError(f"{text}: {what} takes no option {name!r}; its options: {known}")
        value = _check(declared[name], raw, text)
        if name in values and values[name] != value:
            raise UserError(f"{shown[name]} and {text} disagree: give {name} once")
        values[name], shown[name] = value, text
    return values, shown


def resolve(cmd: Command, given: Mapping[str, Any],
            options: Mapping[str, Any] | Iterable[str] = (), style: Style = CLI,
            clock: Deadline | None = None) -> Call:
    """Validate ``given`` (parameter name -> value as the user gave it; only what was given)
    and ``options`` (``--option`` items or a mapping) into the :class:`Call` of ``cmd``.
    ``clock``: the run's clock, started by the front door (the CLI: at the process's start);
    the call's :attr:`Call.deadline` is it with the run's time limit (default: from now)."""
    params, groups = cmd.params(), cmd.groups()
    unknown = sorted(k for k in given if cmd.lookup(k) is None)
    if unknown:
        raise UserError(f"{unknown[0]}: `sparsekm {cmd.name}` has no parameter {unknown[0]!r};"
                        f" known: {', '.join(params)}")
    given = {cmd.lookup(k): v for k, v in given.items()}
    choice = _choice(cmd, given, style)
    sections: dict[str, dict[str, Any]] = {g: {} for g in ("run", "problem", "own", "plan")}
    shown: dict[str, str] = {}
    flags: dict[str, tuple[Any, str]] = {}
    for name, raw in given.items():
        group, p = groups[name], params[name]
        text = style.param(p, raw)
        if group == "option":
            flags[name] = (raw, text)
        elif group != "choice":
            sections[group][name], shown[name] = _check(p, raw, text), text
            if choice and not cmd.applies(name, cmd.entry(choice)):
                raise UserError(f"{text}: {cmd.kind} {choice} takes no {name}; methods that "
                                f"do: {', '.join(cmd.takers(name))}")
    options_given, options_shown = _options(cmd, choice, flags, _option_items(options, style))
    shown.update(options_shown)
    run = {n: p.default for n, p in params.items() if groups[n] == "run"}
    opts = RunOptions(**{**run, **sections["run"]})
    _check_solvers(opts, sections["plan"], shown, style, params)
    if cmd.kind == "relaxation" and opts.solver is not None:
        _check_capable(cmd.entry(choice), opts.solver, shown.get("solver") or
                       style.param(params["solver"], opts.solver))
    if cmd.kind == "method" and opts.solver is not None and cmd.entry(choice).parts:
        from .solver_parts import check_solver_use

        entry = cmd.entry(choice)
        check_solver_use(entry, {**entry.options, **options_given},
                         {**sections["plan"], "solver": opts.solver},
                         shown.get("solver") or style.param(params["solver"], opts.solver),
                         params, style)
    if choice and "seed" in cmd.entry(choice).params and "seed" not in options_given:
        options_given["seed"] = opts.seed      # the run's --seed, unless --option seed= says
    defaults = {g: {n: p.default for n, p in params.items() if groups[n] == g}
                for g in ("problem", "own", "plan")}
    return Call(cmd, opts, {**defaults["problem"], **sections["problem"]}, choice,
                options_given, {**defaults["own"], **sections["own"]},
                {**defaults["plan"], **sections["plan"]}, style, shown,
                (clock or Deadline(None)).limited(opts.time_limit))


def _check_solvers(opts: RunOptions, plan: dict[str, Any], shown: dict[str, str],
                   style: Style, params: dict[str, Param]) -> None:
    """Every solver name given is known and usable (the native SVM solvers included)."""
    from sparsekm.solvers import SolverError, check_solver
    from sparsekm.solvers.native import NATIVE_SOLVERS

    for name, value in [("solver", opts.solver), *plan.items()]:
        if not name.endswith("solver") or value is None:
            continue
        if name == "solver" and value.lower() in NATIVE_SOLVERS:
            continue
        try:
            check_solver(value)
        except SolverError as exc:
            text = shown.get(name) or style.param(params[name], value)
            raise UserError(f"{text}: {exc}") from None


def _check_capable(entry: Any, solver: str, shown: str) -> None:
    """The solver can take the relaxation's model class (else the usable ones that can)."""
    from sparsekm.solvers import ProblemClass, canonical_name, usable_solvers

    if entry.problem_class not in ProblemClass.__members__:
        return
    able = usable_solvers(ProblemClass(entry.problem_class))
    if canonical_name(solver) not in able:
        raise UserError(f"{shown}: {entry.kind} {entry.name} of {entry.problem} is a "
                        f"{entry.problem_class} model; solvers that can take it: "
                        f"{', '.join(able) or 'none installed'}")


def replace_call(call: Call, **changes: Any) -> Call:
    """``call`` with some fields changed (a runner's second stage, e.g. a CV's refit)."""
    return dataclasses.replace(call, **changes)
