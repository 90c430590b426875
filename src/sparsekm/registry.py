"""One registry of problems, formulations, relaxations, cuts and methods, with their papers.

Every problem class registers itself with :func:`register_problem`; every formulation,
relaxation, cut and method with :func:`register`, giving its paper and its equation or algorithm
number. The CLI's choices and help, ``sparsekm solve/relax`` dispatch, the estimators' ``method=``
validation and the README's method tables all read this registry, so adding a relaxation is one
new module (found by :func:`discover`) plus its test.

>>> from sparsekm import registry
>>> registry.names("fs-linear", "relaxation")        # doctest: +SKIP
['box', 'dscomp', 'dscop', ...]
>>> registry.get("fs-linear", "method", "exact").citation   # doctest: +SKIP
'paper D, Algorithm 4'
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from .entry_marks import (  # noqa: F401 - the decorators and types, as registry.<name>
    CONIC_PSD,
    CONIC_SOC,
    KERNEL_DUAL,
    NONLINEAR,
    QUADRATIC,
    Export,
    Part,
    exportable,
    marks,
    uses_solvers,
    with_node_form,
    with_plugin_options,
)

KINDS = ("formulation", "relaxation", "cut", "method")
LAYERS = ("models", "relaxations", "algorithms")

PAPERS = {
    "A": "D'Onofrio, Faenza, Palagi: Combinatorial approaches for embedded feature selection "
         "in nonlinear SVMs",
    "B": "Sparse multiple kernel learning: alternating best response and semidefinite "
         "relaxations",
    "C": "Sparse kernel logistic regression by SMO",
    "D": "Bomze, D'Onofrio, Palagi, Peng: Feature selection in linear SVMs via a hard "
         "cardinality constraint: a scalable conic decomposition approach",
    "E": "Min-max feature weighting for nonlinear SVMs",
}

_F = TypeVar("_F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Entry:
    """A registered formulation, relaxation, cut or method."""

    problem: str
    kind: str
    name: str
    func: Callable[..., Any]
    paper: str
    ref: str
    summary: str
    problem_class: str | None = None
    aliases: tuple[str, ...] = ()
    warm_up: Callable[[], Any] | None = None
    node: Any = None     # a relaxation's node form (a branch and bound's node bound), if any
    exports: tuple[Export, ...] = ()   # how ``sparsekm export`` writes it (:func:`exportable`)
    plugin_options: tuple[str, Callable[[], dict[str, Any]]] | None = None
    parts: dict[str, Part] = dataclasses.field(default_factory=dict)  # :func:`uses_solvers`

    @property
    def citation(self) -> str:
        """``"paper D, eq. (7)"`` (or the outside reference as given)."""
        return f"paper {self.paper}, {self.ref}" if self.paper in PAPERS else \
            f"{self.paper}, {self.ref}"

    @property
    def params(self) -> dict[str, Any]:
        """The declared options (:class:`~sparsekm.declare.Param`), flat: keyword-only
        parameters of ``func``, a dataclass group (such as paper D's ``Search``) expanded into
        its fields."""
        import dataclasses as dc

        from sparsekm.declare import params_of

        out = params_of(self.func)
        if self.plugin_options is not None:      # options of the plug-ins it takes
            group, read = self.plugin_options
            for name, p in read().items():
                out.setdefault(name, dc.replace(p, group=group))
        return out

    @property
    def options(self) -> dict[str, Any]:
        """The options and their defaults, flat (see :attr:`params`)."""
        return {name: p.default for name, p in self.params.items()}

    @property
    def gap_tol(self) -> float:
        """The tolerance at which the method counts its incumbent optimal: its ``gap_tol``
        option's default, else the solver layer's default."""
        from sparsekm.solvers.result import DEFAULT_GAP_TOL

        p = self.params.get("gap_tol")
        return DEFAULT_GAP_TOL if p is None or p.default is None else float(p.default)

    def bind(self, **flat: Any) -> dict[str, Any]:
        """Flat options (as :attr:`params` lists them) regrouped into ``func``'s keywords; a
        whole group may also be given by its own keyword (``search=Search(k=3)``), and flat
        options of that group then change it."""
        params = self.params
        groups_given = {k: flat.pop(k) for k in list(flat)
                        if k not in params and k in self._groups()}
        unknown = sorted(set(flat) - set(params))
        if unknown:
            raise ValueError(f"{self.kind} {self.name!r} of {self.problem} takes no option "
                             f"{', '.join(unknown)}; its options: "
                             f"{', '.join(params) or 'none'}")
        kwargs: dict[str, Any] = dict(groups_given)
        grouped: dict[str, dict[str, Any]] = {}
        for name, value in flat.items():
            group = params[name].group
            if group is None:
                kwargs[name] = value
            else:
                grouped.setdefault(group, {})[name] = value
        for group, values in grouped.items():
            if group not in self._groups():     # a plug-in's options: as keywords (**options)
                kwargs.update(values)
                continue
            base = kwargs.get(group, self._groups()[group])
            kwargs[group] = dataclasses.replace(base, **values)
        return kwargs

    def _groups(self) -> dict[str, Any]:
        """``func``'s option groups: keyword -> its default (a dataclass instance)."""
        return {p.name: p.default for p in inspect.signature(self.func).parameters.values()
                if dataclasses.is_dataclass(p.default) and not isinstance(p.default, type)}

    def check(self, options: dict[str, Any]) -> dict[str, Any]:
        """``options`` checked by their declarations: an unknown name or a bad value is a
        :class:`~sparsekm.declare.ParamError` naming the option (and the known ones)."""
        from sparsekm.declare import ParamError

        params = self.params
        unknown = sorted(set(options) - set(params))
        if unknown:
            raise ParamError(unknown[0], options[unknown[0]],
                             f"{self.kind} {self.name} of {self.problem} takes no option "
                             f"{unknown[0]!r}; its options: {', '.join(params) or 'none'}")
        return {k: params[k].check(v) for k, v in options.items()}

    def run(self, *args: Any, **flat: Any) -> Any:
        """Call ``func(*args)`` with flat options (see :meth:`bind`)."""
        return self.func(*args, **self.bind(**flat))

    __call__ = run


@dataclass(frozen=True)
class ProblemInfo:
    """A registered problem: its name, class, paper, title and default method."""

    name: str
    cls: type
    paper: str
    title: str
    method: str | None = None
    relaxation: str | None = None


_ENTRIES: dict[tuple[str, str, str], Entry] = {}
_ALIASES: dict[tuple[str, str, str], str] = {}
_PROBLEMS: dict[str, ProblemInfo] = {}
_DISCOVERED = False


def _key(name: str) -> str:
    return name.strip().lower().replace("_", "-")


def register(problem: str, kind: str, name: str, *, paper: str, ref: str,
             problem_class: str | None = None, aliases: tuple[str, ...] = (),
             warm_up: Callable[[], Any] | None = None) -> Callable[[_F], _F]:
    """Decorator: register ``func`` as the ``kind`` named ``name`` of ``problem``.

    The summary is the first line of the docstring; ``problem_class`` (e.g. "MIQP",
    "SOCP") says what a solver must handle; ``aliases`` are alternative names; ``warm_up``
    loads the compiled code ``func`` uses (numba caches, libsvm) by a call on a tiny problem,
    so that the CLI can do it before its clock starts (:func:`load_compiled`). The options
    are ``func``'s keyword-only parameters, each declared in its signature
    (:mod:`sparsekm.declare`); a ``gap_tol`` option is the method's tolerance. A relaxation
    decorated by :func:`with_node_form` below ``register`` carries its node form.
    What the decorators of :mod:`sparsekm.entry_marks` below it declare (node form, export
    forms, solver parts, plug-in options) goes into the entry.
    """
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r}: use one of {KINDS}")

    def deco(func: _F) -> _F:
        key = (_key(problem), kind, _key(name))
        doc = (inspect.getdoc(func) or "").split("\n")[0].strip()
        m = marks(func)
        if m["node"] is not None and kind != "relaxation":
            raise ValueError(f"{kind} {name!r}: only a relaxation has a node form")
        if m["exports"] and kind not in ("formulation", "relaxation"):
            raise ValueError(f"{kind} {name!r}: only a formulation or a relaxation is exported")
        entry = Entry(key[0], kind, key[2], func, paper, ref, doc, problem_class,
                      tuple(_key(a) for a in aliases), warm_up, m["node"], m["exports"],
                      m["plugin_options"], m["parts"])
        old = _ENTRIES.get(key)
        if old is not None and (old.func.__module__, old.func.__qualname__) != \
                (func.__module__, func.__qualname__):
            raise ValueError(f"{kind} {name!r} of {problem} is registered twice "
                             f"({old.func.__module__} and {func.__module__})")
        _ENTRIES[key] = entry
        for a in entry.aliases:
            _ALIASES[(key[0], kind, a)] = key[2]
        return func

    return deco


