"""The single exception type of :mod:`sparsekm.data`."""

from __future__ import annotations

__all__ = ["DataError"]


class DataError(ValueError):
    """Data that cannot be used as given.

    Every message names the problem and how to fix it. Subclasses ``ValueError`` so callers
    that already catch ``ValueError`` keep working.
    """
