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
"""

from __future__ import annotations

import inspect
from dataclasses import replace
from typing import Any

from sparsekm.declare import Param, Spec, params_of

__all__ = ["declared_estimator", "estimator_params", "resolved"]

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
        out[new] = replace(p, name=new)
    if own is not None:
        out.update(params_of(own))
    if cmd.kind is not None:
        out["method_options"] = METHOD_OPTIONS
    return out


def _doc(cls: type, params: dict[str, Param]) -> str:
    lines = [(cls.__doc__ or "").rstrip(), "", "    Parameters", "    ----------"]
    for name, p in params.items():
        lines.append(f"    {name} : {p.describe()} (default {p.default!r})")
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
    command's rules (only those off their default count as given)."""
    from sparsekm.run import PYTHON, resolve

    cmd, given = est._command, {}
    for name, p in est._declared.items():
        if name == "method_options":
            continue
        value = getattr(est, name)
        if value is not None and _differs(value, p.default):
            given[{v: k for k, v in RENAMED.items()}.get(name, name)] = value
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


def _differs(value: Any, default: Any) -> bool:
    try:
        return bool(value != default)
    except Exception:  # noqa: BLE001 - arrays and other values that do not compare to a bool
        return True
