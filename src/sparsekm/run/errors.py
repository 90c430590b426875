"""A user mistake: one line that names the parameter as the user wrote it and the fix.

Every front end reports a :class:`UserError` the same way: the CLI prints ``error: <line>``
on stderr and exits 2 with stdout empty; a bench grid refuses the config before its first run;
an estimator raises it (it is a ``ValueError``).
"""

from __future__ import annotations

__all__ = ["UserError"]


class UserError(ValueError):
    """A value, a combination of values or a file the user gave that cannot be used."""