def export_forms(problem: str) -> dict[str, tuple[Entry, Export]]:
    """Every exportable form of ``problem``'s formulations and relaxations, by ``--form``
    name: (its entry, its export)."""
    out: dict[str, tuple[Entry, Export]] = {}
    for kind in ("formulation", "relaxation"):
        for e in entries(problem, kind):
            for form in e.exports:
                if form.name in out:
                    raise ValueError(f"export form {form.name!r} of {problem} is declared by "
                                     f"{out[form.name][0].name} and {e.name}")
                out[form.name] = (e, form)
    return out


_WARM: set[tuple[str, str, str]] = set()


def load_compiled(entry: Entry) -> float:
    """Run ``entry.warm_up`` once per process; the seconds it took (0 when none or done).

    Loading is a cost of the process, not of a solve: numba's first use alone took 0.23 s
    and the cached overloads of paper D's ``fast`` 0.3 s more in a fresh process (measured),
    as much as the whole search on a 62 x 2000 instance. The CLI reports it as ``load_s``.
    """
    key = (entry.problem, entry.kind, entry.name)
    if entry.warm_up is None or key in _WARM:
        return 0.0
    import time

    t0 = time.perf_counter()
    entry.warm_up()
    _WARM.add(key)
    return time.perf_counter() - t0


