"""What travels with a method: which solver does which part, the shared time budget, workers.

A :class:`SolverPlan` replaces the ten solver/time arguments that methods used to thread by hand.
``plan.start()`` fixes the wall clock once; a method that calls another passes the started plan
on, so both spend one budget (:class:`Deadline`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from sparsekm import declare
from sparsekm.deadline import Deadline
from sparsekm.specs import MAX_TIME


@dataclass(frozen=True)
class SolverPlan:
    """Solvers for each part of a method, and the budget they share.

    Parameters
    ----------
    solver : the mixed-integer parts (MIQP / MISOCP / MINLP) and NLPs (``--solver``);
        None = the solver layer's configured default for the model's class.
    relax_solver : conic relaxations (``--relax-solver``); None = configured default.
    misocp_solver : MISOCP parts when they should differ from ``solver``.
    qp_solver : convex QP subproblems such as the SVM on a fixed support; None = sparsekm's
        native fast path (Clarabel called directly).
    time_limit : seconds for the whole method; a limit returns the incumbent.
    subproblem_time_limit : seconds per subproblem (e.g. each Kernel Search MIQP).
    warm_start : hand heuristic incumbents to solvers that accept them.
    verbose : progress lines on stderr.
    executor : where independent pieces of work run (:class:`sparsekm.parallel.Executor`);
        None = in this process.
    """

    solver: str | None = None
    relax_solver: str | None = declare.field(
        None, "Solver for the conic relaxations (default: configured, Clarabel).")
    misocp_solver: str | None = declare.field(
        None, "Solver for the MISOCP parts, when it should differ from --solver.")
    qp_solver: str | None = declare.field(
        None, "Solver for convex QP subproblems such as the SVM on a fixed support (default: "
        "the native path).")
    time_limit: float | None = None
    subproblem_time_limit: float | None = declare.field(
        60.0, "Seconds per subproblem (each Kernel Search MIQP, paper D: 60; each round of "
        "paper B's (18)).", gt=0, le=MAX_TIME)
    warm_start: bool = declare.field(
        True, "Hand heuristic incumbents to solvers that accept them (--no-warm-start: the "
        "cold runs of paper D's Table 3).", flag="--warm-start/--no-warm-start")
    verbose: bool = declare.field(False, "Progress lines on stderr.")
    executor: Any = None
    deadline: Deadline | None = field(default=None, compare=False, repr=False)

    def start(self, since: float | None = None) -> SolverPlan:
        """This plan with its clock started (unchanged if already started); ``since``: the
        moment the budget started (default: now)."""
        if self.deadline is not None:
            return self
        return replace(self, deadline=Deadline(self.time_limit, since))

    @property
    def clock(self) -> Deadline:
        """The running deadline (starts one if the plan was not started)."""
        return self.deadline if self.deadline is not None else Deadline(self.time_limit)

    def with_(self, **changes: Any) -> SolverPlan:
        """A copy with ``changes`` (keeps the running clock)."""
        return replace(self, **changes)

    @property
    def misocp(self) -> str | None:
        """Solver for the MISOCP parts."""
        return self.misocp_solver or self.solver

    def progress(self, line: str) -> None:
        """Print a progress line on stderr when ``verbose``."""
        if self.verbose:
            import sys

            print(line, file=sys.stderr, flush=True)
