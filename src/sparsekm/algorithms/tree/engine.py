"""One best-first branch-and-bound engine for papers A, B and D: serial, parallel, resumable.

The engine owns what the three tree searches share; a problem states only its side through
:class:`~.interface.TreeProblem`. Each part has its module:

* :mod:`.state`: the open nodes, the incumbent, pruning at the relative cutoff
  ``UB - gap_tol |UB|`` and the certified bound ``min(open nodes, nodes in flight, pruned
  floor, UB)``, valid at every stop;
* :mod:`.driver`: deterministic batches in flight on the workers, merged in release order;
* :mod:`.dispatch`: what each worker holds; tasks run in this process while no worker is
  ready, so start-up never holds the search up;
* :mod:`.resume` / :mod:`.checkpoint` / :mod:`.lock`: checkpoints after the root phase and
  every ``checkpoint_every`` seconds, resumed by the same call with the same path, refused
  (one line) when in use by another search, unreadable, or written for other data or
  parameters;
* this module: :func:`run`, one deadline (the plan's) over worker start-up, root phase and
  search, and :func:`result`, the one mapping from a search to its
  :class:`~sparsekm.solvers.Result`: the problem's point, the certified bound on its side,
  the tree's tolerance, the termination, the counters.

Ramp-up (UG's term) is the normal one: the root phase runs in the driver (a heuristic's
sub-search may use the pool), then batches grow with the open set.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from sparsekm.deadline import interrupts_end
from sparsekm.parallel import as_executor
from sparsekm.parallel.slots import Slots, forget
from sparsekm.solvers import Result, SolverPlan, Termination

from . import lock
from .driver import Driver, progress
from .interface import TreeProblem, fingerprint
from .options import SearchOptions
from .resume import load_search, save_search
from .root import RootContext
from .state import Search, Trace

__all__ = ["result", "run"]


@contextmanager
def _one_blas_thread() -> Iterator[None]:
    """One BLAS thread in the driver, as in the workers: small products run fastest so on a
    shared machine, and every process then computes bit-identical values."""
    from sparsekm.parallel.executor import _blas_controller

    with _blas_controller().limit(limits=1, user_api="blas"):
        yield


def result(problem: TreeProblem, search: Search) -> Result:
    """The method's Result: :meth:`~.interface.TreeProblem.point` of the incumbent, then the
    certified bound (turned to the problem's sense), the tree's gap tolerance (so a closed
    tree is ``optimal``), the search's termination, the node solver and the root's info."""
    sign = 1.0 if problem.sense == "min" else -1.0
    if search.best is not None:
        res = problem.point(search.best, sign * search.ub)
    else:
        res = Result(sense=problem.sense)
    res.method, res.problem = problem.name, problem.problem_name or res.problem
    res.gap_tol = problem.gap_tol
    res.termination = search.termination
    res.bound = None            # a point's own bound (of its subproblem) bounds nothing here
    res.certify(sign * search.lower_bound())
    if problem.node_solver:
        res.solver = problem.node_solver
    res.extra.update(search.info)
    return res


def _root(problem: TreeProblem, search: Search, ctx: RootContext) -> None:
    """The root phase (in the driver), its state kept for a resume."""
    t0, c0 = time.perf_counter(), time.process_time()
    start = problem.root(ctx)
    search.root_arrays, search.info = dict(start.arrays), dict(start.info)
    search.absorb(start)
    search.root_done, search.stages = True, {}
    search.timing["root_s"] = time.perf_counter() - t0
    search.timing["root_cpu"] = time.process_time() - c0
    if ctx.path:
        save_search(search, ctx.path, time.perf_counter() - ctx.t0)
        for sub in ctx.subs:         # the root's stages hold what they found
            if os.path.exists(sub):
                os.remove(sub)


def _bound_trace(search: Search) -> list[list[float]]:
    """(seconds, certified bound, incumbent, nodes) over the run, on the problem's side."""
    sign = 1.0 if search.problem.sense == "min" else -1.0
    return [[t, sign * lb, sign * ub, n] for t, lb, ub, n in search.trace]


def _report(res: Result, search: Search, workers: int, batch: int) -> None:
    times = np.asarray(search.node_times)
    q = np.quantile(times, [0.5, 0.9, 0.99]).tolist() if times.size else [None] * 3
    res.raw = Trace(search.nodes, search.schedule, search.node_times, dict(search.timing))
    res.extra.update(
        nodes=search.nodes, nodes_total=search.nodes_before + search.nodes,
        open_nodes=search.open_nodes, workers=workers, batch=batch,
        resumed=search.resumed, root_s=search.timing.get("root_s"),
        node_time={"mean": float(times.mean()) if times.size else None, "p50": q[0],
                   "p90": q[1], "p99": q[2], "max": float(times.max()) if times.size else None},
        driver_s_per_node=search.timing["driver_s"] / max(search.nodes, 1),
        bound_trace=_bound_trace(search),
        **{k: v for k, v in search.stats.items() if k not in ("nodes",)})


def run(problem: TreeProblem, plan: SolverPlan, opts: SearchOptions) -> Result:
    """Search ``problem``'s tree; returns :func:`result`, with ``extra`` nodes (bounded by
    this call), nodes_total, open_nodes, workers, batch, resumed, node_time (mean /
    quantiles, s) and driver_s_per_node.

    The plan's clock starts here (if it has not) and covers everything: workers start in the
    background while the root phase runs, and the search uses those ready in time. Ctrl-C
    ends that clock (:func:`~sparsekm.deadline.interrupts_end`): the search stops as at its
    time limit, with termination ``interrupted``, and returns its incumbent and bound."""
    plan = plan.start()
    with interrupts_end(plan.clock):
        return _run(problem, plan, opts)


def _run(problem: TreeProblem, plan: SolverPlan, opts: SearchOptions) -> Result:
    t_start = time.perf_counter()
    executor = as_executor(plan.executor if plan.executor is not None else opts.scheduler,
                           opts.workers)
    plan = plan.with_(executor=executor)
    fp = fingerprint(problem)
    path = opts.checkpoint
    with lock.hold(path):
        search = load_search(problem, fp, path) if path else None
        with _one_blas_thread(), executor.session(problem.warm_up) as pool:
            slots = Slots(pool, problem, fp)
            if search is None or not search.root_done:
                search = search or Search(problem, fp, plan)
                _root(problem, search, RootContext(plan, executor, slots, search, path,
                                                   t_start))
            search.plan = plan
            problem.restore(search.root_arrays, search.info)
            slots.set_root(search.root_arrays, search.info)
            driver = Driver(search, plan, opts, slots, path)
            try:
                driver.run()
            finally:
                forget(fp)
        if path:
            save_search(search, path, time.perf_counter() - t_start)
    if plan.verbose:
        progress(search, plan, t_start, pool.size)
    if plan.clock.interrupted:
        search.stop(Termination.INTERRUPTED)
    res = result(problem, search)
    res.time_s = plan.clock.elapsed()
    _report(res, search, pool.size, driver.batch)
    return res
