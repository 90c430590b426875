"""Find the CLI's problem modules: every module of ``sparsekm.cli`` that registers commands.

A new problem adds ``cli/<problem>.py`` (a runner and its typer command) and nothing else.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

_INFRA = {"app", "common", "demo", "discovery", "payload", "shared"}


def command_modules() -> list[ModuleType]:
    """Import and return the problem modules of the CLI (sorted by ``DEMO_RANK``, then name)."""
    import sparsekm.cli as pkg

    mods = [importlib.import_module(f"{pkg.__name__}.{info.name}")
            for info in pkgutil.iter_modules(pkg.__path__) if info.name not in _INFRA]
    return sorted(mods, key=lambda m: (getattr(m, "DEMO_RANK", 100), m.__name__))
