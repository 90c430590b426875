"""One call to solve any model with any capable solver: :func:`solve`."""

from __future__ import annotations

from typing import Any

from .backends import BACKENDS, canonical_name
from .classify import classify, framework_of
from .config import PREFERENCE, configured_options, configured_solver, preference
from .errors import SolverCapabilityError, SolverNotAvailableError
from .limits import explain_failure
from .native import NATIVE_SOLVERS, native_rows
from .result import Result
from .types import ProblemClass, SolverOptions


def usable_solvers(problem_class: ProblemClass | None = None,
                   framework: str | None = None) -> list[str]:
    """Installed and licensed solvers (preference order), optionally filtered by capability."""
    out = []
    for name in preference(framework):
        b = BACKENDS[name]
        if not b.availability().usable:
            continue
        adapters = [b.adapters[framework]] if framework in b.adapters else (
            [] if framework else list(b.adapters.values()))
        if adapters and (problem_class is None
                         or any(ProblemClass(problem_class) in a.classes for a in adapters)):
            out.append(name)
    return out




def check_solver(solver: str) -> str:
    """The registry name of ``solver`` when it is known, installed and licensed (or a native
    engine, :data:`NATIVE_SOLVERS`); otherwise SolverNotAvailableError naming the known or the
    usable solvers. Whether the chosen method can use it is the method's to say."""
    name = canonical_name(solver)
    if name in NATIVE_SOLVERS:
        return name
    if name not in BACKENDS:
        raise SolverNotAvailableError(
            f"unknown solver {solver!r}; known: {', '.join([*BACKENDS, *NATIVE_SOLVERS])} "
            f"(usable here: {', '.join(usable_solvers())})")
    avail = BACKENDS[name].availability()
    if not avail.usable:
        why = "not installed" if not avail.installed else "not licensed"
        raise SolverNotAvailableError(f"solver {solver!r} is {why} ({avail.note}); usable "
                                      f"here: {', '.join(usable_solvers())}")
    return name


def certifying_solvers(problem_class: ProblemClass | str, framework: str = "cvxpy") -> list[str]:
    """Usable solvers whose optimum of a ``problem_class`` model is a certified bound (an
    interior-point duality gap or a global solver), unlike a first-order solver's value."""
    pc = ProblemClass(str(problem_class).upper())
    return [n for n in usable_solvers(pc, framework)
            if getattr(BACKENDS[n].adapters[framework], "certifies", True)]


def supports(solver: str, problem_class: ProblemClass | str, framework: str) -> bool:
    """True when the (known) solver declares ``problem_class`` for ``framework`` models."""
    b = BACKENDS.get(canonical_name(solver))
    adapter = b.adapters.get(framework) if b else None
    return adapter is not None and ProblemClass(str(problem_class).upper()) in adapter.classes


def _capable_text(problem_class: ProblemClass, framework: str) -> str:
    names = usable_solvers(problem_class, framework)
    return ", ".join(names) if names else "none installed"


def _from(source: str) -> str:
    """Where a configured solver name came from (an environment variable, a config file); a
    name passed by the caller is shown by its front door (``--solver`` on the CLI)."""
    return f" (from {source})" if source else ""


