"""Errors of the solver layer. Each message names the problem and the fix."""

from __future__ import annotations


class SolverError(RuntimeError):
    """Base class for solver-layer errors."""


class SolverNotAvailableError(SolverError):
    """The requested solver is unknown, not installed, or not licensed."""


class SolverCapabilityError(SolverError):
    """The requested solver cannot handle the model's problem class or framework."""


class ModelClassError(SolverError):
    """The model's problem class could not be determined or is not supported."""
