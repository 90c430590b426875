"""Paper E's NO-FS baseline (Section 4.3) as a method: the start of Algorithm 1, unchanged.

"NO-FS ... corresponds to the solution provided when no feature selection is made, i.e. when
the importance of the features is given by a unique value gamma = gamma_j for all j ... the
NO-FS method boils down to the classification results given by the initial solution of
Algorithm 1." So ``nofs`` returns gamma0 itself with the SVM (10) solved there: beside ``fast``
in a grid (or in the Section 4.2 protocol) it gives Table 2's NO-FS column from the same folds.
"""

from __future__ import annotations

import time
from typing import Any

from sparsekm.declare import Annotated
from sparsekm.models.minmax_fs import MinMaxFSProblem, lower_level
from sparsekm.models.minmax_fs.lower import SVM_TOL
from sparsekm.models.minmax_fs.specs import GAMMA0
from sparsekm.registry import Part, register, uses_solvers
from sparsekm.solvers import SolverPlan, Termination

from .common import finish
from .specs import SVM_TOL as SVM_TOL_SPEC

__all__ = ["nofs"]


@register("minmax-fs", "method", "nofs", paper="E", ref="Section 4.3 (NO-FS: Algorithm 1's start)",
          problem_class="baseline")
@uses_solvers(svm=Part("SVM (10) at gamma0", (), default="libsvm"))
def nofs(problem: MinMaxFSProblem, plan: SolverPlan | None = None, *,
         gamma0: Annotated[float | None, GAMMA0] = None,
         svm_tol: Annotated[float, SVM_TOL_SPEC] = SVM_TOL) -> Any:
    """No feature weighting: gamma_j = gamma0 for every j (the CV start), SVM (10) there."""
    del plan
    t0 = time.perf_counter()
    g0 = problem.start(gamma0)
    start = lower_level(problem, g0, tol=svm_tol)
    return finish(problem, g0, start, t0, method="nofs", solver="libsvm",
                  info={"termination": Termination.CONVERGED, "converged": False,
                        "message": "NO-FS: the start, unchanged"})
