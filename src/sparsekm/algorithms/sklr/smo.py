"""Paper C's SMO Algorithm (Section 4.1) on the sparse KLR dual (22): methods smo2 and smo1.

Both run the compiled engine :func:`sparsekm.solvers.smo.solve_kernel_dual` with the
Logistic loss: ``smo2`` selects the working set by the second-order rule (eqs. (31)-(35),
S-KLR-2ord), ``smo1`` by the maximal violating pair (eq. (32), S-KLR-1ord / Keerthi et al.'s
KLR-1ord when lam = 0). Defaults are Section 5.1's: tau = 1e-5, 10,000 iterations, gamma = 1e-5
(the problem's ``gamma_bound``).
"""

from __future__ import annotations

from typing import Any

from sparsekm.models.sklr.problem import SKLRProblem
from sparsekm.registry import register
from sparsekm.solvers import Result, SolverPlan

__all__ = ["smo1", "smo2", "solve_smo"]


def solve_smo(problem: SKLRProblem, plan: SolverPlan | None, wss: str, **options: Any
              ) -> Result:
    """Run the engine on ``problem``; ``options``: tol, max_iter, alpha0, grad0, cache_mb,
    precompute, decide."""
    from sparsekm.solvers.smo import SMOOptions, solve_kernel_dual

    plan = (plan or SolverPlan()).start()
    ks = problem.kernel_source(options.pop("cache_mb", 1024.0),
                               options.pop("precompute", "auto"))
    opts = SMOOptions(wss=wss, tol=options.pop("tol", 1e-5),
                      max_iter=options.pop("max_iter", 10_000),
                      time_limit=plan.clock.cap(), decide=options.pop("decide", None))
    res = solve_kernel_dual(ks, problem.y, problem.loss(), alpha0=options.pop("alpha0", None),
                            grad0=options.pop("grad0", None), options=opts)
    if options:
        raise ValueError(f"unknown SMO options {sorted(options)}")
    res.problem = "sklr"
    res.method = "smo2" if wss == "second-order" else "smo1"
    res.extra["kernel_mode"] = "precomputed" if ks.precomputed else f"rows({ks.cache_rows})"
    res.extra["kernel_mb"] = round(ks.nbytes / 2**20, 1)
    return res


@register("sklr", "method", "smo2", paper="C", ref="Section 4.1, SMO Algorithm with WSS "
          "(31)-(35)", problem_class="EXP")
def smo2(problem: SKLRProblem, plan: SolverPlan | None = None, *, tol: float = 1e-5,
         max_iter: int = 10_000, alpha0: Any = None, cache_mb: float = 1024.0,
         precompute: Any = "auto") -> Result:
    """SMO with the second-order working-set selection of paper C (S-KLR-2ord)."""
    return solve_smo(problem, plan, "second-order", tol=tol, max_iter=max_iter, alpha0=alpha0,
                     cache_mb=cache_mb, precompute=precompute)


@register("sklr", "method", "smo1", paper="C", ref="Section 5.2, S-KLR-1ord (MVP, eq. (32))",
          problem_class="EXP")
def smo1(problem: SKLRProblem, plan: SolverPlan | None = None, *, tol: float = 1e-5,
         max_iter: int = 10_000, alpha0: Any = None, cache_mb: float = 1024.0,
         precompute: Any = "auto") -> Result:
    """SMO with the first-order maximal violating pair (Keerthi et al.'s KLR-1ord rule)."""
    return solve_smo(problem, plan, "first-order", tol=tol, max_iter=max_iter, alpha0=alpha0,
                     cache_mb=cache_mb, precompute=precompute)
