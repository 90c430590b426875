"""The exception types of :mod:`sparsekm.data`."""

from __future__ import annotations

from typing import Any

from sparsekm.declare import ParamError, in_words

__all__ = ["DataError", "DataFileError"]


class DataError(ValueError):
    """Data that cannot be used as given.

    Every message names the problem and how to fix it; the parameters it mentions
    (:func:`~sparsekm.declare.mention`) read as Python's in ``str()`` and as each front door's
    own in :attr:`template` (the CLI shows ``--positive-class``). Subclasses ``ValueError`` so
    callers that already catch ``ValueError`` keep working.
    """

    def __init__(self, message: str = "", *args: Any) -> None:
        self.template = str(message)
        super().__init__(in_words(self.template), *args)


class DataFileError(DataError, ParamError):
    """A ``data`` value (a file path) that cannot be read as given: a directory, a missing
    file, a file whose columns cannot be told apart.

    Both a :class:`DataError` and a :class:`~sparsekm.declare.ParamError` of the parameter
    ``data``: ``value`` is the path as the user gave it and ``allowed`` the problem and its
    fix, so a front end renders it in the user's words (``--data foo/: is a directory; give a
    CSV or svmlight file``); ``str()`` is ``data='foo/': is a directory; ...``.
    """

    def __init__(self, value: Any, allowed: str, name: str = "data") -> None:
        ParamError.__init__(self, name, str(value), allowed)

    def __reduce__(self) -> tuple[Any, ...]:  # picklable (Dask, multiprocessing)
        return (type(self), (self.value, self.allowed, self.name))
