"""The keyword options of a registered method or relaxation, typed from its signature.

One place turns ``NAME=VALUE`` strings (``sparsekm solve ... --option gap_tol=0.5``, a bench
grid's ``[grid.options]``) and Python values (an estimator's ``options={...}``) into the
function's own keyword options: the names are the entry's :attr:`~sparsekm.registry.Entry.options`
(keyword-only parameters, dataclass groups flattened), the types its annotations. A new option
declared in a method's signature is reachable everywhere without another edit.

>>> from sparsekm import registry
>>> from sparsekm.options import parse_options
>>> parse_options(registry.get("fs-linear", "method", "bnb"), ["gap_tol=0.5"])  # doctest: +SKIP
{'gap_tol': 0.5}
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import typing
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

__all__ = ["OptionError", "option_types", "parse_options", "validate_options"]

NONE_WORDS = ("none", "null")


class OptionError(ValueError):
    """An option that the registered function does not take, or a value of the wrong type."""


def _hints(obj: Any) -> dict[str, Any]:
    try:
        return typing.get_type_hints(obj)
    except Exception:  # noqa: BLE001 - an annotation that does not resolve: typed by default
        return {}


def _from_default(value: Any) -> Any:
    return type(value) if isinstance(value, bool | int | float | str) else Any


def option_types(entry: Any) -> dict[str, Any]:
    """Option name -> its annotation (or the default's type; ``Any`` when unknown)."""
    hints = _hints(entry.func)
    out: dict[str, Any] = {}
    for p in inspect.signature(entry.func).parameters.values():
        if p.kind is not inspect.Parameter.KEYWORD_ONLY:
            continue
        if dataclasses.is_dataclass(p.default):
            group = _hints(type(p.default))
            for f in dataclasses.fields(p.default):
                out[f.name] = group.get(f.name, _from_default(getattr(p.default, f.name)))
        else:
            out[p.name] = hints.get(p.name, _from_default(p.default))
    return out


def _allows_none(tp: Any) -> bool:
    return tp is Any or type(None) in typing.get_args(tp)


def _coerce(tp: Any, value: Any) -> Any:
    """``value`` as type ``tp`` (pydantic's lax rules: "0.5" -> 0.5, "yes" -> True); types
    pydantic cannot describe (numpy arrays) take the value as given."""
    from pydantic import TypeAdapter
    from pydantic.errors import PydanticSchemaGenerationError

    if tp is Any:
        return value
    try:
        adapter = TypeAdapter(tp)
    except PydanticSchemaGenerationError:
        return value
    return adapter.validate_python(value)


def _describe(entry: Any) -> str:
    return f"{entry.kind} {entry.name!r} of {entry.problem}"


def _known(entry: Any) -> str:
    return ", ".join(entry.options) or "none"


def _check(entry: Any, name: str, value: Any, shown: str, types: Mapping[str, Any]) -> Any:
    from pydantic import ValidationError

    if name not in types:
        raise OptionError(f"{shown}: {_describe(entry)} takes no option {name!r}; its options: "
                          f"{_known(entry)}")
    tp = types[name]
    if isinstance(value, np.generic):
        value = value.item()
    if value is None and _allows_none(tp):
        return None
    try:
        return _coerce(tp, value)
    except ValidationError as exc:
        want = getattr(tp, "__name__", None) or str(tp).replace("typing.", "")
        why = exc.errors()[0]["msg"] if exc.errors() else str(exc)
        raise OptionError(f"{shown}: {name} of {_describe(entry)} takes {want} ({why})") \
            from None


def parse_options(entry: Any, items: Iterable[str], flag: str = "--option") -> dict[str, Any]:
    """``["NAME=VALUE", ...]`` -> typed keyword options of ``entry`` (a later NAME wins).

    VALUE is read as the option's annotated type; ``none`` / ``null`` give None where the
    option allows it; an untyped option takes JSON (``[1, 2]``, ``0.5``) or the plain string.
    :class:`OptionError` names ``flag``, the option and the known ones.
    """
    types = option_types(entry)
    out: dict[str, Any] = {}
    for item in items:
        name, sep, raw = str(item).partition("=")
        name = name.strip()
        shown = f"{flag} {item}"
        if not sep or not name:
            raise OptionError(f"{shown}: write NAME=VALUE (options of {_describe(entry)}: "
                              f"{_known(entry)})")
        raw = raw.strip()
        tp = types.get(name)
        if raw.lower() in NONE_WORDS and (tp is None or _allows_none(tp)):
            value: Any = None
        elif tp is Any or (tp is not None and not _is_scalar(tp)):
            try:
                value = json.loads(raw)
            except ValueError:
                value = raw
        else:
            value = raw
        out[name] = _check(entry, name, value, shown, types)
    return out


def _is_scalar(tp: Any) -> bool:
    args = [a for a in typing.get_args(tp) if a is not type(None)] or [tp]
    return all(a in (bool, int, float, str) for a in args)


def validate_options(entry: Any, values: Mapping[str, Any] | None,
                     where: str = "options") -> dict[str, Any]:
    """Python values of ``entry``'s options checked and converted (``{"gap_tol": 1}`` ->
    ``{"gap_tol": 1.0}``); :class:`OptionError` names ``where``, the option, the known ones."""
    types = option_types(entry)
    return {k: _check(entry, k, v, f"{where}[{k!r}]", types) for k, v in (values or {}).items()}
