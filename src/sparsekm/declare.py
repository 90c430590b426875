"""Each parameter and option of sparsekm declared once: type, range, default, help and flag.

A declaration is a :class:`Spec` attached where the parameter lives:

* a problem's parameter is a dataclass field (``B: int = declare.field(5, "Budget ...",
  ge=1, flag="--B")``), checked when the problem is built;
* a method's option is a keyword-only parameter of its function, annotated
  (``gap_tol: Annotated[float, Spec("Relative gap ...", ge=0, lt=1)] = 1e-4``); a dataclass
  default (an option group such as paper D's ``Search``) declares its fields the same way.

:func:`params_of` reads them back as :class:`Param` (name, type, default, spec). The CLI's
flags and ``--option``, a bench grid's keys, the estimators' parameters and the Python front
door are all built from these, and :meth:`Param.check` is the one validation: it converts a
typed string or a Python value, checks the range (finite, inside the declared interval, one of
the choices) and raises :class:`ParamError`, which names the parameter, the value and what is
allowed. Each front end renders that error in the user's own words (``--C 0``,
``--option gap_tol=-1``, ``C=0``, ``grid.params.C[1] = 0``), as scikit-learn's
``_parameter_constraints`` and Pyomo's ``ConfigValue(domain=...)`` do.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
import math
import numbers
import re
import typing
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Annotated, Any

__all__ = ["Annotated", "Param", "ParamError", "Spec", "check_fields", "check_value", "field",
           "in_words", "mention", "params_of", "with_"]

TRUE_WORDS = ("true", "yes", "on", "1")
FALSE_WORDS = ("false", "no", "off", "0")
NONE_WORDS = ("none", "null")


def mention(name: str, cli: str | None = None, python: str | None = None) -> str:
    """A parameter named in a message, to be shown in the words of the front door the user
    used (:func:`in_words`): ``mention("positive_class", "CLASS", "'spam'")`` is
    ``--positive-class CLASS`` on the CLI and ``positive_class='spam'`` in Python; without
    values, ``--positive-class`` and ``positive_class``."""
    return f"<<{name}|{cli or ''}|{python or ''}>>"


_MENTION = re.compile(r"<<([A-Za-z_][A-Za-z0-9_]*)\|([^|>]*)\|([^>]*)>>")


def in_words(text: str, style: str = "python") -> str:
    """``text`` with its :func:`mention` marks in a front door's words: ``"cli"`` (the flag,
    ``--drop-columns A,B``) or ``"python"`` / ``"grid"`` (the parameter, ``drop_columns=[...]``)."""

    def one(m: re.Match[str]) -> str:
        name, cli, python = m.groups()
        if style == "cli":
            flag = "--" + name.replace("_", "-")
            return f"{flag} {cli}" if cli else flag
        return f"{name}={python}" if python else name

    return _MENTION.sub(one, text)


class ParamError(ValueError):
    """A value a parameter does not take: its ``name``, the ``value`` given and what is
    ``allowed``. ``str()`` says ``name=value: ...``; a front end calls :meth:`render` with the
    way the user wrote it (``"--C 0"``) and its own words for the parameters ``allowed``
    mentions (:func:`mention`)."""

    def __init__(self, name: str, value: Any, allowed: str) -> None:
        self.name, self.value, self.allowed = name, value, allowed
        super().__init__(self.render(f"{name}={value!r}"))

    def render(self, shown: str, style: str = "python") -> str:
        """One line: ``shown`` (the flag and value as typed) and what is allowed."""
        return in_words(f"{shown}: {self.allowed}", style)


@dataclass(frozen=True)
class Spec:
    """How a parameter is checked and shown.

    help : one line for ``--help``, the estimators' docstrings and ``sparsekm methods``, or a
        function returning it (read when shown: e.g. the registry's node bounds).
    ge, gt, le, lt : the closed / open bounds of a number (of every item of a list).
    choices : the allowed strings, or a function returning them (e.g. registry names).
    flag : the dedicated CLI flag (``"--rho"``); None for a method option reached only as
        ``--option NAME=VALUE`` (a problem's parameter always has one: ``--NAME``).
    path : ``"read"`` (a file that must exist), ``"write"`` (a file whose folder must
        exist), ``"dir"`` (a folder that is created if missing; its parent must exist).
    finite : numbers must be finite (True unless a limit may be infinite).
    """

    help: str | Callable[[], str]
    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    lt: float | None = None
    choices: tuple[str, ...] | Callable[[], Iterable[str]] | None = None
    flag: str | None = None
    path: str | None = None
    finite: bool = True

    def allowed_choices(self) -> tuple[str, ...] | None:
        """The choices, resolved (None when any value of the type is allowed)."""
        if self.choices is None:
            return None
        return tuple(self.choices() if callable(self.choices) else self.choices)


def field(default: Any, spec: Spec | str, **rules: Any) -> Any:
    """A dataclass field declaring a parameter: ``spec`` is a shared :class:`Spec` (from
    :mod:`sparsekm.specs`) or the help text, ``rules`` its fields to set or override."""
    spec = dataclasses.replace(spec, **rules) if isinstance(spec, Spec) else Spec(spec, **rules)
    return dataclasses.field(default=default, metadata={"spec": spec})


def check_fields(obj: Any) -> None:
    """Check (and convert) every declared field of the dataclass instance ``obj`` in place:
    an option group's ``__post_init__`` calls it (:class:`ParamError` names the field)."""
    for name, param in _dataclass_params(type(obj)).items():
        object.__setattr__(obj, name, param.check(getattr(obj, name)))


def with_(spec: Spec, **changes: Any) -> Spec:
    """``spec`` with some fields changed (another help text, a narrower range)."""
    return dataclasses.replace(spec, **changes)


@dataclass(frozen=True)
class Param:
    """A declared parameter: its name, type, default and :class:`Spec`."""

    name: str
    type: Any
    default: Any
    spec: Spec
    group: str | None = None   # the keyword a dataclass group travels under (``search``)

    @property
    def flag(self) -> str:
        """The CLI flag: the declared one, else ``--name`` with dashes."""
        return self.spec.flag or "--" + self.name.replace("_", "-")

    @property
    def help(self) -> str:
        h = self.spec.help
        return h() if callable(h) else h

    @property
    def optional(self) -> bool:
        """True when None is allowed."""
        return self.type is Any or type(None) in typing.get_args(self.type)

    @property
    def base(self) -> Any:
        """The type without ``None`` (``int`` of ``int | None``)."""
        args = [a for a in typing.get_args(self.type) if a is not type(None)]
        if typing.get_origin(self.type) in (typing.Union, _UnionType) and len(args) == 1:
            return args[0]
        return self.type

    def describe(self) -> str:
        """What the parameter takes, in words (for messages and ``--help``)."""
        return _describe(self.base, self.spec, self.optional)

    def check(self, value: Any) -> Any:
        """``value`` converted to the declared type and checked; :class:`ParamError` if not."""
        return check_value(self, value)


_UnionType = type(int | None)


def _number(val: float) -> str:
    """A bound as a reader writes it: 100, 4294967295, 0.25, 1e-08, 1e+08."""
    short = f"{val:g}"
    if float(val).is_integer() and (abs(val) < 1e6 or float(short) != val):
        return str(int(val))
    return short


def _bounds(spec: Spec) -> list[str]:
    out = []
    for op, val in ((">=", spec.ge), (">", spec.gt), ("<=", spec.le), ("<", spec.lt)):
        if val is not None:
            out.append(f"{op} {_number(val)}")
    return out


def _describe(tp: Any, spec: Spec, optional: bool) -> str:
    choices = spec.allowed_choices()
    if choices is not None:
        text = "one of " + ", ".join(choices)
    elif tp is bool:
        text = "true or false"
    elif tp in (int, float):
        word = "an integer" if tp is int else "a finite number" if spec.finite else "a number"
        text = " ".join([word, " and ".join(_bounds(spec))]).strip()
    elif typing.get_origin(tp) in (list, tuple):
        item = (typing.get_args(tp) or (Any,))[0]
        inner = _describe(item, dataclasses.replace(spec, choices=None), False)
        text = f"a list of {inner.removeprefix('a ').removeprefix('an ')}s (JSON or comma-" \
               "separated)"
    elif spec.path == "read":
        text = "an existing file"
    elif spec.path in ("write", "dir"):
        text = "a path in an existing folder"
    else:
        text = "a text"
    return text + (" (or none)" if optional else "")


def _scalar(name: str, tp: Any, spec: Spec, value: Any, shown: Any) -> Any:
    """One value of type ``tp`` (bool, int, float, str) from a string or a Python value."""
    bad = ParamError(name, shown, f"give {_describe(tp, spec, False)}")
    if getattr(value, "ndim", None) == 0 and hasattr(value, "item"):  # numpy scalars
        value = value.item()
    if tp is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in TRUE_WORDS + FALSE_WORDS:
            return value.strip().lower() in TRUE_WORDS
        raise bad
    if tp is int:
        if isinstance(value, bool):
            raise bad
        if isinstance(value, numbers.Integral):
            return int(value)
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str):
            try:
                return int(value.strip())
            except ValueError:
                raise bad from None
        raise bad
    if tp is float:
        if isinstance(value, bool):
            raise bad
        if isinstance(value, numbers.Real):
            out = float(value)
        elif isinstance(value, str):
            try:
                out = float(value.strip())
            except ValueError:
                raise bad from None
        else:
            raise bad
        if spec.finite and not math.isfinite(out):
            raise bad
        if math.isnan(out):
            raise bad
        return out
    if tp is str:
        if isinstance(value, str):
            return value
        raise bad
    return value  # a type the declarations do not check (arrays, objects): as given


def _in_range(name: str, spec: Spec, value: Any, shown: Any, tp: Any) -> None:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return
    ok = ((spec.ge is None or value >= spec.ge) and (spec.gt is None or value > spec.gt)
          and (spec.le is None or value <= spec.le) and (spec.lt is None or value < spec.lt))
    if not ok:
        raise ParamError(name, shown, f"give {_describe(tp, spec, False)}")


def _items(value: Any) -> list[Any]:
    """A list value from JSON, a comma-separated string, or a Python sequence."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                loaded = json.loads(text)
            except ValueError:
                loaded = None
            if isinstance(loaded, list):
                return loaded
        return [v.strip() for v in text.split(",") if v.strip()]
    if isinstance(value, list | tuple) or hasattr(value, "tolist"):
        return list(value.tolist() if hasattr(value, "tolist") else value)
    return [value]


def check_value(param: Param, value: Any) -> Any:
    """``value`` (a typed string or a Python value) as ``param`` declares it, or ParamError."""
    name, spec, tp = param.name, param.spec, param.base
    shown = value
    if value is None or (isinstance(value, str) and value.strip().lower() in NONE_WORDS
                         and tp is not str):
        if param.optional:
            return None
        raise ParamError(name, shown, f"give {param.describe()}")
    if typing.get_origin(tp) in (list, tuple):
        item_tp = (typing.get_args(tp) or (Any,))[0]
        out = []
        try:
            for item in _items(value):
                v = _scalar(name, item_tp, spec, item, shown)
                _in_range(name, spec, v, shown, tp)
                out.append(v)
        except ParamError:
            raise ParamError(name, shown, f"give {param.describe()}") from None
        if not out:
            raise ParamError(name, shown, f"give {param.describe()}")
        return out if typing.get_origin(tp) is list else tuple(out)
    out = _scalar(name, tp, spec, value, shown)
    _in_range(name, spec, out, shown, tp)
    choices = spec.allowed_choices()
    if choices is not None and out not in choices:
        raise ParamError(name, shown, f"choose one of {', '.join(map(str, choices))}")
    if spec.path is not None and isinstance(out, str):
        _check_path(name, spec.path, out)
    return out


SYSTEM_FOLDERS = ("/dev", "/proc", "/sys")   # no file a run writes belongs there


def _check_path(name: str, kind: str, value: str) -> None:
    """A path parameter: ``read`` an existing file; ``write`` / ``dir`` a path whose folder
    exists (a ``write`` path that is a folder or an existing non-regular file such as
    ``/dev/null``, or a ``dir`` path that is a file, is refused)."""
    from pathlib import Path

    p = Path(value).expanduser()
    if kind == "read":
        if p.is_dir():
            raise ParamError(name, value, "is a folder; give a file")
        if not p.is_file():
            raise ParamError(name, value, "no such file")
        return
    if kind == "write" and p.is_dir():
        raise ParamError(name, value, "is a folder; give a file path in it")
    system = next((f for f in SYSTEM_FOLDERS if Path(f) in p.absolute().parents), None)
    if kind == "write" and system is not None:
        raise ParamError(name, value, f"is in {system}, a system folder: the file and the ones "
                         "written beside it (a sidecar, a lock) would land there; give a file "
                         "path in a folder of yours")
    if kind == "write" and p.exists() and not p.is_file():
        raise ParamError(name, value, "is not a regular file (a device, a pipe or a socket): "
                         "the files written beside it (a sidecar, a lock) would land in its "
                         "folder; give a file path")
    if kind == "dir" and p.exists() and not p.is_dir():
        raise ParamError(name, value, "is a file; give a folder")
    near = next((q for q in p.parents if q.exists()), None)
    if near is not None and not near.is_dir():
        raise ParamError(name, value, f"{near} is a file, not a folder")
    if not p.parent.is_dir():
        raise ParamError(name, value, f"folder {p.parent} does not exist; give a path in an "
                         "existing folder")


def _hints(obj: Any) -> dict[str, Any]:
    try:
        return typing.get_type_hints(obj, include_extras=True)
    except Exception:  # noqa: BLE001 - an annotation that does not resolve: untyped
        return {}


def _split_annotated(tp: Any) -> tuple[Any, Spec | None]:
    if typing.get_origin(tp) is Annotated:
        base, *meta = typing.get_args(tp)
        return base, next((m for m in meta if isinstance(m, Spec)), None)
    return tp, None


def _undeclared(name: str, default: Any) -> Spec:
    return Spec(f"{name} (undeclared)")


def _dataclass_params(cls: Any, group: str | None = None) -> dict[str, Param]:
    return dict(_declared_fields(cls, group))


@functools.cache
def _declared_fields(cls: Any, group: str | None) -> dict[str, Param]:
    """A dataclass's declared fields, read once per class: resolving its type hints costs
    more than ``fast``'s compiled work on small problems, and every option group built (each
    swap search's ``SwapOptions``) checks its fields."""
    hints = _hints(cls)
    out: dict[str, Param] = {}
    for f in dataclasses.fields(cls):
        spec = f.metadata.get("spec")
        if spec is None or not f.init:
            continue
        tp, ann = _split_annotated(hints.get(f.name, Any))
        default = f.default if f.default is not dataclasses.MISSING else None
        out[f.name] = Param(f.name, tp, default, ann or spec, group)
    return out


def params_of(obj: Any, *, declared_only: bool = False) -> dict[str, Param]:
    """The declared parameters of a dataclass type (its fields with a spec) or of a function
    (its keyword-only parameters; a dataclass default expands into its declared fields).

    Undeclared keyword options of a function are listed with a placeholder spec unless
    ``declared_only`` (the architecture test checks that none is left).
    """
    if isinstance(obj, type) and dataclasses.is_dataclass(obj):
        return _dataclass_params(obj)
    hints = _hints(obj)
    out: dict[str, Param] = {}
    for p in inspect.signature(obj).parameters.values():
        if p.kind is not inspect.Parameter.KEYWORD_ONLY:
            continue
        if dataclasses.is_dataclass(p.default) and not isinstance(p.default, type):
            for name, sub in _dataclass_params(type(p.default), p.name).items():
                out[name] = dataclasses.replace(sub, default=getattr(p.default, name))
            continue
        tp, spec = _split_annotated(hints.get(p.name, Any))
        if spec is None and declared_only:
            continue
        default = None if p.default is inspect.Parameter.empty else p.default
        out[p.name] = Param(p.name, tp, default, spec or _undeclared(p.name, default))
    return out
