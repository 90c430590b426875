"""Paper C's SMO Algorithm (Section 4.1) on the sparse KLR dual (22): methods smo2 and smo1.

Both run the compiled engine :func:`sparsekm.engines.smo.solve_kernel_dual` with the
Logistic loss: ``smo2`` selects the working set by the second-order rule (eqs. (31)-(35),
S-KLR-2ord), ``smo1`` by the maximal violating pair (eq. (32), S-KLR-1ord / Keerthi et al.'s
KLR-1ord when lam = 0). Defaults are Section 5.1's: tau = 1e-5, 10,000 iterations, gamma = 1e-5
(the problem's ``gamma_bound``).

The KKT tolerance ``tol`` is absolute, so the relative duality gap it leaves grows with C when
lam = 0: measured at tol = 1e-5 on seven data sets (sonar, wine, breast_cancer_diagnostic,
ionosphere, banknote, diabetes, monk2), C = 1e-2 .. 1e6, both working-set rules, every run
that converged with lam = C/9, C/3 or C (348) ended with a gap <= 8.1e-6, but with lam = 0 21
of 54 (smo2) ended above 1e-5 and up to 1.8e-2 (wine, C = 1e6). So a converged run whose gap
is above ``gap_tol`` (default 1e-5, reached unrefined by every measured run with lam > 0)
goes on from its alpha at a tighter tol (:data:`REFINE_ROUNDS` times at most, within
``max_iter`` and the time limit): wine, C = 1e6, lam = 0 (smo2) goes from 1.8e-2 to 7.6e-6 in
two more rounds, 422 iterations (1.3 -> 2.4 ms). The status is ``optimal`` only when the gap is
within ``gap_tol`` (docs/guides/sklr.md has the measurements).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from sparsekm.declare import Annotated, Spec, with_
from sparsekm.models.sklr.problem import SKLRProblem
from sparsekm.registry import Part, register, uses_solvers
from sparsekm.solvers import Result, SolverPlan, Termination
from sparsekm.specs import GAP_TOL as SHARED_GAP_TOL
from sparsekm.specs import MAX_ITER as SHARED_MAX_ITER
from sparsekm.specs import TOL as SHARED_TOL

__all__ = ["GAP_TOL", "REFINE_ROUNDS", "SMO_GAP_TOL", "smo1", "smo2", "solve_smo"]

SMO_GAP_TOL = 1e-5   # reached without refinement by every converged lam > 0 run measured
REFINE_ROUNDS = 4    # continuations at a tighter tol, at most
MIN_TOL = 1e-13      # relative to the gradient's size: float64 resolves no finer KKT violation

TOL = with_(SHARED_TOL, help="SMO's stopping tolerance tau on the KKT conditions (27) of (22): "
            "m(a) - M(a) <= tol (paper C Section 5.1: 1e-5).", flag="--tol")
MAX_ITER = with_(SHARED_MAX_ITER, help="SMO iterations at most, refinements included "
                 "(paper C Section 5.1: 10,000; -1: none).", flag="--max-iter")
GAP_TOL = with_(SHARED_GAP_TOL, help="Relative duality gap of (22) (objective vs the "
                "certified linearised bound) at which the result counts as optimal; a "
                "converged SMO above it continues from its alpha at a 10-100x tighter tol.")
ALPHA0 = Spec("Warm start: one alpha per training row (an array; clipped to the box "
              "[gamma, C - gamma] of (22c) and rebalanced to y'alpha = 0); none: "
              "a_i = 1 / m_class (Section 5.1).")
CACHE_MB = Spec("Megabytes for the kernel: the whole m x m matrix when it fits (precompute "
                "auto), else rows computed on demand in an LRU cache of this size.", gt=0)
PRECOMPUTE = Spec("Kernel access: auto (the matrix when its m^2 doubles fit in cache_mb), "
                  "matrix (always the whole matrix) or rows (rows on demand, LRU-cached).",
                  choices=("auto", "matrix", "rows"))


def _precompute(value: Any) -> Any:
    """The kernel source's ``precompute`` (True, False, "auto") for a declared choice (the
    engine's own words pass as they are)."""
    return {"matrix": True, "rows": False}.get(value, value) if isinstance(value, str) else value


def solve_smo(problem: SKLRProblem, plan: SolverPlan | None, wss: str, **options: Any
              ) -> Result:
    """Run the engine on ``problem``; ``options``: tol, max_iter, gap_tol, alpha0, grad0,
    cache_mb, precompute, decide (see :func:`smo2`; ``decide`` as in
    :class:`~sparsekm.engines.smo.SMOOptions`, without refinement)."""
    from sparsekm.engines.smo import SMOOptions, solve_kernel_dual

    plan = (plan or SolverPlan()).start()
    ks = problem.kernel_source(options.pop("cache_mb", 1024.0),
                               _precompute(options.pop("precompute", "auto")))
    gap_tol = float(options.pop("gap_tol", SMO_GAP_TOL))
    opts = SMOOptions(wss=wss, tol=options.pop("tol", 1e-5),
                      max_iter=options.pop("max_iter", 10_000),
                      time_limit=plan.clock.cap(), decide=options.pop("decide", None))
    alpha0, grad0 = options.pop("alpha0", None), options.pop("grad0", None)
    if options:
        raise ValueError(f"unknown SMO options {sorted(options)}")
    loss = problem.loss()
    res = solve_kernel_dual(ks, problem.y, loss, alpha0=alpha0, grad0=grad0, options=opts)
    res = _refined(ks, problem.y, loss, res, opts, gap_tol, plan)
    res.gap_tol = gap_tol
    res.problem = "sklr"
    res.method = "smo2" if wss == "second-order" else "smo1"
    res.extra["kernel_mode"] = "precomputed" if ks.precomputed else f"rows({ks.cache_rows})"
    res.extra["kernel_mb"] = round(ks.nbytes / 2**20, 1)
    return res


