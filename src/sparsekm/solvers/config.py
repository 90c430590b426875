"""Where default solvers come from: argument > environment > sparsekm.toml > built-in order.

* ``SPARSEKM_SOLVER_<CLASS>`` (e.g. ``SPARSEKM_SOLVER_MIQP=gurobi``) or ``SPARSEKM_SOLVER``;
* ``sparsekm.toml`` in the working directory (project), then the file named by
  ``SPARSEKM_CONFIG``, then ``~/.config/sparsekm/sparsekm.toml`` (user)::

      [solvers]
      default = "scip"     # any class it can handle
      MIQP = "gurobi"      # per problem class
      SDP = "scs"

      [solver_options.scs]
      eps_abs = 1e-6

A per-class choice is strict (an error if unusable); a global default is skipped for the classes
it cannot handle.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import tomllib

from .types import ProblemClass

# Open-source first; the first usable and capable one is the built-in default.
PREFERENCE = ["highs", "clarabel", "ipopt", "scip", "scs", "gurobi", "cplex", "xpress", "mosek"]
# Per framework where the general order is not the fastest: Clarabel runs matrix QPs natively.
FRAMEWORK_PREFERENCE = {"matrix": ["clarabel"] + [s for s in PREFERENCE if s != "clarabel"]}


def preference(framework: str | None = None) -> list[str]:
    """The built-in solver order for models of ``framework``."""
    return FRAMEWORK_PREFERENCE.get(framework or "", PREFERENCE)


def config_files() -> list[Path]:
    """Config files in precedence order (existing ones only)."""
    paths = [Path.cwd() / "sparsekm.toml"]
    if os.environ.get("SPARSEKM_CONFIG"):
        paths.append(Path(os.environ["SPARSEKM_CONFIG"]))
    paths.append(Path.home() / ".config" / "sparsekm" / "sparsekm.toml")
    return [p for p in paths if p.is_file()]


def _load(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: invalid TOML ({exc}); fix or remove the file") from exc


def configured_solver(problem_class: ProblemClass) -> tuple[str, str, bool] | None:
    """(solver name, where it was set, strict) or None when nothing is configured."""
    key = f"SPARSEKM_SOLVER_{problem_class.value}"
    if os.environ.get(key):
        return os.environ[key], f"environment variable {key}", True
    if os.environ.get("SPARSEKM_SOLVER"):
        return os.environ["SPARSEKM_SOLVER"], "environment variable SPARSEKM_SOLVER", False
    for path in config_files():
        table = _load(path).get("solvers", {})
        if problem_class.value in table:
            return str(table[problem_class.value]), f"{path} [solvers] {problem_class.value}", True
        if "default" in table:
            return str(table["default"]), f"{path} [solvers] default", False
    return None


def configured_options(solver: str) -> dict[str, Any]:
    """Native options for ``solver`` from ``[solver_options.<name>]`` (first file wins)."""
    for path in config_files():
        opts = _load(path).get("solver_options", {}).get(solver)
        if opts:
            return dict(opts)
    return {}
