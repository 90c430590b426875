"""Errors of the solver layer. Each message names the problem and the fix."""

from __future__ import annotations

# Licence-limit messages of the commercial pip packages (see README, solver table).
LICENCE_MARKERS = ("size-limited", "Community Edition", "too many rows and columns",
                   "License", "license", "licence", "Model too large")


def licence_error(text: str) -> bool:
    """True when a solver's message says its licence refused the model."""
    return any(m in text for m in LICENCE_MARKERS)


class SolverError(RuntimeError):
    """Base class for solver-layer errors."""


class SolverNotAvailableError(SolverError):
    """The requested solver is unknown, not installed, or not licensed."""


class SolverCapabilityError(SolverError):
    """The requested solver cannot handle the model's problem class or framework."""


class ModelClassError(SolverError):
    """The model's problem class could not be determined or is not supported."""


class SolveFailedError(SolverError):
    """A solve ended without a usable point (the message says why and what to try)."""
