"""Algorithm 1 (ABR) of paper B as a registered method: ranked, random or relaxation starts.

Defaults (measured against the certified optimum of ``exact``, docs/guides/smkl.md, finding 3):
``init="ranking"`` starts from the ``starts=3`` best single kernels by (4) at beta = e_i (q SVM
solves), each run with the local search over supports (``faces=True``). With k0 = 1 the
ranking enumerates every support: its best kernel is returned, certified optimal. The paper's
Algorithm 1 with random initialization is ``init="random", starts=1, faces=False``.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from sparsekm.declare import Annotated, ParamError, Spec
from sparsekm.models.smkl.objective import evaluate
from sparsekm.models.smkl.problem import SMKLProblem
from sparsekm.registry import register, uses_solvers
from sparsekm.solvers import SolverPlan, Termination
from sparsekm.specs import SEED

from .abr import ABRStopping, abr_run, random_start, sparse_start
from .result import method_result
from .specs import INIT, INITS, STARTS, SVM_DUALS

__all__ = ["abr", "initial_betas"]

CERTIFIED_GAP = 1e-4  # later starts are skipped once a certified bound is this close
MONOTONE = Spec("Reject a best-response step that increases (4) (backtracking instead); "
                "false: Algorithm 1 as printed.")
FACES = Spec("Local search over supports when a best response does not decrease (4) "
             "(monotone only); false: the paper's Algorithm 1.")


def ranked_kernels(problem: SMKLProblem, deadline: Any = None) -> tuple[np.ndarray, list]:
    """Kernels by increasing (4) at beta = e_i (ties by index) and their Evaluations (q SVMs).

    When ``deadline`` expires, the kernels not yet evaluated (at least one is) rank last, in
    index order, with ``None`` for their Evaluation."""
    evals: list = []
    for i in range(problem.q):
        if evals and deadline is not None and deadline.expired():
            evals += [None] * (problem.q - i)
            break
        evals.append(evaluate(problem, np.eye(problem.q)[i], deadline=deadline))
    return np.argsort([np.inf if e is None else e.upper for e in evals], kind="stable"), evals


def _best_single(problem: SMKLProblem, t0: float, deadline: Any) -> Any:
    """k0 = 1: the ranking is the enumeration of every support, so its best kernel is optimal;
    the certified bound is min_i of the dual values (each <= (4) at e_i). Cut short by the
    deadline, the best kernel evaluated is returned without a bound."""
    order, evals = ranked_kernels(problem, deadline)
    done = all(e is not None for e in evals)
    return method_result(problem, "abr", t0, evaluation=evals[order[0]], deadline=deadline,
                         bound=min(e.value for e in evals) if done else None,
                         termination=Termination.CONVERGED if done else Termination.TIME_LIMIT,
                         init="ranking", ranking=[int(i) for i in order], enumerated=done,
                         single_values=[None if e is None else e.upper for e in evals],
                         start_objectives=[evals[order[0]].upper])


def initial_betas(problem: SMKLProblem, plan: SolverPlan, init: str, starts: int, seed: int,
                  deadline: Any = None) -> tuple[list[np.ndarray], dict[str, Any]]:
    """Start points: ``ranking`` -- the single kernels e_i of lowest (4), best first;
    ``random`` -- seeded random k0-sparse betas (Section 3.3); any registered smkl relaxation
    -- its k0 largest weights (renormalised). Random starts fill up to ``starts``."""
    from sparsekm import registry

    rng = np.random.default_rng(seed)
    info: dict[str, Any] = {}
    betas = []
    if init == "ranking":
        order, evals = ranked_kernels(problem, deadline)
        ranked = [i for i in order[:max(starts, 1)] if evals[i] is not None]
        betas = [np.eye(problem.q)[i] for i in ranked]
        info = {"ranking": [int(i) for i in order],
                "single_values": [None if e is None else e.upper for e in evals]}
    elif init not in INITS:
        relax = registry.get("smkl", "relaxation", init)(problem, plan)
        beta = relax.values.get("beta")
        if beta is None:
            raise ParamError("init", init, f"relaxation {init} returned no point "
                             f"({relax.message}); use init random or ranking")
        betas.append(sparse_start(beta, problem.k0))
        info = {"init_bound": relax.bound, "init_relaxation_value": relax.objective,
                "init_time_s": relax.time_s}
    while len(betas) < starts:
        betas.append(random_start(problem.q, problem.k0, rng))
    return betas, info


def _certified(runs: list[dict[str, Any]]) -> bool:
    """The best run's value is within CERTIFIED_GAP of the bound of every alpha met so far:
    later starts cannot improve it by more (the same cut with or without an executor)."""
    top = min(r["best"].upper for r in runs)
    return top - max(r["bound"] for r in runs) <= CERTIFIED_GAP * max(1.0, abs(top))


def _run_one(problem: SMKLProblem, beta0: np.ndarray, opts: dict[str, Any]) -> dict[str, Any]:
    out = abr_run(problem, beta0, **opts)
    out.pop("evals")
    return out


def _warm_up() -> None:
    """The SMO engine's compiled code, loaded before a solve (its time limit)."""
    from sparsekm.engines.smo import load_engine

    load_engine()