def _refined(ks: Any, y: np.ndarray, loss: Any, res: Result, opts: Any, gap_tol: float,
             plan: SolverPlan) -> Result:
    """``res`` continued from its alpha at a 10-100x tighter tol while it converged with a
    relative gap above ``gap_tol`` (at most :data:`REFINE_ROUNDS` rounds, within ``max_iter``
    and the plan's time). ``extra``: ``iterations`` (all rounds), ``refinements``,
    ``gap_unrefined`` and ``refined_tol`` (the last round's tol) when it refined."""
    from sparsekm.engines.smo import solve_kernel_dual

    total = first = int(res.extra["iterations"])
    rounds, tol, unrefined, seconds = 0, float(opts.tol), res.gap, res.time_s
    floor = MIN_TOL * max(1.0, float(np.max(np.abs(res.values["grad"]))))
    while (res.termination is Termination.CONVERGED and res.extra.get("decided") is None
           and res.gap is not None and res.gap > gap_tol and rounds < REFINE_ROUNDS
           and tol > floor and not plan.clock.expired()):
        left = math.inf if opts.max_iter == -1 else opts.max_iter - total
        if left <= 0:
            break
        rounds += 1
        tol = max(floor, tol * min(0.1, max(0.01, 0.5 * gap_tol / res.gap)))
        cap = min(left, max(10_000, 10 * first))   # a stalled round cannot run on unbounded
        sub = dataclasses.replace(opts, tol=tol, max_iter=int(cap),
                                  time_limit=plan.clock.cap())
        nxt = solve_kernel_dual(ks, y, loss, alpha0=res.alpha, grad0=res.values["grad"],
                                options=sub)
        total += int(nxt.extra["iterations"])
        seconds += nxt.time_s
        better = nxt.gap is not None and nxt.gap < res.gap
        if nxt.termination is not Termination.CONVERGED:
            res = nxt if better else res   # stopped by the cap or the clock: keep the better
            break
        res = nxt
    res.time_s = seconds
    res.extra.update(iterations=total, tol=float(opts.tol), refinements=rounds)
    if rounds:
        res.extra.update(gap_unrefined=unrefined, refined_tol=tol)
    return res


@register("sklr", "method", "smo2", paper="C", ref="Section 4.1, SMO Algorithm with WSS "
          "(31)-(35)", problem_class="EXP")
@uses_solvers(dual=Part("dual (22)", (), default="sparsekm SMO (logistic)"))
def smo2(problem: SKLRProblem, plan: SolverPlan | None = None, *,
         tol: Annotated[float, TOL] = 1e-5, max_iter: Annotated[int, MAX_ITER] = 10_000,
         gap_tol: Annotated[float, GAP_TOL] = SMO_GAP_TOL,
         alpha0: Annotated[Any, ALPHA0] = None, cache_mb: Annotated[float, CACHE_MB] = 1024.0,
         precompute: Annotated[str, PRECOMPUTE] = "auto") -> Result:
    """SMO with the second-order working-set selection of paper C (S-KLR-2ord)."""
    return solve_smo(problem, plan, "second-order", tol=tol, max_iter=max_iter,
                     gap_tol=gap_tol, alpha0=alpha0, cache_mb=cache_mb, precompute=precompute)


@register("sklr", "method", "smo1", paper="C", ref="Section 5.2, S-KLR-1ord (MVP, eq. (32))",
          problem_class="EXP")
@uses_solvers(dual=Part("dual (22)", (), default="sparsekm SMO (logistic)"))
def smo1(problem: SKLRProblem, plan: SolverPlan | None = None, *,
         tol: Annotated[float, TOL] = 1e-5, max_iter: Annotated[int, MAX_ITER] = 10_000,
         gap_tol: Annotated[float, GAP_TOL] = SMO_GAP_TOL,
         alpha0: Annotated[Any, ALPHA0] = None, cache_mb: Annotated[float, CACHE_MB] = 1024.0,
         precompute: Annotated[str, PRECOMPUTE] = "auto") -> Result:
    """SMO with the first-order maximal violating pair (Keerthi et al.'s KLR-1ord rule)."""
    return solve_smo(problem, plan, "first-order", tol=tol, max_iter=max_iter,
                     gap_tol=gap_tol, alpha0=alpha0, cache_mb=cache_mb, precompute=precompute)
