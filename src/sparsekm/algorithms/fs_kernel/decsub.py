"""DecSubLight*, Paper A Algorithm 3 (Section 4.3): alternating optimization with a submodular
beta-step.

For fixed ``alpha^k`` the beta-subproblem (5) is solved heuristically by Minoux's lazy greedy on
the submodular problem (11) (Proposition 2), refined by LS with ``alpha`` fixed; the best
``#SolPool`` masks met are re-evaluated by the alpha-subproblem (3), kept in ExploredSolsList and
the best unexplored one becomes ``(alpha^{k+1}, beta^{k+1})``. A tabu list prevents
re-evaluations; the search stops after ``OptWindow`` iterations without improving ``UB*``.

For Gaussian kernels H is not submodular (Appendix A.2) and Paper A runs only LS* (Table 6);
the same steps still run there as a plain heuristic without the (1 - 1/e) reasoning.

Only the paper sense (problem (4), ``min_beta min_alpha``) is supported: there the beta-step
minimizes ``f(alpha^k, .)`` and ``min_alpha f(alpha, beta) <= f(alpha^k, beta)``, so a better
beta-step value bounds the next UB from above. In the margin sense (``max_beta min_alpha``) the
same bound points the wrong way -- maximizing ``f(alpha^k, .)`` maximizes an *upper* bound of
the objective and gives no guarantee -- so that combination is refused. Measured: such a
variant (lazy greedy + LS maximizing F, pool of 200) ended below LS* in the margin sense on
6 of 6 runs (ionosphere, sonar, breast_cancer_diagnostic, m = 100, poly d = 2, 2 starts each).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sparsekm.declare import Annotated, ParamError, Spec
from sparsekm.models.fs_kernel import FSKernelProblem, SetFunctions
from sparsekm.models.fs_kernel.setfun import TENSOR_LIMIT_BYTES
from sparsekm.models.fs_kernel.specs import BETA_IN
from sparsekm.registry import register, uses_solvers
from sparsekm.solvers import Result, SolverPlan
from sparsekm.specs import SEED

from .evaluator import mask_key, single_blas
from .greedy import greedy_H, lazy_greedy_H, ls_fixed_alpha
from .local_search import start_mask
from .plain import PlainEvaluator
from .preload import warm_up_search
from .recipe import unpack
from .screened import make_evaluator
from .search import StallWindow
from .specs import SVM_DUALS, FastPath, Stopping

__all__ = ["GREEDY_RULES", "decsub_light"]

GREEDY_RULES = ("lazy", "plain")
SOL_POOL = Spec("#SolPool: best masks of the beta-step re-evaluated by the alpha-subproblem "
                "(3) per iteration (Algorithm 3; Section 5: 200).", ge=1, flag="--sol-pool")
GREEDY = Spec("Greedy for the submodular beta-step (11): lazy (Minoux's, as in the paper) or "
              "plain (the reference).", choices=GREEDY_RULES)


@register("fs-kernel", "method", "decsub", paper="A", ref="Algorithm 3 (DecSubLight*)",
          warm_up=warm_up_search("decsub", sense="paper"))
@single_blas
@uses_solvers(svm=SVM_DUALS)
def decsub_light(problem: FSKernelProblem, plan: SolverPlan, *,
                 beta_in: Annotated[Any, BETA_IN] = None, seed: Annotated[int, SEED] = 0,
                 sol_pool: Annotated[int, SOL_POOL] = 200,
                 greedy: Annotated[str, GREEDY] = "lazy",
                 stop: Stopping = Stopping(opt_window=10),
                 path: FastPath = FastPath()) -> Result:
    """DecSubLight*: alternating alpha-steps and submodular beta-steps (paper sense only).

    ``beta_in`` (default: the seeded random mask) is the start; ``sol_pool`` is ``#SolPool``
    (Section 5: 200), ``stop.opt_window`` ``OptWindow`` (Section 5: 10), ``greedy`` Minoux's lazy
    greedy (the paper) or the plain greedy (reference) for (11). Never worse than ``beta_in``
    (``UB*`` starts at ``UB^in``); on the time limit the best mask so far is returned.
    ``fast`` bounds the pool from ``alpha^k`` and solves only the masks that decide the best
    mask and the next ``alpha^{k+1}`` (``path``; same masks as ``fast=False``).
    """
    if problem.sense != "paper":
        raise ParamError(
            "sense", problem.sense,
            "method 'decsub' (DecSubLight*) supports sense='paper' only: its beta-step "
            "minimizes f(alpha^k, beta), which bounds min_alpha f from above -- sound for the "
            "paper's min-min problem (4) but not for the margin sense's max-min. Use "
            "method 'ls-star', 'ls', 'rfe2' or 'enumerate' with sense='margin'")
    need = problem.n * problem.m ** 2 * 8
    if need > TENSOR_LIMIT_BYTES:
        raise ParamError(
            "method", "decsub",
            f"DecSubLight*'s beta-steps hold the per-feature kernel terms of the support "
            f"vectors, up to n m^2 = {problem.n} x {problem.m}^2 values ({need / 2**30:.1f} "
            f"GB; at most {TENSOR_LIMIT_BYTES // 2**20} MB): use method 'ls-star' or 'rfe1', "
            "or fewer rows (--rows)")
    ev = make_evaluator(problem, plan, path.fast, path.threads)
    try:
        return _decsub(ev, problem, beta_in, seed, sol_pool, stop.opt_window, greedy,
                       stop.max_iter)
    finally:
        ev.close()


def _decsub(ev: PlainEvaluator, p: FSKernelProblem, beta_in: np.ndarray | None, seed: int,
            sol_pool: int, opt_window: int, greedy: str, max_iter: int) -> Result:
    beta = start_mask(p, beta_in, seed)
    ub_in = ev.eval_mask(beta)
    alpha_k = ev.alpha_of(mask_key(beta))
    tabu = {mask_key(beta)}
    explored: list[bytes] = []
    window = StallWindow(opt_window, ev.best_score)
    window.history.append(ub_in)
    it, n_greedy_evals, timed_out = 0, 0, False
    while it < max_iter:
        it += 1
        sf = SetFunctions(p.X, p.y, alpha_k, p.kernel, p.gamma, p.degree, p.coef0)
        beta_t, info = (lazy_greedy_H if greedy == "lazy" else greedy_H)(sf, p.B)
        n_greedy_evals += info["n_evals"]
        _, pool = ls_fixed_alpha(sf, beta_t, sign=1.0)
        fresh = [key for _, key in pool[:sol_pool] if key not in tabu]
        done = ev.evaluate_pool([unpack(k, p.n) for k in fresh], beta_t, alpha_k)
        tabu.update(fresh[:done])
        explored.extend(fresh[:done])
        window.update(ev.best_score, ev.best_score)
        if ev.out_of_time():
            timed_out = True
            break
        if window.exhausted or not explored:
            break
        key = ev.pick_min(explored)
        explored.remove(key)
        alpha_k = ev.alpha_of(key)
    res = ev.result("decsub", timed_out, start_objective=ub_in, iterations=it,
                    greedy_evals=n_greedy_evals)
    res.log = [{"best_objective": v} for v in window.history]
    return res
