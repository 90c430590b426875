"""``sparsekm solve fs-kernel``: paper A (kernel-SVM feature selection with binary masks).

Methods are the registered ones (``sparsekm methods fs-kernel``). JSON: objective = min over
alpha of the dual (3) at the chosen mask (negative); ``--sense margin`` (the default, shared
with the estimator) maximizes it (sense "max": an ``upper_bound``), ``--sense paper``
minimizes it as (4) is printed (to reproduce the paper's tables). ``start_objectives`` lists
the per-start objectives (null for a start whose solver failed).

``time_s`` is the search alone; loading the compiled code of the method (numba's on-disk
cache, scikit-learn's libsvm; ~0.3 s in a fresh process, once) is reported as ``load_s``.
Both count against ``--time-limit``, which covers the whole command.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from sparsekm import declare, registry
from sparsekm.specs import WORKERS

from .command import BASE_OPTIONS, Command, register_command
from .data import accuracy, prepare, ready
from .payload import payload_from
from .resolve import Call

PROBLEM = "fs-kernel"
REPORTED = ("solver_objective", "relaxation_objective", "integral", "iterations", "n_evals")


def _starts_spec() -> Any:
    from sparsekm.algorithms.fs_kernel.multistart import STARTS

    return STARTS


@dataclass(frozen=True)
class FSKernelRun:
    """The command's own parameters: starts, and the worker processes of the run."""

    starts: int = declare.field(1, _starts_spec())
    workers: int = declare.field(1, WORKERS, help="Worker processes: the method's own "
                                 "(bnb, enumerate), or the starts run in parallel.")


def decision(res: Any, problem: Any, X: np.ndarray) -> np.ndarray:
    """Decision values of the SVM at the result's mask on rows ``X`` (the models' function)."""
    from sparsekm.models.fs_kernel import decision_values

    v = res.values
    return decision_values(problem.spec, v["beta"], problem.X, v["alpha"] * problem.y, v["b"],
                           X)


def _applicable(name: str, entry: Any) -> bool:
    """``starts`` applies to the methods that start from a mask; ``workers`` to those and to
    the methods with workers of their own (bnb, enumerate)."""
    started = "beta_in" in entry.params
    return started or (name == "workers" and "workers" in entry.params)


def with_workers(call: Call, plan: Any) -> tuple[dict[str, Any], Any]:
    """(method options, plan) with ``--workers``: the method's own option when it declares
    one, else the starts' executor (parallel starts)."""
    from dataclasses import replace

    from sparsekm.parallel import Executor

    options, workers, entry = dict(call.options), call.own["workers"], call.entry
    if workers == 1 or not _applicable("workers", entry):
        return options, plan
    if "workers" in entry.params:
        return {**options, "workers": workers}, plan
    return options, replace(plan, executor=Executor(workers))


def run_solve(call: Call) -> dict[str, Any]:
    """Select B features with the chosen method; the JSON payload of ``solve fs-kernel``."""
    from sparsekm.algorithms.fs_kernel import solve_fs_kernel
    from sparsekm.models.fs_kernel import FSKernelProblem

    split = prepare(call.opts)
    problem = call.build(FSKernelProblem, split.train.X, split.train.y)
    entry = call.entry
    options, plan = with_workers(call, call.solver_plan())
    ready()
    load_s = registry.load_compiled(entry)        # counted in the limit, not in time_s
    t0 = time.perf_counter()
    res = solve_fs_kernel(problem, entry.name, plan, starts=call.own["starts"], **options)
    res.time_s = time.perf_counter() - t0
    extra: dict[str, Any] = {"load_s": load_s, "b": res.values["b"],
                             "train_accuracy": accuracy(decision(res, problem, split.train.X),
                                                        split.train.y),
                             "m_train": problem.m}
    if split.test is not None:
        extra["test_accuracy"] = accuracy(decision(res, problem, split.test.X), split.test.y)
    if "starts" in res.extra:
        # a failed start (recorded with its message) has no value: null
        extra["start_objectives"] = [s.get("objective") for s in res.extra["starts"]]
        extra["start_times_s"] = [s.get("time_s") for s in res.extra["starts"]]
    extra.update({k: res.extra[k] for k in REPORTED if k in res.extra})
    params = {**call.params(), "B": problem.B}
    return payload_from(res, problem=PROBLEM, method=entry.name, ds=split.ds, params=params,
                        **extra)


SOLVE = register_command(Command(
    "solve", PROBLEM, run_solve, "Kernel SVM feature selection with exactly B features "
    "(paper A, MINLP (4)).", own=FSKernelRun, run_options=(*BASE_OPTIONS, "train_rows"),
    applicable=_applicable))
