"""The optimum of FS-SVM (2) by enumerating every support of size B (small n only)."""

from __future__ import annotations

import itertools
import math

import numpy as np

from sparsekm.models.fs_linear import FSLinearProblem, point_result
from sparsekm.models.svm import solve_svm
from sparsekm.parallel import as_executor
from sparsekm.registry import register
from sparsekm.solvers import Result, SolverPlan

MAX_SUPPORTS = 20_000


def _objectives(problem: FSLinearProblem, supports: list[tuple[int, ...]],
                qp_solver: str | None) -> list[float]:
    return [solve_svm(problem.X, problem.y, problem.C, features=S, solver=qp_solver)[2]
            for S in supports]


@register("fs-linear", "method", "enumerate", paper="D", ref="problem (2), by enumeration")
def enumerate_supports(problem: FSLinearProblem, plan: SolverPlan) -> Result:
    """Certified optimum of (2) by the SVM (1) on every support of size B.

    A support of size < B is never better than a superset of size B. Chunks run through
    ``plan.executor``; ties go to the lexicographically first support whatever the number of
    workers.
    """
    p = problem
    total = math.comb(p.n, p.B)
    if total > MAX_SUPPORTS:
        raise ValueError(f"C({p.n},{p.B}) = {total} supports is too many to enumerate (limit "
                         f"{MAX_SUPPORTS}); use method 'exact'")
    plan = plan.start()
    supports = list(itertools.combinations(range(p.n), p.B))
    ex = as_executor(plan.executor)
    chunks = np.array_split(np.arange(total), max(1, 4 * ex.workers)) if ex.parallel else \
        [np.arange(total)]
    parts = ex.map(_objectives, [p] * len(chunks), [[supports[i] for i in c] for c in chunks],
                   [plan.qp_solver] * len(chunks))
    objs = np.concatenate([np.asarray(x, dtype=float) for x in parts])
    k = int(np.argmin(objs))
    w, b, _ = solve_svm(p.X, p.y, p.C, features=supports[k], solver=plan.qp_solver)
    res = point_result(p, w, b, method="enumerate")
    res.selected = list(supports[k])
    res.certify(float(objs[k]))   # the least objective over every support of size B
    res.time_s = plan.clock.elapsed()
    res.extra["n_supports"] = total
    return res
