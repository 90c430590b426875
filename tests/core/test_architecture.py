"""Architecture checks on the source of ``src/sparsekm``, read with ``ast`` (nothing imported).

(a) every module has at most MAX_LINES lines (only pure data tables may be allow-listed);
(b) every function or method has at most MAX_PARAMETERS parameters (self/cls not counted;
    keyword-only, ``*args`` and ``**kwargs`` counted);
(c) problem code lives in a per-problem subpackage or a module named for the problem: no module
    or package is named with a problem prefix (``estimators/fs_linear_cv.py`` belongs at
    ``estimators/fs_linear/cv.py``);
(d) imports go one way (cli / estimators / experiments -> algorithms -> models, relaxations
    -> solvers), module-level and inside functions alike, relative imports resolved; models
    never run the solver layer (no ``solve``, no adapter).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = "sparsekm"
MAX_LINES = 450
MAX_PARAMETERS = 8
# Pure data tables exempt from MAX_LINES (each is checked to hold no code): none today.
DATA_TABLES: frozenset[str] = frozenset()
PROBLEM_PREFIXES = ("fs_linear_", "fs_kernel_", "smkl_", "sklr_", "minmax_fs_")

# The layers, bottom up: foundations (data, kernels, parallel) < solvers (the backends) <
# engines (sparsekm's compiled algorithms) < models, relaxations < algorithms < run < cli,
# estimators, experiments.
FOUNDATIONS = ("data", "kernels", "parallel")
LOWER = ("models", "relaxations", "solvers", "engines") + FOUNDATIONS
UPPER = ("algorithms", "estimators", "cli", "experiments", "run")
# (layers of the importing module, packages they must never import)
IMPORT_RULES: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (LOWER, UPPER),
    (FOUNDATIONS, ("solvers", "engines", "models", "relaxations")),
    (("solvers",), ("engines", "models", "relaxations")),
    (("engines",), ("models", "relaxations")),
    # a model is built, never solved, below the algorithms: the read-back that solves it and
    # says what its bound certifies is sparsekm.algorithms.solve_formulation (the compiled
    # engines, for a support's exact value, stay allowed)
    (("models",), ("solvers.api", "solvers.solve", "solvers.pyomo_adapter",
                   "solvers.cvxpy_adapter", "solvers.ipopt_adapter")),
    (("algorithms",), ("estimators", "cli", "experiments", "run")),
    (("cli",), ("experiments",)),
    (("experiments",), ("cli",)),
)


@dataclass(frozen=True)
class Module:
    """One source file: its dotted name, path relative to src/, text and syntax tree."""

    name: str
    path: str
    text: str
    tree: ast.Module

    @property
    def is_package(self) -> bool:
        return self.path.endswith("__init__.py")

    @property
    def layer(self) -> str | None:
        """The first package below sparsekm (``models``, ``cli``, ...), None at top level."""
        parts = self.name.split(".")
        return parts[1] if len(parts) > 2 or (len(parts) == 2 and self.is_package) else None


@cache
def modules() -> tuple[Module, ...]:
    """Every .py file under src/sparsekm, parsed."""
    out = []
    for path in sorted((SRC / PACKAGE).rglob("*.py")):
        rel = path.relative_to(SRC)
        parts = list(rel.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        text = path.read_text(encoding="utf-8")
        out.append(Module(".".join(parts), rel.as_posix(), text,
                          ast.parse(text, filename=str(path))))
    return tuple(out)


def _report(title: str, offenders: list[str]) -> str:
    return f"{title} ({len(offenders)}):\n  " + "\n  ".join(offenders)


# --- (a) module size ---------------------------------------------------------------------------

def _is_pure_data(tree: ast.Module) -> bool:
    """Only a docstring, imports and assignments at top level; no function, class or lambda."""
    allowed = (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign)
    if not all(isinstance(node, allowed) or (isinstance(node, ast.Expr)
                                             and isinstance(node.value, ast.Constant))
               for node in tree.body):
        return False
    return not any(isinstance(node, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef,
                                     ast.ClassDef)) for node in ast.walk(tree))


def test_allow_listed_modules_are_pure_data_tables() -> None:
    """The size exemption covers data tables only: an allow-listed module holds no code."""
    by_name = {m.name: m for m in modules()}
    offenders = [name for name in sorted(DATA_TABLES)
                 if name not in by_name or not _is_pure_data(by_name[name].tree)]
    assert not offenders, _report("allow-listed modules that are missing or hold code",
                                  offenders)


def test_modules_have_at_most_450_lines() -> None:
    offenders = [f"{m.path}: {n} lines" for m in modules()
                 if m.name not in DATA_TABLES and (n := len(m.text.splitlines())) > MAX_LINES]
    assert not offenders, _report(f"modules over {MAX_LINES} lines", offenders)


# --- (b) parameters ----------------------------------------------------------------------------

def _parameter_count(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Every parameter (positional-only, positional, keyword-only, *args, **kwargs) except a
    leading self or cls."""
    a = fn.args
    positional = [p.arg for p in a.posonlyargs + a.args]
    if positional and positional[0] in ("self", "cls"):
        positional = positional[1:]
    return (len(positional) + len(a.kwonlyargs) + (a.vararg is not None)
            + (a.kwarg is not None))


