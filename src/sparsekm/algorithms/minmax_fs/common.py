"""Pieces shared by paper E's methods: the final lower-level solve and the one Result shape.

Every method ends as Algorithm 1 does ("Computation of global optimal solution alpha"): the SVM
(10) is solved again at the returned gamma, so the reported objective is the value of (14) at
that gamma, alpha solves the SVM dual there, and the KKT residual of (20) is measured at the
completed point (:func:`sparsekm.models.minmax_fs.kkt_residual`).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from sparsekm.models.minmax_fs import LowerLevel, MinMaxFSProblem, kkt_residual, lower_level
from sparsekm.solvers import Result, Termination

__all__ = ["SELECT_REL", "finish", "selected_features"]

# A feature is "selected" when gamma_j > SELECT_REL * max_k gamma_k. Relative, because only the
# ratios matter when every gamma is small (K_gamma ~ 1 - sum_j gamma_j (x_j - z_j)^2 then).
SELECT_REL = 1e-4

# A point is locally optimal when the KKT residual of (20) is at most this times max(1, |f|).
LOCAL_KKT_TOL = 1e-3


def selected_features(gamma: np.ndarray, rel: float = SELECT_REL) -> list[int]:
    """Indices j with gamma_j > rel * max(gamma) (none when gamma = 0)."""
    g = np.asarray(gamma, dtype=float)
    top = float(g.max()) if g.size else 0.0
    return [] if top <= 0 else [int(j) for j in np.flatnonzero(g > rel * top)]


def finish(problem: MinMaxFSProblem, gamma: np.ndarray, start: LowerLevel, t0: float, *,
           method: str, solver: str, info: dict[str, Any]) -> Result:
    """The Result of a paper-E method: re-solve (10) at ``gamma``, value of (14), KKT of (20).

    ``info``: ``termination``, ``converged`` (bool), ``message``; every other key goes to
    ``extra``.

    ``start`` is the lower level at the start point (the NO-FS solution of Algorithm 1). If
    the method's point is worse than its start, the start is returned (it is feasible and
    better) and ``extra["returned_start"]`` says so; ``extra["method_objective"]`` keeps the
    method's own value either way.
    """
    extra = dict(info)
    termination: Termination = extra.pop("termination")
    converged: bool = extra.pop("converged")
    message: str = extra.pop("message", "")
    ll = lower_level(problem, np.maximum(gamma, 0.0))
    f = problem.objective(ll.gamma, ll.value)
    f0 = problem.objective(start.gamma, start.value)
    extra.update(method_objective=f, start_objective=f0, returned_start=False)
    if f > f0 + 1e-12 * max(1.0, abs(f0)):
        ll, f = start, f0
        extra["returned_start"] = True
        converged = False
        message = (message + "; " if message else "") + "the start was better: returned it"
    kkt = kkt_residual(problem, ll)
    extra["kkt"] = kkt
    extra["objective_upper"] = problem.objective(ll.gamma, ll.primal)
    extra["n_support"] = int(ll.extra.get("n_support", 0))
    res = Result(
        objective=f, bound=None, termination=termination,
        sense="min", time_s=time.perf_counter() - t0,
        solver=solver, method=method, problem="minmax-fs", selected=selected_features(ll.gamma),
        values={**ll.point(), "b": ll.b}, extra=extra, message=message)
    # a local method's stopping point is locally optimal when (20)'s KKT residual at the
    # completed point is small (the measure decides, not how the local solver ended: L-BFGS-B
    # may stop "ABNORMAL" at the noise floor of V); only a certified bound (scip) is optimal
    extra["converged"] = converged
    small = kkt["kkt_residual"] <= LOCAL_KKT_TOL * max(1.0, abs(f))
    if termination is Termination.CONVERGED and small:
        res.mark_local(f"KKT of (20) within {LOCAL_KKT_TOL:g} max(1, |f|)", kkt["kkt_residual"])
    return res
