"""``fast``: an iterated swap search for FS-SVM (2) of paper D, at the speed of abess.

1. The swap search (:mod:`.swap`) from the top B features of the full SVM (1).
2. ``restarts`` times: perturb the best support -- ``ceil(perturb * B)`` of its features, drawn
   at random, are replaced by features drawn at random among the ``2B`` (at least 20) outside
   features of largest dual correlation |X_j'(alpha y)| -- and run the swap search again; keep
   the best support (iterated local search, Lourenco, Martin & Stutzle 2003). Seeded: the same
   ``seed`` gives the same support.

Why restarts: the 1-swap neighbourhood of (2) has many local optima on wide data. Measured on
15 instances (colorectal, lymphoma, dlbcl, two 120 x 1500 synthetic sets; B = 5, 10, 20;
C = 1), one swap search from the top B of the full SVM ended on average 30 % above the best
support any variant found, and 10 restarts brought that to 5 %
(``benchmarks/results/fs_linear_fast.md``).

Every support is solved by the native linear SVM (:mod:`sparsekm.engines.linear_svm`), so
the objective is the exact value of the returned point (w, b) and the SVM (1) optimum of its
support up to a certified relative gap ``tol``. A heuristic: status ``feasible``, unless the
perspective bound at the dual points met (certified, paper D's dual of (13)) closes the gap.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from sparsekm.declare import Annotated, Spec
from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.parallel import single_blas
from sparsekm.registry import Part, register, uses_solvers
from sparsekm.solvers import Result, SolverPlan, Termination
from sparsekm.specs import SEED

from .swap import (
    SearchMemo,
    SwapOptions,
    swap_search,
)

__all__ = ["PERTURB", "POLISH", "RESTARTS", "fast", "fast_incumbent", "iterated_search"]

RESTARTS = Spec("Perturbed restarts of the swap search from the best support (iterated local "
                "search).", ge=0)
PERTURB = Spec("Fraction of B swapped at a restart: ceil(perturb B) support features for "
               "strong outside ones.", gt=0, le=1)
POLISH = Spec("A last swap search from the best support that also tries the 1-swaps ranked by "
              "their primal upper bound.")


def _perturbed(problem: FSLinearProblem, best: Result, perturb: float,
               rng: np.random.Generator) -> np.ndarray:
    """The best support with ceil(perturb B) features swapped for strong outside ones."""
    p = problem
    S = np.asarray(best.selected, dtype=np.int64)
    d = np.abs(p.X.T @ (best.values["alpha"] * p.y))
    d[S] = -np.inf
    size = min(max(2 * p.B, 20), p.n - S.size)
    pool = np.argpartition(-d, size - 1)[:size] if size < d.size else np.arange(d.size)
    pool = pool[np.lexsort((pool, -d[pool]))]    # the strongest first, ties by index
    k = min(max(1, math.ceil(perturb * p.B)), S.size, pool.size)
    S2 = S.copy()
    S2[rng.choice(S.size, k, replace=False)] = rng.choice(pool, k, replace=False)
    return S2


@single_blas
def iterated_search(problem: FSLinearProblem, plan: SolverPlan | None = None,
                    start: Sequence[int] | None = None, options: SwapOptions | None = None,
                    restarts: int = 20, perturb: float = 0.25, seed: int = 0,
                    polish: bool = True) -> Result:
    """The swap search from ``start`` (default: the top B of the full SVM), then ``restarts``
    perturbed restarts, then (``polish``) the search from the best support with the primal
    ranked 1-swaps added (module docstring); the best support, its bound and counts.
    ``restarts`` and ``perturb`` as declared for :func:`fast`."""
    p = problem
    plan = (plan or SolverPlan()).start()
    memo = SearchMemo()
    best = swap_search(p, plan, start, options, memo)
    rng = np.random.default_rng(seed)
    evals, bound, done = best.extra["evaluations"], best.bound, 0
    for _ in range(restarts if p.n > p.B else 0):
        if plan.clock.expired():
            break
        r = swap_search(p, plan, _perturbed(p, best, perturb, rng), options, memo)
        done += 1
        evals += r.extra["evaluations"]
        bound = max(bound if bound is not None else -math.inf, r.bound or -math.inf)
        if r.objective < best.objective:
            best = r
    o = options or SwapOptions()
    if polish and o.moves == "dual" and p.n > p.B:
        for start_, moves in ((start, "primal"), (best.selected, "both")):
            if plan.clock.expired():
                break
            # shared decisions; its own trajectories (a new move rule walks new ones)
            r = swap_search(p, plan, start_, replace(o, moves=moves),
                            SearchMemo(known=memo.known))
            evals += r.extra["evaluations"]
            bound = max(bound if bound is not None else -math.inf, r.bound or -math.inf)
            if r.objective < best.objective:
                best = r
    best.method = "fast"
    best.time_s = plan.clock.elapsed()
    best.termination = Termination.TIME_LIMIT if plan.clock.expired() else best.termination
    best.certify(bound)
    best.extra.update(evaluations=evals, restarts=done, perspective_bound=bound)
    return best


def fast_incumbent(problem: FSLinearProblem, plan: SolverPlan,
                   start: Sequence[int] | None = None) -> Result:
    """The ``fast`` incumbent with its defaults, from ``start`` if given (e.g. a relaxation's
    top B): the one-line root heuristic of branch and bound (``bnb``) and the warm start of
    BigMP / CoP (CoP*)."""
    return iterated_search(problem, plan, start)


def warm_up() -> None:
    """Load the compiled code of ``fast`` (the native SVM's both methods, the swap scores) by
    a search on a tiny seeded problem (:func:`sparsekm.registry.load_compiled`)."""
    from sparsekm.engines.linear_svm import solve_linear_svm
    from sparsekm.engines.smo import load_engine

    load_engine()    # the full SVM's dual beyond 400 columns (madelon) is the SMO engine's
    rng = np.random.default_rng(0)
    X = rng.standard_normal((24, 12))
    y = np.where(np.arange(24) % 2 == 0, 1.0, -1.0)
    for method in ("ipm", "dcd"):
        solve_linear_svm(X[:, :3], y, 1.0, method=method)
    for B in (2, 5):      # B = 5: the Gram-row pair updates too
        iterated_search(FSLinearProblem(X, y, B=B, C=1.0), SolverPlan(), restarts=1)


@register("fs-linear", "method", "fast",
          paper="Zhu et al. (2020), PNAS 117:33117 (splicing); Ferris & Munson (2003)",
          ref="iterated swap search on FS-SVM (2), certified screening, native SVM (1)",
          warm_up=warm_up)
@uses_solvers(svm=Part("SVMs (1) on a support and its screening", (),
                       default="sparsekm linear-svm ipm"))
def fast(problem: FSLinearProblem, plan: SolverPlan, *, swap: SwapOptions = SwapOptions(),
         restarts: Annotated[int, RESTARTS] = 20, perturb: Annotated[float, PERTURB] = 0.25,
         seed: Annotated[int, SEED] = 0, polish: Annotated[bool, POLISH] = True) -> Result:
    """Native iterated swap search: top-B start from the full SVM, certified-screened 1-swaps
    and splicings, seeded perturbed restarts; each support by a native SVM (1) solve.

    ``swap`` (:class:`~.swap.SwapOptions`): ``candidates``: outside features (largest dual
    correlation |X_j'(alpha y)|) tried per 1-swap step; ``splice``: largest exchange size;
    ``tol``: relative duality gap of each accepted support's SVM (1); ``max_evals``: SVM
    solves per swap search; ``svm``: ``"auto"`` (warm pair coordinate descent, then the
    interior-point method when undecided), ``"ipm"`` or ``"dcd"``. ``restarts``: perturbed
    restarts; ``perturb``: fraction of B swapped at a restart; ``seed``: their random draws;
    ``polish``: a last search from the best support that also tries the 1-swaps ranked by
    their primal upper bound (:mod:`.swap_scores`): out among the ``weakest`` features by
    backward sacrifice, in over every outside feature, the ``tries`` best decided. A heuristic
    (status ``feasible``); the lower bound is the perspective bound (dual of (13)) at the dual
    points met: certified.
    """
    return iterated_search(problem, plan, options=swap, restarts=restarts, perturb=perturb,
                           seed=seed, polish=polish)
