"""Who solves each part of a method, and whether ``--solver`` reaches one of them.

Each method declares the parts of its work (:func:`sparsekm.registry.uses_solvers`): what
solves each by default and which flags choose another. From that one declaration:

* ``--solver`` given to a method that uses it for no part (with its options) is refused in
  one line that names ``--solver`` and says what the method runs instead, and which flags do
  reach its parts (``--relax-solver``, ``--qp-solver``);
* a solver named for a part must take that part's models (``--solver cplex`` for CoP's
  bilinear form, a nonconvex MINLP, is refused with the solvers that can);
* the JSON's ``solvers`` names the solver of each part that ran (part -> solver), the
  method's own report first (what actually ran), the declaration's otherwise.
"""

from __future__ import annotations

from typing import Any

from .errors import UserError

__all__ = ["check_solver_use", "solvers_report"]


def _chosen(part: Any, given: dict[str, Any]) -> tuple[str | None, str | None]:
    """(the plan field that chooses the part's solver, its value), the first one given."""
    for flag in part.flags:
        if given.get(flag) is not None:
            return flag, given[flag]
    return None, None


def _configured(part: Any, options: dict[str, Any]) -> str:
    """What runs a part when no flag names its solver: its declared default, else the solver
    layer's configured solver for its class."""
    if part.default:
        return part.default
    from sparsekm.solvers import ProblemClass, SolverError, resolve_solver

    for cls in part.problem_classes(options):
        try:
            return resolve_solver(ProblemClass(cls), part.framework, None)
        except (SolverError, ValueError):
            continue
    return "none installed"


def solvers_report(entry: Any, options: dict[str, Any], given: dict[str, Any]
                   ) -> dict[str, str]:
    """Part -> the solver that runs it (``given``: the plan's solver fields and
    ``solver``), for the parts that run with ``options``."""
    out = {}
    for name, part in entry.parts.items():
        if part.runs(options):
            flag, value = _chosen(part, given)
            out[name] = str(value) if flag else _configured(part, options)
    return out


def _able(part: Any, options: dict[str, Any]) -> list[str]:
    """The usable solvers that can take the part's models."""
    from sparsekm.registry import KERNEL_DUAL
    from sparsekm.solvers import ProblemClass, usable_solvers
    from sparsekm.solvers.native import NATIVE_SOLVERS

    able: list[str] = []
    for cls in part.problem_classes(options):
        names = list(NATIVE_SOLVERS) if cls == KERNEL_DUAL else \
            usable_solvers(ProblemClass(cls), part.framework)
        able += [n for n in names if n not in able]
    return [n for n in able if not part.only or n in part.only]


def _flag(params: dict[str, Any], name: str, style: Any) -> str:
    p = params.get(name)
    return (p.flag if style.name == "cli" else name) if p is not None else name


def _what_runs(entry: Any, options: dict[str, Any], given: dict[str, Any],
               params: dict[str, Any], style: Any) -> str:
    """The parts that run, their solvers and the flags (that the command has) choosing them."""
    items = []
    for part in entry.parts.values():
        if not part.runs(options):
            continue
        flags = [_flag(params, f, style) for f in part.flags if f != "solver" and f in params]
        how = f" ({' or '.join(flags)} picks another)" if flags else ""
        flag, value = _chosen(part, given)
        items.append(f"its {part.what}: {value if flag else _configured(part, options)}{how}")
    return "; ".join(items) or "no solver"


def check_solver_use(entry: Any, options: dict[str, Any], given: dict[str, Any],
                     shown: str, params: dict[str, Any], style: Any) -> None:
    """Refuse ``given["solver"]`` (shown as ``shown``) when the method ``entry`` with
    ``options`` uses it for no part, or when a part it reaches cannot take the solver; a
    :class:`UserError` in the user's words (``--solver`` on the CLI, ``solver=`` in
    Python)."""
    from sparsekm.solvers import canonical_name

    solver = canonical_name(given["solver"])
    flag = _flag(params, "solver", style)
    users = [p for p in entry.parts.values()
             if p.runs(options) and _chosen(p, given)[0] == "solver"]
    if not users:
        later = [p for p in entry.parts.values() if "solver" in p.flags and not p.runs(options)]
        also = "".join(f"; {flag} solves its {p.what} {p.when_text}" for p in later
                       if p.when_text)
        ctx = " with these options" if also else ""
        raise UserError(f"{shown}: method {entry.name} takes no {flag}{ctx}: "
                        f"{_what_runs(entry, options, given, params, style)}{also}")
    for part in users:
        able = _able(part, options)
        if solver not in able:
            classes = "/".join(part.problem_classes(options))
            takers = _takers(entry, solver)
            raise UserError(f"{shown}: method {entry.name} solves its {part.what} as "
                            f"{classes} models; solvers that can: "
                            f"{', '.join(able) or 'none installed'}"
                            + (f"; methods that take {solver}: {', '.join(takers)}"
                               if takers else ""))


def _takers(entry: Any, solver: str) -> list[str]:
    """The other methods of the problem whose parts ``--solver`` reaches and can take
    ``solver`` (with their default options)."""
    from sparsekm import registry

    out = []
    for e in registry.entries(entry.problem, "method"):
        opts = e.options
        if e.name != entry.name and any(p.runs(opts) and "solver" in p.flags
                                        and solver in _able(p, opts)
                                        for p in e.parts.values()):
            out.append(e.name)
    return out
