"""One call for every method of Paper A, with seeded multistart over the plan's executor.

Methods that start from a mask (``ls``, ``ls-star``, ``decsub``, ``relax-round``, ``minlp``)
run once per start from seeded random masks (Section 5.2 uses 10 starts); the best start is
returned and the per-start objectives and times are in ``extra["starts"]``. Starts are
independent, so they run on ``plan.executor`` (local processes or Dask) when given; start k
uses mask k of ``random_masks(n, B, starts, seed)`` and seed ``seed + k`` whatever the number
of workers, so the answer does not depend on it. All starts share the plan's one deadline.
A start whose solver fails (e.g. Ipopt's "unrecoverable error" in relax-round) is recorded
in ``extra["starts"]`` with its message and the best of the others is returned; only when
every start fails does the call fail.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from sparsekm import declare
from sparsekm.declare import Spec
from sparsekm.models.fs_kernel import FSKernelProblem, random_masks
from sparsekm.parallel import as_executor
from sparsekm.registry import Entry
from sparsekm.solvers import Result, SolveFailedError, SolverPlan

from ..api import front_door, solve

__all__ = ["STARTS", "MultiStart", "solve_fs_kernel"]


STARTS = Spec("Seeded random start masks of the started methods (ls, ls-star, decsub, "
              "relax-round, minlp); the best is kept (paper A, Section 5.2: 10).", ge=1,
              le=10_000)


@dataclass(frozen=True)
class MultiStart:
    """Paper A's multistart (Section 5.2: 10 starts)."""

    starts: int = declare.field(1, STARTS)


def _one(entry: Entry, problem: FSKernelProblem, plan: SolverPlan, options: dict[str, Any]
         ) -> Result | str:
    """One start: its Result, or the solver's failure message."""
    try:
        return entry.run(problem, plan, **options)
    except SolveFailedError as exc:
        return str(exc)


@front_door("fs-kernel", own=MultiStart)
def _run(problem: FSKernelProblem, entry: Entry, plan: SolverPlan, options: dict[str, Any],
         starts: int = 1) -> Result:
    """``entry`` on ``problem``, once per start for a method that starts from a mask."""
    if "beta_in" not in entry.params or "beta_in" in options:
        return entry.run(problem, plan, **options)
    seed = int(options.get("seed", 0))
    inits = random_masks(problem.n, problem.B, int(starts), seed)
    opts = [{**options, "beta_in": b, "seed": seed + k} for k, b in enumerate(inits)]
    ex = as_executor(plan.executor)
    shared = replace(plan, executor=None)   # every start spends the one deadline
    runs = ex.map(_one, [entry] * len(opts), [problem] * len(opts), [shared] * len(opts), opts)
    ok = [k for k, r in enumerate(runs) if isinstance(r, Result)]
    if not ok:
        raise SolveFailedError(f"all {len(runs)} starts failed; the first: {runs[0]}")
    k_best = min(ok, key=lambda k: (problem.sign * runs[k].objective, k))
    best = runs[k_best]
    best.extra["starts"] = [{"objective": r.objective, "time_s": r.time_s,
                             "selected": r.selected, "status": r.status.value}
                            if isinstance(r, Result) else {"status": "error", "message": r}
                            for r in runs]
    best.extra["best_start"] = k_best
    best.time_s = plan.clock.elapsed()
    return best


def solve_fs_kernel(problem: FSKernelProblem, method: str | None = None,
                    plan: SolverPlan | None = None, *, starts: int = 1,
                    **options: Any) -> Result:
    """Run the registered method ``method`` (default ``ls-star``) on ``problem``, with
    ``starts`` seeded starts for the methods that start from a mask; ``options`` are the
    method's declared ones (e.g. ``n_samples``, ``opt_window``, ``p`` for LS*; ``sol_pool``,
    ``greedy`` for DecSubLight*; ``workers`` for enumeration; ``seed`` for the starts)."""
    return solve(problem, method, plan, starts=starts, **options)
