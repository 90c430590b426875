"""One tree-search engine for the certified methods of papers A, B and D.

:func:`run` searches a
:class:`TreeProblem` (a problem's root, node bound, branching, heuristics and point) best-first,
serially or on persistent workers (local processes or Dask), and resumes from a checkpoint.
Paper D's ``bnb`` (:mod:`sparsekm.algorithms.fs_linear.bnb`), paper A's ``bnb``
(:mod:`sparsekm.algorithms.fs_kernel.bnb`) and paper B's ``exact``
(:mod:`sparsekm.algorithms.smkl.exact`) are its three problems. See ``docs/topics/tree_search.md``.
"""

from .checkpoint import CheckpointError
from .engine import result, run
from .interface import Data, Outcome, Start, TaskIncumbent, TreeProblem, Work, fingerprint
from .options import SearchOptions, node_plan
from .root import RootContext
from .state import Search

__all__ = ["CheckpointError", "Data", "Outcome", "RootContext", "Search", "SearchOptions",
           "Start", "TaskIncumbent", "TreeProblem", "Work", "fingerprint", "node_plan",
           "result", "run"]