def resolve_solver(problem_class: ProblemClass, framework: str,
                   solver: str | None = None) -> str:
    """The backend name to use; raises a clear error when none fits."""
    source, strict = "", True     # asked for by name: the caller's front door says how
    if solver is None:
        conf = configured_solver(problem_class)
        if conf is not None:
            solver, source, strict = conf
    if solver is not None:
        name = canonical_name(solver)
        if name not in BACKENDS:
            raise SolverNotAvailableError(
                f"unknown solver {solver!r}{_from(source)}; known: {', '.join(BACKENDS)}. "
                f"Installed solvers for {problem_class} {framework} models: "
                f"{_capable_text(problem_class, framework)}")
        b = BACKENDS[name]
        adapter = b.adapters.get(framework)
        capable = adapter is not None and problem_class in adapter.classes
        avail = b.availability()
        if strict or (capable and avail.usable):
            if not avail.installed:
                raise SolverNotAvailableError(
                    f"solver {b.display}{_from(source)} is not installed: {avail.note}. "
                    f"Installed solvers for {problem_class} {framework} models: "
                    f"{_capable_text(problem_class, framework)}")
            if not avail.licensed:
                raise SolverNotAvailableError(
                    f"solver {b.display}{_from(source)} is installed but not licensed: "
                    f"{avail.note}. Usable solvers for {problem_class} {framework} models: "
                    f"{_capable_text(problem_class, framework)}")
            if not capable:
                what = (f"{problem_class} models" if adapter is not None
                        else f"{framework} models")
                raise SolverCapabilityError(
                    f"solver {b.display}{_from(source)} cannot handle {what} through "
                    f"{framework}; installed solvers that can: "
                    f"{_capable_text(problem_class, framework)}")
            return name
    names = usable_solvers(problem_class, framework)
    if not names:
        raise SolverCapabilityError(
            f"no installed solver handles {problem_class} {framework} models; install one of: "
            + ", ".join(n for n in PREFERENCE
                        if framework in BACKENDS[n].adapters
                        and problem_class in BACKENDS[n].adapters[framework].classes))
    return names[0]


COMMON_OPTIONS = ("time_limit", "mip_gap", "threads", "verbose", "warm_start")


def solve(model: Any, solver: str | None = None, *,
          problem_class: ProblemClass | str | None = None, **options: Any) -> Result:
    """Solve a Pyomo model or a CVXPY problem with ``solver`` (or the configured default).

    Parameters
    ----------
    model : pyomo ConcreteModel, cvxpy.Problem, :class:`CallbackNLP` or :class:`ConicQP`
    solver : name such as ``"scip"``, ``"highs"``, ``"clarabel"``, ``"gurobi"``; None uses
        the configured default for the model's class (see :mod:`sparsekm.solvers.config`).
    problem_class : override the detected/declared class.
    **options : ``time_limit``, ``mip_gap``, ``threads``, ``verbose``, ``warm_start`` (the
        common options of :class:`SolverOptions`, mapped per solver); any other name is a
        native solver parameter, passed through unchanged.

    Returns
    -------
    Result
        A time limit returns termination ``time_limit`` with the incumbent and bound when the
        solver has them; a solver failure returns status ``error`` with its message.
    """
    framework = framework_of(model)
    pc = ProblemClass(str(problem_class).upper()) if problem_class else classify(model)
    name = resolve_solver(pc, framework, solver)
    backend = BACKENDS[name]
    common = {k: options.pop(k) for k in COMMON_OPTIONS if k in options}
    options = SolverOptions(**common, extra={**configured_options(name), **options})
    avail = backend.availability()
    try:
        res = backend.adapters[framework].solve(model, options, pc, backend.display,
                                                avail.version)
    except SolverNotAvailableError as exc:  # a licence refused the model: say which limit
        raise SolverNotAvailableError(_licence_text(name, model, framework, pc)
                                      or str(exc)) from exc
    if res.status.value == "error" and (why := _licence_text(name, model, framework, pc)):
        raise SolverNotAvailableError(why)
    adapter = backend.adapters[framework]
    if res.has_solution and res.bound is None and not getattr(adapter, "certifies", True):
        others = ", ".join(certifying_solvers(pc, framework)) or "none installed"
        res.message = f"{res.message}; solvers that certify {pc} models: {others}"
    return res


def _licence_text(name: str, model: Any, framework: str, pc: ProblemClass) -> str | None:
    notes = {n: BACKENDS[n].availability().note for n in BACKENDS}
    return explain_failure(name, notes, model, framework, usable_solvers(pc, framework))


def solver_table() -> list[dict[str, Any]]:
    """One row per registered solver: name, installed, licensed, version, classes, note."""
    rows = []
    for name, b in BACKENDS.items():
        a = b.availability()
        rows.append({
            "name": name, "display": b.display, "installed": a.installed,
            "licensed": a.licensed, "usable": a.usable, "version": a.version,
            "classes": sorted(c.value for c in b.classes),
            "frameworks": {fw: sorted(c.value for c in ad.classes)
                           for fw, ad in b.adapters.items()},
            "commercial": b.commercial, "note": a.note,
        })
    return rows + native_rows()
