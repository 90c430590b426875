"""A grid point as the CLI sees it: ``sparsekm ACTION PROBLEM --opt value ...``.

A config's keys are the options of ``sparsekm solve PROBLEM`` (``B``, ``C``, ``scale``,
``relax_solver``, ...). Each value is parsed by that command's own option parser (so a wrong
name or type fails exactly as on the command line), and the command's own body turns the
options into its runner call ``run(opts: RunOptions, **params)`` -- captured here instead of
executed. A run then calls that runner with those arguments: what ``sparsekm solve`` runs,
with no second translation of options to maintain.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import cache
from typing import Any

__all__ = ["Command", "command"]

SKIP = {"json_out"}


@dataclass
class Command:
    """The typer command ``sparsekm ACTION PROBLEM``: its options and runner call."""

    action: str
    problem: str
    click: Any
    function: Any  # the typer command's own function (its body calls run_command)
    options: dict[str, Any] = field(default_factory=dict)  # name -> click parameter
    defaults: dict[str, Any] = field(default_factory=dict)

    def convert(self, name: str, value: Any) -> Any:
        """``value`` for option ``name`` as the command line parses it (ValueError if bad)."""
        param = self.options[name]
        if param.is_flag:
            if not isinstance(value, bool):
                raise ValueError("a flag: give true or false")
            if param.secondary_opts:
                argv = [param.opts[0] if value else param.secondary_opts[0]]
            else:
                argv = [param.opts[0]] if value else []
        else:
            if isinstance(value, bool | list | dict):
                raise ValueError(f"expected a single {type(self.defaults.get(name)).__name__} "
                                 "value")
            argv = [param.opts[0], str(value)]
        try:
            ctx = self.click.make_context(self.problem, argv)
        except Exception as exc:  # click's UsageError family (vendored by typer)
            msg = exc.format_message() if hasattr(exc, "format_message") else str(exc)
            raise ValueError(msg) from None
        return ctx.params[name]

    def call(self, values: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """The runner call for these option values: (RunOptions fields, runner params)."""
        from sparsekm.cli import common

        kwargs = {**self.defaults, **values, "json_out": True}
        with common.capture_runner_calls() as calls:
            try:
                self.function(**kwargs)
            except Exception as exc:  # the command refused the options before running
                raise ValueError(f"`sparsekm {self.action} {self.problem}`: {exc}") from None
        if not calls:
            raise RuntimeError(f"`sparsekm {self.action} {self.problem}` did not call "
                               "run_command: it cannot run as an experiment")
        fn, opts, params = calls[0]
        if fn is not common.get_runner(self.action, self.problem):
            raise RuntimeError(f"`sparsekm {self.action} {self.problem}` calls another runner "
                               "than the one registered for it")
        return asdict(opts), dict(params)


@cache
def _click_root() -> Any:
    import typer.main

    from sparsekm.cli.app import app

    return typer.main.get_command(app)


def _build(action: str, problem: str) -> Command:
    from sparsekm.cli.common import relax_app, solve_app

    root = _click_root()
    if problem not in getattr(root.commands.get(action), "commands", {}):
        _click_root.cache_clear()  # a plugin may have added the command since
        root = _click_root()
    sub = getattr(root.commands.get(action), "commands", {})
    if problem not in sub:
        known = ", ".join(f"{a} {p}" for a in ("solve", "relax")
                          for p in sorted(getattr(root.commands.get(a), "commands", {})))
        raise ValueError(f"no command `sparsekm {action} {problem}`; known: {known}")
    app = solve_app if action == "solve" else relax_app
    info = next(c for c in app.registered_commands if c.name == problem)
    click_cmd = sub[problem]
    options = {p.name: p for p in click_cmd.params if p.name not in SKIP}
    defaults = {k: v for k, v in click_cmd.make_context(problem, []).params.items()
                if k not in SKIP}
    return Command(action, problem, click_cmd, info.callback, options, defaults)


_COMMANDS: dict[tuple[str, str], Command] = {}


def command(action: str, problem: str) -> Command:
    """The command ``sparsekm ACTION PROBLEM`` (ValueError naming the known ones if none)."""
    key = (action, problem)
    if key not in _COMMANDS:
        _COMMANDS[key] = _build(action, problem)
    return _COMMANDS[key]
