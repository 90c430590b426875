"""Heuristic procedure: Algorithm 3 of paper D (Bomze et al., 2024), H-LS / H-KS."""

from __future__ import annotations

from typing import Any

import numpy as np

from sparsekm.algorithms.fs_linear_common import Deadline, dscop_ranking, finalize
from sparsekm.algorithms.fs_linear_kernel_search import kernel_search
from sparsekm.algorithms.fs_linear_local_search import local_search
from sparsekm.models.fs_linear import FSLinearResult, check_fs_inputs, solve_svm

STRATEGIES = ("local-search", "kernel-search")


def run_strategy(strategy: str, X: np.ndarray, y: np.ndarray, B: int, C: float,
                 u: np.ndarray, dl: Deadline, k: int, rho: int, miqp_solver: str | None,
                 subproblem_time_limit: float | None, cop_form: str) -> FSLinearResult:
    """Run Algorithm 1 or 2 with a given ranking vector u (its step 2 skipped)."""
    if strategy == "local-search":
        return local_search(X, y, B, C, k=k, u=u, miqp_solver=miqp_solver, deadline=dl,
                            cop_form=cop_form)
    if strategy == "kernel-search":
        return kernel_search(X, y, B, C, rho=rho, u=u, miqp_solver=miqp_solver, deadline=dl,
                             subproblem_time_limit=subproblem_time_limit, cop_form=cop_form)
    raise ValueError(f"strategy={strategy!r}: use one of {STRATEGIES}")


def heuristic(X: Any, y: Any, B: int, C: float, strategy: str = "kernel-search", k: int = 10,
              rho: int = 10, miqp_solver: str | None = None, relax_solver: str | None = None,
              time_limit: float | None = None, subproblem_time_limit: float | None = 60.0,
              tighten_time_limit: float | None = None, cop_form: str = "bilinear",
              ) -> FSLinearResult:
    """Heuristic procedure (Algorithm 3, paper D): H-LS (``strategy="local-search"``) or H-KS.

    1. DSCoP (13) -> u*, then Algorithm 1/2 -> incumbent (w^, b^, xi^), UB;
    2. M from Proposition 4.1 (problems (19): max/min w_j over DSCoP with objective <= UB);
    3. plain SVM (1) -> w*; if M < ||w*||_1 / B (test (9)), DSCoMP (14) with that M is
       tighter than (13): solve it for a new u*, rerun the strategy, keep the better point.

    ``lower_bound`` is the best of the DSCoP and (when solved) DSCoMP bounds, both valid since M
    of Proposition 4.1 is valid. ``tighten_time_limit`` caps the 2n tightening problems
    (features not reached keep the valid bound sqrt(2 UB)). ``info`` records M, the test (9)
    and each stage's UB.
    """
    from sparsekm.relaxations.fs_linear import bigm_tightening

    X, y = check_fs_inputs(X, y, B, C)
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy={strategy!r}: use one of {STRATEGIES}")
    dl = Deadline(time_limit)
    u, lb, rinfo = dscop_ranking(X, y, B, C, relax_solver, dl)
    best = run_strategy(strategy, X, y, B, C, u, dl, k, rho, miqp_solver,
                        subproblem_time_limit, cop_form)
    info: dict[str, Any] = {"dscop_bound": lb, "ub_first": best.objective, "ranking": rinfo}
    timed_out = best.status == "time_limit"
    if not dl.expired():
        tl = dl.cap(tighten_time_limit)
        M, _, _ = bigm_tightening(X, y, B, C, best.objective, solver=relax_solver,
                                  time_limit=tl)
        w_svm, _, _ = solve_svm(X, y, C)
        thr = float(np.abs(w_svm).sum() / B)
        info.update(M=M, svm_l1_over_B=thr, test9=bool(thr > M))
        if thr > M and not dl.expired():
            u2, lb2, _ = dscop_ranking(X, y, B, C, relax_solver, dl, relaxation="dscomp", M=M)
            info["dscomp_bound"] = lb2
            if lb2 is not None:
                lb = lb2 if lb is None else max(lb, lb2)
            second = run_strategy(strategy, X, y, B, C, u2, dl, k, rho, miqp_solver,
                                  subproblem_time_limit, cop_form)
            info["ub_second"] = second.objective
            timed_out = second.status == "time_limit"
            if second.objective <= best.objective:
                best = second
    timed_out = timed_out or dl.expired()
    best.status = "feasible"
    name = "heuristic-ls" if strategy == "local-search" else "heuristic-ks"
    return finalize(best, name, dl, lb, timed_out, **info)