@register("smkl", "method", "abr", paper="B", ref="Algorithm 1", problem_class="heuristic",
          warm_up=_warm_up)
@uses_solvers(svm=SVM_DUALS)
def abr(problem: SMKLProblem, plan: SolverPlan | None = None, *,
        init: Annotated[str, INIT] = "ranking", starts: Annotated[int, STARTS] = 3,
        seed: Annotated[int, SEED] = 0, stop: ABRStopping = ABRStopping(tol=1e-4),
        monotone: Annotated[bool, MONOTONE] = True,
        faces: Annotated[bool, FACES] = True) -> Any:
    """Alternating best response (Algorithm 1) with GSSP; the best of ``starts`` runs.

    ``init``: ``ranking`` (the ``starts`` best single kernels), ``random`` (Section 3.3) or a
    relaxation's name (its k0 largest weights, then random starts); ``stop``: its ``tol``,
    ``patience``, ``max_iter`` are epsilon, M, T of Algorithm 1; ``monotone``: reject steps
    that increase (4); ``faces``: local search over supports when a best response does not
    decrease (4).
    """
    plan = (plan or SolverPlan()).start()
    t0 = time.perf_counter()
    if init == "ranking" and problem.k0 == 1:
        return _best_single(problem, t0, plan.clock)
    betas, info = initial_betas(problem, plan, init, starts, seed, plan.clock)
    opts = {"stop": stop, "monotone": monotone, "faces": faces}
    if plan.executor is not None:
        opts["deadline"] = plan.clock   # pickled as wall time: each worker stops at the limit
        done = plan.executor.map(_run_one, [problem] * len(betas), betas, [opts] * len(betas))
        runs = [r for i, r in enumerate(done) if i == 0 or not _certified(done[:i])]
    else:  # in order, until the bound of the alphas met certifies the best run (gap <= 1e-4)
        runs = []
        for b in betas:
            if runs and plan.clock is not None and plan.clock.expired():
                break
            runs.append(_run_one(problem, b, {**opts, "deadline": plan.clock}))
            if _certified(runs):
                break
    best = min(runs, key=lambda r: r["best"].upper)
    bound = max([r["bound"] for r in runs] + [info.get("init_bound") or -np.inf])
    cut = len(runs) < len(betas) and not _certified(runs)  # starts skipped at the limit
    timed_out = cut or any(r["termination"] == "time_limit" for r in runs) \
        or None in info.get("single_values", ())
    res = method_result(
        problem, "abr", t0, evaluation=best["best"], bound=bound, deadline=plan.clock,
        termination=Termination.TIME_LIMIT if timed_out else Termination.CONVERGED,
        iterations=len(best["history"]) - 1, history=best["history"],
        start_objectives=[r["best"].upper for r in runs], init=init, **info)
    return res.mark_local(best["local"]) if best.get("local") else res
