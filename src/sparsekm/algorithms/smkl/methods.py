"""Algorithm 1 (ABR) of paper B as a registered method: random / relaxation starts, multistart."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from sparsekm.models.smkl.problem import SMKLProblem
from sparsekm.registry import register
from sparsekm.solvers import SolverPlan, Termination

from .abr import abr_run, random_start, sparse_start
from .result import method_result

__all__ = ["abr", "initial_betas"]


def initial_betas(problem: SMKLProblem, plan: SolverPlan, init: str, starts: int, seed: int
                  ) -> tuple[list[np.ndarray], dict[str, Any]]:
    """Start points: ``starts`` seeded random k0-sparse betas, or the k0 largest weights
    (renormalised) of ``init``, any registered smkl relaxation, followed by ``starts - 1``
    random ones."""
    from sparsekm import registry

    if init != "random" and init not in registry.names("smkl", "relaxation"):
        raise ValueError(f"init={init!r}: choose random or a relaxation: "
                         f"{', '.join(registry.names('smkl', 'relaxation'))}")
    if int(starts) < 1:
        raise ValueError(f"starts={starts} (CLI: --starts): give at least one start (>= 1)")
    rng = np.random.default_rng(seed)
    info: dict[str, Any] = {}
    betas = []
    if init != "random":
        relax = registry.get("smkl", "relaxation", init)(problem, plan)
        beta = relax.values.get("beta")
        if beta is None:
            raise ValueError(f"relaxation {init} returned no point ({relax.message}); use "
                             "--init random")
        betas.append(sparse_start(beta, problem.k0))
        info = {"init_bound": relax.bound, "init_relaxation_value": relax.objective,
                "init_time_s": relax.time_s}
    while len(betas) < starts:
        betas.append(random_start(problem.q, problem.k0, rng))
    return betas, info


def _run_one(problem: SMKLProblem, beta0: np.ndarray, opts: dict[str, Any]) -> dict[str, Any]:
    out = abr_run(problem, beta0, **opts)
    out.pop("evals")
    return out


@register("smkl", "method", "abr", paper="B", ref="Algorithm 1", problem_class="heuristic")
def abr(problem: SMKLProblem, plan: SolverPlan | None = None, *, init: str = "random",
        starts: int = 1, seed: int = 0, max_iter: int = 50, tol: float = 1e-2,
        patience: int = 3, monotone: bool = True) -> Any:
    """Alternating best response (Algorithm 1) with GSSP; the best of ``starts`` runs."""
    plan = (plan or SolverPlan()).start()
    t0 = time.perf_counter()
    betas, info = initial_betas(problem, plan, init, starts, seed)
    opts = {"max_iter": max_iter, "tol": tol, "patience": patience, "monotone": monotone}
    if plan.executor is not None:
        runs = plan.executor.map(_run_one, [problem] * len(betas), betas, [opts] * len(betas))
    else:
        runs = [_run_one(problem, b, {**opts, "deadline": plan.clock}) for b in betas]
    best = min(runs, key=lambda r: r["best"].upper)
    bound = max([r["bound"] for r in runs] + [info.get("init_bound") or -np.inf])
    timed_out = any(r["termination"] == "time_limit" for r in runs)
    res = method_result(
        problem, "abr", t0, evaluation=best["best"], bound=bound,
        termination=Termination.TIME_LIMIT if timed_out else Termination.CONVERGED,
        iterations=len(best["history"]) - 1, history=best["history"],
        start_objectives=[r["best"].upper for r in runs], init=init, **info)
    return res.mark_local(best["local"]) if best.get("local") else res
