"""Estimators built from the declarations: their parameters are the command's own.

A sparsekm estimator takes exactly the parameters of its command (``sparsekm solve
PROBLEM``) that make sense on arrays: the problem's parameters, the method, the methods'
flag options, the solver plan's parameters, ``solver``, ``time_limit``, ``random_state`` (the
run's ``seed``) and ``method_options`` (any other declared option of the method). The
``__init__`` (scikit-learn reads its signature), the defaults and the docstring's Parameters
section are generated from :meth:`~sparsekm.run.command.Command.params`, and ``fit`` checks the
values with the same rules as the CLI (:func:`sparsekm.run.resolve`): a bad value is a
``ValueError`` naming the parameter (``C=0: give a finite number >= 1e-08 ...``). One
difference, scikit-learn's convention: a method's option that the chosen method does not take
is ignored (an rbf SVC ignores ``degree``), so that a grid search over methods works; the CLI
refuses it.

Given means given. A method's option defaults to the sentinel ``"auto"`` (scikit-learn's
``dual="auto"``): the chosen method's own default, which may differ between methods
(``n_samples``: 100 for paper A's ``bnb``, 500 for ``ls-star``). Any other value counts as
given, a value equal to some declared default included, and reaches the method.
"""

from __future__ import annotations

import inspect
from dataclasses import replace
from typing import Any

from sparsekm.declare import Param, Spec, params_of

__all__ = ["METHOD_DEFAULT", "declared_estimator", "estimator_params", "resolved"]

METHOD_DEFAULT = "auto"   # a method option left to the chosen method's own default
RUN_KEPT = ("solver", "time_limit", "seed")
RENAMED = {"seed": "random_state"}
METHOD_OPTIONS = Param("method_options", dict | None, None,
                       Spec("Any other declared option of the method, by name "
                            "(`sparsekm methods PROBLEM --json` lists them)."))


def estimator_params(cmd: Any, own: type | None = None,
                     exclude: tuple[str, ...] = ()) -> dict[str, Param]:
    """The estimator's parameters: ``cmd``'s (see the module docstring, less ``exclude``),
    then ``own``'s."""
    groups, out = cmd.groups(), {}
    for name, p in cmd.params().items():
        if (groups[name] == "run" and name not in RUN_KEPT) or name in exclude:
            continue
        new = RENAMED.get(name, name)
        default = METHOD_DEFAULT if groups[name] == "option" else p.default
        out[new] = replace(p, name=new, default=default)
    if own is not None:
        out.update(params_of(own))
    if cmd.kind is not None:
        out["method_options"] = METHOD_OPTIONS
    return out


def _doc(cls: type, params: dict[str, Param]) -> str:
    lines = [(cls.__doc__ or "").rstrip(), "", "    Parameters", "    ----------"]
    for name, p in params.items():
        default = "'auto': the chosen method's own" if p.default == METHOD_DEFAULT else \
            repr(p.default)
        lines.append(f"    {name} : {p.describe()} (default {default})")
        lines.append(f"        {p.help}")
    return "\n".join(lines) + "\n"


def declared_estimator(action: str, problem: str, own: type | None = None,
                       exclude: tuple[str, ...] = ()) -> Any:
    """Class decorator: ``__init__`` and the Parameters of ``sparsekm ACTION PROBLEM``
    (less ``exclude``; plus ``own``, a dataclass of the estimator's own parameters)."""

    def deco(cls: type) -> type:
        from sparsekm.run import command

        cmd = command(action, problem)
        params = estimator_params(cmd, own, exclude)
        sig = inspect.Signature(
            [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
            + [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=p.default)
               for n, p in params.items()])

        def __init__(self: Any, **kwargs: Any) -> None:  # noqa: N807 - generated
            bound = sig.bind(self, **kwargs)
            bound.apply_defaults()
            for name, value in list(bound.arguments.items())[1:]:
                setattr(self, name, value)

        __init__.__signature__ = sig  # type: ignore[attr-defined]
        __init__.__doc__ = f"Parameters of `sparsekm {action} {problem}` (see the class)."
        cls.__init__ = __init__
        cls.__doc__ = _doc(cls, params)
        cls._command = cmd
        cls._declared = params
        return cls

    return deco


def resolved(est: Any) -> Any:
    """The estimator's :class:`~sparsekm.run.resolve.Call`: its parameters checked by the
    command's rules. Every value passed counts as given (a method option left at ``"auto"``
    does not: the chosen method's own default applies); None is the default of every other
    parameter that takes it."""
    from sparsekm.run import PYTHON, resolve

    cmd, given = est._command, {}
    groups = cmd.groups()
    for name in est._declared:
        if name == "method_options":
            continue
        value = getattr(est, name)
        key = {v: k for k, v in RENAMED.items()}.get(name, name)
        if _is_sentinel(value) or (value is None and groups.get(key) != "option"):
            continue
        given[key] = value
    own = {k: est._declared[k].check(given.pop(k)) for k in list(given)
           if k not in cmd.params()}
    entry = _entry(cmd, given.get(cmd.kind, cmd.default_choice())) if cmd.kind else None
    if entry is not None:   # a parameter the chosen method does not take is ignored, as
        given = {k: v for k, v in given.items()   # scikit-learn's SVC ignores degree for
                 if k == cmd.kind or cmd.applies(k, entry)}   # an rbf kernel
    call = resolve(cmd, given, est.method_options or {}, PYTHON)
    return call, own


def _entry(cmd: Any, method: Any) -> Any:
    """The registered ``method`` (None for an unknown one: resolve reports it)."""
    try:
        return cmd.entry(method)
    except (ValueError, TypeError):
        return None


def _is_sentinel(value: Any) -> bool:
    """The value is :data:`METHOD_DEFAULT` (an array or any other value is not)."""
    return isinstance(value, str) and value == METHOD_DEFAULT
