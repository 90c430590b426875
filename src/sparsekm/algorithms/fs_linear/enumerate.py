"""The optimum of FS-SVM (2) by enumerating every support of size B (small n only).

The plan's clock stops the enumeration (every chunk, on every worker, checks it): a partial
enumeration returns the best support met, with termination ``time_limit`` and no bound (the
supports not evaluated are not bounded).
"""

from __future__ import annotations

import itertools
import math
import time

import numpy as np

from sparsekm.models.fs_linear import FSLinearProblem, point_result
from sparsekm.parallel import as_executor
from sparsekm.registry import register, uses_solvers
from sparsekm.solvers import Result, SolverPlan, Termination

from ..svm import solve_svm
from .specs import SVM_QP

MAX_SUPPORTS = 20_000


def _objectives(problem: FSLinearProblem, supports: list[tuple[int, ...]],
                qp_solver: str | None, until: float | None = None, first: bool = False
                ) -> list[float]:
    """The SVM (1)'s objective on each support (NaN for those not reached by ``until``, a
    ``time.time()`` reading; ``first``: the first support is evaluated anyway)."""
    out = [math.nan] * len(supports)
    for i, S in enumerate(supports):
        if until is not None and time.time() >= until and not (first and i == 0):
            break
        out[i] = solve_svm(problem.X, problem.y, problem.C, features=S, solver=qp_solver)[2]
    return out


@register("fs-linear", "method", "enumerate", paper="D", ref="problem (2), by enumeration")
@uses_solvers(svm=SVM_QP)
def enumerate_supports(problem: FSLinearProblem, plan: SolverPlan) -> Result:
    """Certified optimum of (2) by the SVM (1) on every support of size B.

    A support of size < B is never better than a superset of size B. Chunks run through
    ``plan.executor``; ties go to the lexicographically first support whatever the number of
    workers. At the plan's time limit: the best support met, termination ``time_limit``, no
    bound.
    """
    p = problem
    total = math.comb(p.n, p.B)
    if total > MAX_SUPPORTS:
        raise ValueError(f"C({p.n},{p.B}) = {total} supports is too many to enumerate (limit "
                         f"{MAX_SUPPORTS}); use method 'exact'")
    plan = plan.start()
    rem = plan.clock.remaining()
    until = None if math.isinf(rem) else time.time() + rem
    supports = list(itertools.combinations(range(p.n), p.B))
    ex = as_executor(plan.executor)
    chunks = np.array_split(np.arange(total), max(1, 4 * ex.workers)) if ex.parallel else \
        [np.arange(total)]
    k = len(chunks)
    parts = ex.map(_objectives, [p] * k, [[supports[i] for i in c] for c in chunks],
                   [plan.qp_solver] * k, [until] * k, [j == 0 for j in range(k)])
    objs = np.concatenate([np.asarray(x, dtype=float) for x in parts])
    done = ~np.isnan(objs)
    best = int(np.nanargmin(objs))
    w, b, _ = solve_svm(p.X, p.y, p.C, features=supports[best], solver=plan.qp_solver)
    res = point_result(p, w, b, method="enumerate")
    res.selected = list(supports[best])
    if done.all():
        res.certify(float(objs[best]))   # the least objective over every support of size B
    else:
        res.termination = Termination.TIME_LIMIT
        res.message = (f"time limit: {int(done.sum())} of {total} supports evaluated; a "
                       "partial enumeration certifies no bound")
    res.time_s = plan.clock.elapsed()
    res.extra["n_supports"] = total
    res.extra["n_evaluated"] = int(done.sum())
    return res
