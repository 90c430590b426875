"""The registry page of the documentation site: every formulation, relaxation, cut and method
with its paper and equation, then each one's declared options (written at build time)."""

from __future__ import annotations

from typing import Any


def _cell(text: Any) -> str:
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text.replace("<", "&lt;").replace(">", "&gt;")


def _default(value: Any) -> str:
    return "none" if value is None else f"`{value}`"


def markdown() -> str:
    """The page: the summary table, then one section per problem with the options."""
    from sparsekm import registry

    registry.discover()
    out = ["# Formulations, relaxations, cuts and methods", "",
           "Written from the registry when the site is built (`tools/docs_registry.py`); the "
           "same list as `sparsekm methods [PROBLEM] [--json]`. Each entry registers itself "
           "with its paper and equation; its options are declared once, in its signature, "
           "and reach `--option NAME=VALUE`, bench grids (`[grid.options]`), the estimators' "
           "`method_options` and `sparsekm.algorithms.solve(problem, method, **options)`.",
           "", registry.markdown(), ""]
    for problem in registry.problems():
        with_options = [e for e in registry.entries(problem) if e.params]
        if not with_options:
            continue
        out += [f"## Options of `{problem}`", ""]
        for e in with_options:
            out += [f"### {e.kind} `{e.name}`", "", f"{_cell(e.summary)} ({_cell(e.citation)})",
                    "", "| option | default | help |", "|---|---|---|"]
            out += [f"| `{name}` | {_default(p.default)} | {_cell(p.help)} |"
                    for name, p in e.params.items()]
            out.append("")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(markdown())
