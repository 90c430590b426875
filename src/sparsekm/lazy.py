"""Lazy package attributes: ``import sparsekm.estimators`` costs nothing until a name is used.

A package lists ``name -> submodule`` and sets ``__getattr__, __dir__ = lazy(__name__, names)``;
the submodule (and its heavy imports: scikit-learn, pandas, Pyomo, CVXPY) loads on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy(package: str, names: dict[str, str]) -> tuple[Callable[[str], Any],
                                                         Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package`` exporting ``names`` from its submodules."""

    def __getattr__(name: str) -> Any:
        try:
            module = names[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        import sys

        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(names)

    return __getattr__, __dir__
