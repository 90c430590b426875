"""One entry point for every FS-SVM (2) method of paper D: :func:`solve_fs_linear`."""

from __future__ import annotations

import time
from typing import Any

from sparsekm.models.fs_linear import (
    FSLinearResult,
    bigm_model,
    check_fs_inputs,
    cop_model,
    estimate_big_m,
    solve_fs_model,
)

METHODS = ("bigm", "cop", "local-search", "kernel-search", "heuristic", "exact")


def solve_fs_linear(X: Any, y: Any, B: int, C: float, method: str = "kernel-search",
                    solver: str | None = None, relax_solver: str | None = None,
                    misocp_solver: str | None = None, time_limit: float | None = None,
                    M: float | None = None, k: int = 10, rho: int = 10, s: int = 10,
                    strategy: str = "kernel-search", cardinality: str = "eq",
                    cop_form: str = "bilinear", subproblem_time_limit: float | None = 60.0,
                    ) -> FSLinearResult:
    """Solve FS-SVM (2) of paper D with ``method``.

    ``bigm``: BigMP (6) (M given, else sqrt(2 UB) from a top-B SVM, always valid); ``cop``:
    CoP (7); ``local-search``: Algorithm 1; ``kernel-search``: Algorithm 2; ``heuristic``:
    Algorithm 3 with ``strategy``; ``exact``: Algorithm 4. ``solver`` is used for the MIQP
    parts (and the MISOCPs unless ``misocp_solver``), ``relax_solver`` for the conic
    relaxations. A time limit returns the incumbent with status ``time_limit``.
    """
    from sparsekm.algorithms.fs_linear_exact import exact
    from sparsekm.algorithms.fs_linear_heuristic import heuristic
    from sparsekm.algorithms.fs_linear_kernel_search import kernel_search
    from sparsekm.algorithms.fs_linear_local_search import local_search

    X, y = check_fs_inputs(X, y, B, C)
    if method not in METHODS:
        raise ValueError(f"method={method!r}: choose one of {', '.join(METHODS)}")
    t0 = time.perf_counter()
    if method in ("bigm", "cop"):
        if method == "bigm":
            Mv = estimate_big_m(X, y, B, C) if M is None else M
            mdl = bigm_model(X, y, B, C, Mv, cardinality)
        else:
            mdl = cop_model(X, y, B, C, cardinality, form=cop_form)
        res, raw = solve_fs_model(mdl, X, y, solver=solver, time_limit=time_limit)
        res.status = raw.status.value
        res.method = method
        res.time_s = time.perf_counter() - t0
        if method == "bigm":
            res.info["M"] = Mv
        if not res.has_solution:
            raise RuntimeError(f"{method}: no feasible point found (status {res.status}: "
                               f"{raw.message}); raise the time limit or use kernel-search")
        return res
    common = dict(miqp_solver=solver, relax_solver=relax_solver, time_limit=time_limit,
                  cop_form=cop_form)
    if method == "local-search":
        return local_search(X, y, B, C, k=k, **common)
    if method == "kernel-search":
        return kernel_search(X, y, B, C, rho=rho, subproblem_time_limit=subproblem_time_limit,
                             **common)
    if method == "heuristic":
        return heuristic(X, y, B, C, strategy=strategy, k=k, rho=rho,
                         subproblem_time_limit=subproblem_time_limit, **common)
    return exact(X, y, B, C, s=s, strategy=strategy, k=k, rho=rho, M=M,
                 misocp_solver=misocp_solver or solver,
                 subproblem_time_limit=subproblem_time_limit, **common)