def warm_up_all() -> dict[str, float]:
    """Run every registered ``warm_up`` once: numba compiles their code into its on-disk
    cache, so that later processes only load it. Set-up (``make install``) calls it: on a
    cold cache the first ``bnb`` run on colorectal spent 16 s compiling, past a 5 s
    ``--time-limit`` (``benchmarks/results/time_limits_no_warm_up.jsonl``). Returns the
    seconds per entry."""
    return {f"{e.problem} {e.kind} {e.name}": load_compiled(e) for e in entries()
            if e.warm_up is not None}


def register_problem(name: str, *, paper: str, title: str, method: str | None = None,
                     relaxation: str | None = None) -> Callable[[type], type]:
    """Class decorator: register a problem class under ``name`` (e.g. ``"fs-linear"``) with its
    default ``method`` and ``relaxation`` (the CLI's, the estimators' and the Python front
    doors')."""

    def deco(cls: type) -> type:
        _PROBLEMS[_key(name)] = ProblemInfo(_key(name), cls, paper, title, method, relaxation)
        cls.problem_name = _key(name)
        return cls

    return deco


def discover() -> None:
    """Import every module of the problem subpackages of models/, relaxations/, algorithms/.

    Modules import Pyomo and CVXPY inside their functions, so this is cheap; it runs once.
    """
    global _DISCOVERED
    if _DISCOVERED:
        return
    for layer in LAYERS:
        pkg = importlib.import_module(f"sparsekm.{layer}")
        for info in pkgutil.walk_packages(pkg.__path__, prefix=f"{pkg.__name__}."):
            importlib.import_module(info.name)
    _DISCOVERED = True


def problems() -> dict[str, ProblemInfo]:
    """Registered problems by name."""
    discover()
    return dict(sorted(_PROBLEMS.items()))


