"""The node dual of paper D's branch and bound by a primal active-set method (numba).

``node_active_set(Qt, y, C, (F1, free, k), (alpha0, W0), (cutoff, max_pivots, omega, extra))``
maximises the node's perspective dual g(alpha) (:mod:`.solve`) from the parent's multipliers
and working set; every iterate is feasible and its g a certified bound. :mod:`.pivot` holds
one pivot (the maximiser of the quadratic model on the current partition), :mod:`.linalg` the
null-space linear algebra.
"""

from .partition import repair
from .probe import probe, restrict
from .solve import LIMIT, NUMERIC, OPTIMAL, PRUNED, node_active_set, resume_active_set

__all__ = ["LIMIT", "NUMERIC", "OPTIMAL", "PRUNED", "node_active_set", "probe", "repair",
           "restrict", "resume_active_set"]
