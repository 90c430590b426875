"""What ``sparsekm export`` can write: each problem's registered formulations and relaxations.

Every form comes from the registry: a formulation or relaxation declares with
:func:`sparsekm.registry.exportable` how it is built for a file (its builder, the formats that
can hold it, its integer columns, a note), and the problem class what its variables mean in
the paper (``Problem.variables``). A :class:`Form` is that declaration seen by the command: a
new formulation registered with an export reaches ``sparsekm export`` with no edit here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Form", "forms", "paper_name"]


@dataclass(frozen=True)
class Form:
    """One exportable model as the export command sees it: the registry ``kind``/``entry``
    (paper reference, class), its builder, formats, integer columns, note and role, and the
    problem's variable meanings."""

    name: str
    kind: str
    entry: str
    build: Callable[[Any, dict[str, Any]], Any]
    variables: dict[str, str]
    integer: tuple[str, ...]
    note: str
    role: str
    export: Any

    def allowed(self, options: dict[str, Any]) -> tuple[str, ...]:
        """The formats that can hold the form built with ``options``."""
        return self.export.allowed(options)


def forms(problem: str) -> dict[str, Form]:
    """The exportable forms of ``problem`` (empty when none), by ``--form`` name."""
    from sparsekm import registry

    try:
        cls = registry.problem(problem).cls
    except ValueError:
        return {}
    out = {}
    for name, (entry, ex) in registry.export_forms(problem).items():
        role = ex.role or ("relaxation" if entry.kind == "relaxation" else "exact")
        out[name] = Form(name, entry.kind, entry.name, ex.build, dict(cls.variables),
                         ex.integer, ex.note, role, ex)
    return out


AUX = {"cone_t": "auxiliary: t >= ||z|| of a second-order cone",
       "cone_z": "auxiliary: an entry z of a second-order cone",
       "ONE_VAR_CONSTANT": "the constant 1 (carries the objective's constant)"}


def paper_name(base: str, index: Any, variables: dict[str, str]) -> str:
    """The paper's name of model variable ``base[index]``: ``w_3``, ``xi_12``, ``b``; an
    auxiliary variable is named for what it is."""
    if base in AUX:
        return AUX[base] if index is None else f"{AUX[base]} [{index}]"
    if base not in variables:
        return f"auxiliary {base}" + ("" if index is None else f"[{index}]")
    if index is None:
        return base
    if isinstance(index, tuple):
        return f"{base}_{','.join(map(str, index))}"
    return f"{base}_{index}"
