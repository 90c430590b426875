"""What a registered function declares besides its signature, by decorators below
:func:`sparsekm.registry.register` (which reads them when it registers the function):

* :func:`with_node_form`: a relaxation's node form, the bound a branch and bound may take;
* :func:`exportable`: the forms in which ``sparsekm export`` writes a formulation or a
  relaxation (:class:`Export`: builder, formats, integer columns, role);
* :func:`uses_solvers`: the parts of a method's work and who solves each (:class:`Part`):
  what ``--solver`` reaches and what the JSON's ``solvers`` says;
* :func:`with_plugin_options`: options a method takes from its plug-ins (``bnb`` from the
  node forms).

Nothing here imports the registry: each decorator only marks the function.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = ["CONIC_PSD", "CONIC_SOC", "KERNEL_DUAL", "NONLINEAR", "QUADRATIC", "Export", "Part",
           "exportable", "marks", "uses_solvers", "with_node_form", "with_plugin_options"]

_F = TypeVar("_F", bound=Callable[..., Any])

_NODE_ATTR = "__sparsekm_node_form__"


def with_node_form(form: Any) -> Callable[[_F], _F]:
    """Decorator (below :func:`register`): the relaxation's *node form*, the bound over a
    branch-and-bound node that a tree method may use as its node bound (:func:`node_bounds`;
    like SCIP's relaxator plug-ins)."""

    def deco(func: _F) -> _F:
        setattr(func, _NODE_ATTR, form)
        return func

    return deco


_PARTS_ATTR = "__sparsekm_parts__"
KERNEL_DUAL = "kernel-dual"     # the class of the native kernel-dual engines (smo, libsvm)


@dataclass(frozen=True)
class Part:
    """A part of a method's work and who solves it: what the JSON's ``solvers`` names and
    what ``--solver`` may change (:func:`uses_solvers`).

    what : the part in words ("node bounds", "CoP(K) (16) subproblems").
    flags : the :class:`~sparsekm.solvers.SolverPlan` fields that choose its solver, first
        given wins (``("misocp_solver", "solver")``: ``--misocp-solver``, else ``--solver``);
        empty: nothing chooses it (a native engine).
    default : what runs when none of ``flags`` is given (``"sparsekm node-ipm"``); "" means
        the solver layer's configured solver for ``classes`` and ``framework``.
    classes : the problem classes its models have (a function of the method's options when
        they decide, e.g. CoP's form), ``("kernel-dual",)`` for the native SVM engines; a
        solver named for the part must take one of them.
    framework : how its models are written (pyomo, cvxpy, matrix).
    only : the solvers it can run at all (e.g. Ipopt's route), when not every capable one.
    when : the options under which the part runs (None: always), and ``when_text`` in words.
    """

    what: str
    flags: tuple[str, ...] = ()
    default: str = ""
    classes: tuple[str, ...] | Callable[[dict[str, Any]], tuple[str, ...]] = ()
    framework: str = "pyomo"
    only: tuple[str, ...] = ()
    when: Callable[[dict[str, Any]], bool] | None = None
    when_text: str = ""

    def runs(self, options: dict[str, Any]) -> bool:
        """Whether the part runs with the method's (effective) ``options``."""
        return self.when is None or bool(self.when(options))

    def problem_classes(self, options: dict[str, Any]) -> tuple[str, ...]:
        return tuple(self.classes(options) if callable(self.classes) else self.classes)


def uses_solvers(**parts: Part) -> Callable[[_F], _F]:
    """Decorator (below :func:`register`): the parts of a method's work and who solves each
    (:class:`Part`), by name (``node_bound=Part(...)``): the run layer refuses ``--solver``
    for a method that uses it nowhere (naming what it uses), checks that a named solver can
    take the part's models, and reports ``solvers`` (part -> solver) in the JSON."""

    def deco(func: _F) -> _F:
        setattr(func, _PARTS_ATTR, parts)
        return func

    return deco


QUADRATIC = ("lp", "mps", "nl")     # a model of degree <= 2 (cones as quadratic rows)
CONIC_SOC = ("lp", "mps", "nl", "cbf")
CONIC_PSD = ("cbf",)
NONLINEAR = ("nl",)
_EXPORT_ATTR = "__sparsekm_exports__"


@dataclass(frozen=True)
class Export:
    """How ``sparsekm export`` writes a registered formulation or relaxation as a file.

    name : the ``--form`` name (unique per problem; an entry may offer several, e.g. CoP's
        bilinear and perspective forms).
    build : (problem, options) -> a Pyomo model or a CVXPY problem; ``options`` are the
        export's declared options (``M``, ``K``, ``conic``, ...) and ``seed``; a builder that
        chooses a value (a big-M) writes it back into ``options`` (the sidecar keeps it).
    formats : the file formats that can hold it (``formats_for(options)`` narrows them).
    integer : CVXPY variables written as integer columns (MISDP (13)'s z).
    role : exact, relaxation or restriction ("": the entry's kind says: a relaxation's
        bound, a formulation's optimum); a Pyomo model's own record says it when it has one.
    """

    name: str
    build: Callable[[Any, dict[str, Any]], Any]
    formats: tuple[str, ...]
    integer: tuple[str, ...] = ()
    note: str = ""
    formats_for: Callable[[dict[str, Any]], tuple[str, ...]] | None = None
    role: str = ""

    def allowed(self, options: dict[str, Any]) -> tuple[str, ...]:
        """The formats that can hold the form built with ``options``."""
        return self.formats_for(options) if self.formats_for is not None else self.formats


def exportable(*forms: Export) -> Callable[[_F], _F]:
    """Decorator (below :func:`register`): the forms in which ``sparsekm export`` writes the
    formulation or relaxation (:func:`export_forms`)."""

    def deco(func: _F) -> _F:
        setattr(func, _EXPORT_ATTR, forms)
        return func

    return deco


_PLUGIN_ATTR = "__sparsekm_plugin_options__"


def with_plugin_options(label: str, read: Callable[[], dict[str, Any]]) -> Callable[[_F], _F]:
    """Decorator (below :func:`~sparsekm.registry.register`): the method also takes the
    options its plug-ins declare (``read()``, e.g. the node forms' for ``bnb``), reached by
    name like its own (``--option factor=2``) and passed to its ``**options``; ``label``
    names them (the group of each :class:`~sparsekm.declare.Param`)."""

    def deco(func: _F) -> _F:
        setattr(func, _PLUGIN_ATTR, (label, read))
        return func

    return deco


def marks(func: Callable[..., Any]) -> dict[str, Any]:
    """What the decorators of this module marked ``func`` with (for the registry)."""
    return {"node": getattr(func, _NODE_ATTR, None),
            "exports": tuple(getattr(func, _EXPORT_ATTR, ())),
            "parts": dict(getattr(func, _PARTS_ATTR, {})),
            "plugin_options": getattr(func, _PLUGIN_ATTR, None)}
