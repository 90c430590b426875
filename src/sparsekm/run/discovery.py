"""Find the run modules: every module of ``sparsekm.run`` that registers a command.

A new problem adds ``run/<problem>.py`` (its runner and :class:`~.command.Command`) and
nothing else: the CLI, bench grids and the estimators find it here.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from types import ModuleType

_INFRA = {"command", "data", "discovery", "errors", "options", "payload", "resolve", "clock",
          "quiet"}


@functools.cache
def run_modules() -> tuple[ModuleType, ...]:
    """Import and return the problem modules of the run layer."""
    import sparsekm.run as pkg

    return tuple(importlib.import_module(f"{pkg.__name__}.{info.name}")
                 for info in pkgutil.iter_modules(pkg.__path__) if info.name not in _INFRA)