def problem(name: str) -> ProblemInfo:
    """The registered problem ``name``; ValueError lists the known ones."""
    known = problems()
    try:
        return known[_key(name)]
    except KeyError:
        raise ValueError(f"unknown problem {name!r}; choose one of {', '.join(known)}") from None


def entries(problem: str | None = None, kind: str | None = None) -> list[Entry]:
    """Registered entries, optionally of one problem and one kind, sorted by name."""
    discover()
    out = [e for (p, k, _), e in _ENTRIES.items()
           if (problem is None or p == _key(problem)) and (kind is None or k == kind)]
    return sorted(out, key=lambda e: (e.problem, KINDS.index(e.kind), e.name))


def names(problem: str, kind: str) -> list[str]:
    """Names of the ``kind`` entries of ``problem``."""
    return [e.name for e in entries(problem, kind)]


def get(problem: str, kind: str, name: str) -> Entry:
    """The entry ``name`` (or alias) of ``problem``; ValueError lists the valid names."""
    discover()
    p, n = _key(problem), _key(name)
    n = _ALIASES.get((p, kind, n), n)
    try:
        return _ENTRIES[(p, kind, n)]
    except KeyError:
        valid = ", ".join(names(problem, kind)) or "none registered"
        raise ValueError(f"unknown {kind} {name!r} for {problem}; choose one of: {valid}") \
            from None


def defaults(name: str, kind: str = "method") -> dict[str, Any]:
    """Problem ``name``'s parameter defaults and every ``kind`` entry's option defaults, merged
    (the CLI and the estimators read their defaults here, so they agree)."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(problem(name).cls):
        if f.default is not dataclasses.MISSING:
            out[f.name] = f.default
    for e in entries(name, kind):
        for key, val in e.options.items():
            out.setdefault(key, val)
    return out


def node_bounds(problem: str) -> list[Entry]:
    """The relaxations of ``problem`` that declare a node form (:func:`with_node_form`),
    sorted by name: the node bounds a branch and bound of that problem may take."""
    return [e for e in entries(problem, "relaxation") if e.node is not None]


def node_bound_names(problem: str) -> tuple[str, ...]:
    """Every name (and alias) of :func:`node_bounds` of ``problem`` (a declared choice)."""
    return tuple(n for e in node_bounds(problem) for n in (e.name, *e.aliases))


def node_form_params(problem: str) -> dict[str, Any]:
    """The options the node forms of ``problem`` declare (a node form that is a dataclass:
    its declared fields), by name, each under its first declaration; a tree method takes
    them for the node bound it runs (:func:`register`'s ``plugin_options``)."""
    from sparsekm.declare import params_of

    out: dict[str, Any] = {}
    for e in node_bounds(problem):
        if dataclasses.is_dataclass(e.node):
            for name, p in params_of(type(e.node)).items():
                out.setdefault(name, p)
    return out


def node_bound_help(problem: str) -> str:
    """The help of a tree method's ``node_bound`` option, from the registry: each node bound
    with its reference and summary, and the options it takes."""
    from sparsekm.declare import params_of

    parts = []
    for e in node_bounds(problem):
        alias = f" (alias {', '.join(e.aliases)})" if e.aliases else ""
        opts = params_of(type(e.node)) if dataclasses.is_dataclass(e.node) else {}
        takes = f"; options {', '.join(opts)}" if opts else ""
        parts.append(f"{e.name}{alias}: {e.citation}{takes}")
    return "Node bound, a relaxation with a node form: " + "; ".join(parts) + "."


def choices_help(problem: str, kind: str) -> str:
    """``"a|b|c"`` for a CLI option's help text."""
    return "|".join(names(problem, kind))


def markdown(problem: str | None = None) -> str:
    """The registry as a Markdown table: one row per entry with its paper reference."""
    rows = ["| problem | kind | name | reference | class | what it is |",
            "|---|---|---|---|---|---|"]
    for e in entries(problem):
        cells = [e.problem, e.kind, f"`{e.name}`", e.citation, e.problem_class or "",
                 e.summary]
        rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(rows)

