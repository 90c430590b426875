"""The command-line reference of the documentation site, written from the commands themselves.

Every ``sparsekm`` command (including those found through the ``sparsekm.commands`` entry
point, such as ``bench``) is walked; each gets its usage, its help and a table of its
arguments and options with the help text the declarations give (``sparsekm.declare``), so
the page cannot drift from ``--help``.
"""

from __future__ import annotations

from typing import Any


def _cell(text: str) -> str:
    text = " ".join((text or "").split()).replace("|", "\\|")
    return text.replace("<", "&lt;").replace(">", "&gt;")


def _flags(param: Any) -> str:
    opts = [*param.opts, *param.secondary_opts]
    if not opts or not opts[0].startswith("-"):  # a positional argument
        return f"`{param.name.upper()}`"
    return ", ".join(f"`{o}`" for o in opts)


def _kind(param: Any) -> str:
    if getattr(param, "is_flag", False):
        return "flag"
    return _cell(str(param.metavar or "")).lower() or "text"


def _command(path: list[str], cmd: Any) -> list[str]:
    title = " ".join(path)
    params = [p for p in cmd.params if not p.hidden and p.name != "help"]
    lines = [f"## `{title}`", "", _cell(cmd.help or "").rstrip(), ""]
    args = " ".join(_flags(p).strip("`") for p in params if not _flags(p).startswith("`-"))
    lines += ["```text", f"{title} [OPTIONS] {args}".rstrip(), "```", ""]
    if params:
        lines += ["| argument / option | value | help |", "|---|---|---|"]
        lines += [f"| {_flags(p)} | {_kind(p)} | {_cell(p.help or '')} |" for p in params]
        lines.append("")
    return lines


def _walk(path: list[str], cmd: Any, out: list[str]) -> None:
    commands = getattr(cmd, "commands", None)
    if commands is None:
        out.extend(_command(path, cmd))
        return
    for name in sorted(commands):
        _walk([*path, name], commands[name], out)


def markdown() -> str:
    """The page: an index of the commands, then one section per command."""
    import typer

    from sparsekm.cli.app import app

    root = typer.main.get_command(app)
    body: list[str] = []
    _walk(["sparsekm"], root, body)
    names = [line[4:-1] for line in body if line.startswith("## `")]
    head = ["# Command line reference", "",
            "Written from the commands themselves when the site is built (`tools/docs_cli.py`): "
            "each table is what `--help` prints. Every option comes from one declaration "
            "(type, range, default, help), shared with bench grids, the estimators and the "
            "Python front door; `--option NAME=VALUE` reaches a method's own options, listed "
            "by `sparsekm methods PROBLEM --json`.", "",
            *[f"- [`{n}`](#{n.replace(' ', '-')})" for n in names], ""]
    return "\n".join(head + body) + "\n"


if __name__ == "__main__":
    print(markdown())
