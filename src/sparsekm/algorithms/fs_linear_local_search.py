"""Local Search upper-bounding strategy: Algorithm 1 of paper D (Bomze et al., 2024)."""

from __future__ import annotations

from typing import Any

import numpy as np

from sparsekm.algorithms.fs_linear_common import (
    Deadline,
    dscop_ranking,
    fallback_incumbent,
    finalize,
    rank_features,
    solve_restricted,
)
from sparsekm.models.fs_linear import FSLinearResult, check_fs_inputs


def local_search(X: Any, y: Any, B: int, C: float, k: int = 10, u: np.ndarray | None = None,
                 miqp_solver: str | None = None, relax_solver: str | None = None,
                 time_limit: float | None = None, cop_form: str = "bilinear",
                 deadline: Deadline | None = None) -> FSLinearResult:
    """Local Search (Algorithm 1, paper D).

    1. Solve DSCoP (13) (SOC form, Lemma 4.3) for u* (skipped when ``u`` is given);
    2. K = the k + B features with the smallest u*_j;
    3. solve the restricted CoP(K) (16) with ``miqp_solver``.

    Parameters
    ----------
    k : excess parameter, 0 <= k <= n - B (clipped to n - B).
    u : a ranking vector to use instead of solving (13) (Algorithm 3/4 reuse).
    time_limit : global seconds; on the limit the incumbent of (16) (or the SVM on the B
        best-ranked features) is returned with status ``time_limit``.

    Returns
    -------
    FSLinearResult with ``lower_bound`` = the DSCoP bound when (13) was solved here.
    """
    X, y = check_fs_inputs(X, y, B, C)
    n = X.shape[1]
    if k < 0:
        raise ValueError(f"k={k} must be >= 0 (the number of extra features beyond B)")
    dl = deadline or Deadline(time_limit)
    lb, info = None, {}
    if u is None:
        u, lb, info = dscop_ranking(X, y, B, C, relax_solver, dl)
    order = rank_features(u)
    K = sorted(int(j) for j in order[:min(n, B + k)])
    best = fallback_incumbent(X, y, B, C, order)
    sub, status = solve_restricted(X, y, B, C, K, miqp_solver, dl.cap(None), form=cop_form)
    if sub is not None and sub.objective <= best.objective:
        best = sub
    best.status = "feasible"
    return finalize(best, "local-search", dl, lb, dl.expired() or status == "time_limit",
                    K=K, subproblem_status=status, ranking=info, u=u)
