"""Every piece of parallel work runs through this package: one executor, local processes or Dask.

* :mod:`.executor` -- :class:`Executor`: an ordered ``map`` (multistart, enumeration, CV folds)
  and a persistent :meth:`Executor.session` for long runs;
* :mod:`.pool` -- the persistent workers of a session: this process, spawned processes, or the
  workers of a Dask client, one *slot* each;
* :mod:`.slots` -- stateful tasks on those slots: each worker keeps its problem and caches
  between tasks, data is shipped once (the tree search of paper A, B and D runs on it).

Results come back in a fixed order, so a seeded method gives the same answer on any number of
workers.
"""

from .executor import CONNECT_TIMEOUT, Executor, as_executor, connect_dask, single_blas

__all__ = ["CONNECT_TIMEOUT", "Executor", "as_executor", "connect_dask", "single_blas"]