def _functions(tree: ast.Module) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(qualified name, node) of every function and method, nested ones included."""
    out: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append((prefix + child.name, child))
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return out


def test_functions_have_at_most_8_parameters() -> None:
    offenders = [f"{m.path}:{fn.lineno} {name}: {n} parameters"
                 for m in modules() for name, fn in _functions(m.tree)
                 if (n := _parameter_count(fn)) > MAX_PARAMETERS]
    assert not offenders, _report(f"functions over {MAX_PARAMETERS} parameters", offenders)


# --- (c) problem code placement ----------------------------------------------------------------

def test_no_module_is_named_with_a_problem_prefix() -> None:
    """``<layer>/fs_linear_cv.py`` -> ``<layer>/fs_linear/cv.py`` (packages alike)."""
    offenders = []
    for m in modules():
        for part in m.name.split(".")[1:]:
            if part.startswith(PROBLEM_PREFIXES):
                offenders.append(f"{m.path}: '{part}'")
                break
    assert not offenders, _report("modules or packages named with a problem prefix "
                                  f"{', '.join(PROBLEM_PREFIXES)}", offenders)


# --- (d) one-way imports -----------------------------------------------------------------------

def _resolve(m: Module, node: ast.ImportFrom) -> str:
    """The absolute module of ``from <node.module> import ...`` (relative levels resolved)."""
    if not node.level:
        return node.module or ""
    base = m.name.split(".")
    if not m.is_package:
        base = base[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imported_modules(m: Module) -> list[tuple[int, str]]:
    """(line, module) of every import anywhere in the file: ``import a.b``, ``from a import
    b`` (both ``a`` and ``a.b``: b may be a submodule) and ``importlib.import_module("a.b")``
    with a literal name."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(m.tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(m, node)
            out.append((node.lineno, base))
            out += [(node.lineno, f"{base}.{alias.name}") for alias in node.names
                    if alias.name != "*"]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute | ast.Name)
              and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
              and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)):
            out.append((node.lineno, node.args[0].value))
    return out


def _imports_package(target: str, package: str) -> bool:
    full = f"{PACKAGE}.{package}"
    return target == full or target.startswith(full + ".")


def layering_offenders(mods: tuple[Module, ...]) -> list[str]:
    """``path:line (layer) imports module`` for each import statement against IMPORT_RULES."""
    found: dict[tuple[str, int], str] = {}      # one entry per import statement
    for m in mods:
        for importers, forbidden in IMPORT_RULES:
            if m.layer not in importers:
                continue
            for line, target in imported_modules(m):
                if any(_imports_package(target, f) for f in forbidden):
                    found.setdefault((m.path, line), f"({m.layer}) imports {target}")
    return [f"{path}:{line} {what}" for (path, line), what in sorted(found.items())]


def test_imports_go_one_way() -> None:
    """Foundations (data, kernels, parallel) import no solver, engine, model or relaxation;
    solvers (the backends) import no engine, model or relaxation; engines no model or
    relaxation; models no solve and no solver adapter; models, relaxations, solvers, engines
    and the foundations never import algorithms, estimators, cli, experiments or run;
    algorithms never import estimators, cli, experiments or run; cli and experiments never
    import each other (both may import run)."""
    offenders = layering_offenders(modules())
    assert not offenders, _report("imports against the layering", offenders)


def test_the_checks_see_the_source() -> None:
    """Guard against a vacuous pass: the tree is found and the resolver works."""
    names = {m.name for m in modules()}
    assert {"sparsekm", "sparsekm.engines.perspective.ipm", "sparsekm.cli"} <= names
    probe = Module("sparsekm.relaxations.smkl.conic", "sparsekm/relaxations/smkl/conic.py", "",
                   ast.parse("from ..x import y\nfrom . import z\nfrom ...algorithms import a"))
    assert [t for _, t in imported_modules(probe)] == [
        "sparsekm.relaxations.x", "sparsekm.relaxations.x.y", "sparsekm.relaxations.smkl",
        "sparsekm.relaxations.smkl.z", "sparsekm.algorithms", "sparsekm.algorithms.a"]
    assert probe.layer == "relaxations"
    inside = Module("sparsekm.models.probe", "sparsekm/models/probe.py", "", ast.parse(
        "def f():\n    import importlib\n    from .. import run\n"
        "    importlib.import_module('sparsekm.cli.app')\n"
        "    from sparsekm.solvers import ProblemClass, solve\n"))
    assert layering_offenders((probe, inside)) == [
        "sparsekm/models/probe.py:3 (models) imports sparsekm.run",
        "sparsekm/models/probe.py:4 (models) imports sparsekm.cli.app",
        "sparsekm/models/probe.py:5 (models) imports sparsekm.solvers.solve",
        "sparsekm/relaxations/smkl/conic.py:3 (relaxations) imports sparsekm.algorithms"]


def test_the_cli_starts_without_the_conic_modelling_layer() -> None:
    """Start-up counts against --time-limit: importing the CLI must not import cvxpy (2.0 s of
    a 3.1 s import on the loaded 2-core machine, when the solver table imported it) nor
    Pyomo; they load at the first model that needs them."""
    import subprocess
    import sys

    code = ("import sys, sparsekm.cli.app; "
            "print(sorted(m for m in ('cvxpy', 'pyomo.environ') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"
