"""One call for every method of Paper A, with seeded multistart over the plan's executor.

Methods that start from a mask (``ls``, ``ls-star``, ``decsub``, ``relax-round``, ``minlp``)
run once per start from seeded random masks (Section 5.2 uses 10 starts); the best start is
returned and the per-start objectives and times are in ``extra["starts"]``. Starts are
independent, so they run on ``plan.executor`` (local processes or Dask) when given; start k
uses mask k of ``random_masks(n, B, starts, seed)`` and seed ``seed + k`` whatever the number
of workers, so the answer does not depend on it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sparsekm.models.fs_kernel import FSKernelProblem, random_masks
from sparsekm.parallel import as_executor
from sparsekm.registry import Entry
from sparsekm.solvers import Result, SolverPlan

__all__ = ["solve_fs_kernel"]


def _one(entry: Entry, problem: FSKernelProblem, plan: SolverPlan, options: dict[str, Any]
         ) -> Result:
    return entry.run(problem, plan, **options)


def solve_fs_kernel(problem: FSKernelProblem, method: str = "ls-star",
                    plan: SolverPlan | None = None, *, starts: int = 1, seed: int = 0,
                    **options: Any) -> Result:
    """Run the registered method ``method`` on ``problem``; multistart for started methods.

    ``plan.time_limit`` is per start; ``options`` are the method's own (e.g. ``n_samples``,
    ``opt_window``, ``p`` for LS*; ``sol_pool``, ``greedy`` for DecSubLight*; ``workers`` for
    enumeration). An option the method does not take is a clear error.
    """
    from sparsekm import registry

    entry = registry.get("fs-kernel", "method", method)
    plan = plan or SolverPlan()
    if int(starts) < 1:
        raise ValueError(f"starts must be >= 1, got {starts}")
    if "beta_in" not in entry.options:
        return entry.run(problem, plan, **options)
    entry.bind(**options)  # refuses unknown options before any work starts
    fresh = replace(plan, deadline=None, executor=None)
    inits = random_masks(problem.n, problem.B, int(starts), seed)
    opts = [{**options, "beta_in": b, "seed": seed + k} for k, b in enumerate(inits)]
    ex = as_executor(plan.executor)
    runs = ex.map(_one, [entry] * len(opts), [problem] * len(opts), [fresh] * len(opts), opts)
    k_best = min(range(len(runs)), key=lambda k: (problem.sign * runs[k].objective, k))
    best = runs[k_best]
    best.extra["starts"] = [{"objective": r.objective, "time_s": r.time_s,
                             "selected": r.selected, "status": r.status.value} for r in runs]
    best.extra["best_start"] = k_best
    best.time_s = sum(r.time_s for r in runs) if not ex.parallel else max(r.time_s for r in runs)
    return best
