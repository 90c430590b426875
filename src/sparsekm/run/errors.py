"""A user mistake: one line that names the parameter as the user wrote it and the fix.

Every front end reports a :class:`UserError` the same way: the CLI prints ``error: <line>``
on stderr and exits 2 with stdout empty; a bench grid refuses the config before its first run;
an estimator raises it (it is a ``ValueError``).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

__all__ = ["UserError", "reported"]


class UserError(ValueError):
    """A value, a combination of values or a file the user gave that cannot be used."""


@contextlib.contextmanager
def reported() -> Iterator[None]:
    """A user mistake (a bad value, unreadable data, an unusable solver, a file in use) as
    one line ``error: ...`` on stderr and exit code 2, without a traceback: how every front
    end (the CLI's commands, ``sparsekm bench``) ends one."""
    from sparsekm.data import DataError
    from sparsekm.solvers import SolverError

    try:
        yield
    except (UserError, DataError, SolverError, ValueError, OSError) as exc:
        sys.stdout.flush()
        print(f"error: {' '.join(str(exc).split())}", file=sys.stderr, flush=True)
        raise SystemExit(2) from None
