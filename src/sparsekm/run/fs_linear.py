"""``sparsekm solve fs-linear`` / ``relax fs-linear``: paper D's FS-SVM (2) end to end.

FS-SVM (2): a linear SVM with at most B features. Methods and relaxations are the registered
ones (``sparsekm methods fs-linear``). JSON: objective = 1/2||w||^2 + C sum xi (for relax:
the relaxation's value); lower_bound / gap when certified.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from sparsekm import registry

from .command import Command, register_command
from .data import accuracy, prepare, ready
from .payload import payload_from
from .resolve import Call

PROBLEM = "fs-linear"


def _problem(call: Call, train: Any) -> Any:
    from sparsekm.models.fs_linear import FSLinearProblem

    return call.build(FSLinearProblem, train.X, train.y)


def run_solve(call: Call) -> dict[str, Any]:
    """Solve FS-SVM (2) with the chosen method; the JSON payload of ``solve fs-linear``."""
    from sparsekm.algorithms.fs_linear import solve_fs_linear

    split = prepare(call.opts)
    problem = _problem(call, split.train)
    entry = call.entry
    ready()
    plan = call.solver_plan()
    load_s = registry.load_compiled(entry)       # its compiled code: counted in the limit
    res = solve_fs_linear(problem, entry.name, plan, **call.options)
    w, b = res.values["w"], float(res.values["b"])
    extra: dict[str, Any] = {"load_s": load_s, "b": b, "w_selected": [w[j] for j in res.selected],
                             "train_accuracy": accuracy(split.train.X @ w + b, split.train.y),
                             "iterations": res.log or None, "equation": entry.citation}
    if split.test is not None:
        extra["test_accuracy"] = accuracy(split.test.X @ w + b, split.test.y)
    if "M" in res.extra:
        extra["M_used"] = res.extra["M"]
    return payload_from(res, problem=PROBLEM, method=entry.name, ds=split.ds,
                        params=call.params(), **extra)


def run_relax(call: Call) -> dict[str, Any]:
    """A registered relaxation of FS-SVM (2): objective = its value, lower_bound = its
    certified value (null, with the reason, when the solver certifies none)."""
    from sparsekm.relaxations import relax

    split = prepare(call.opts)
    problem = _problem(call, split.train)
    entry = call.entry
    ready()
    plan = call.solver_plan(relax_solver=call.opts.solver)
    load_s = registry.load_compiled(entry)
    t0 = time.perf_counter()
    r = relax(problem, entry.name, plan, **call.options)
    r.time_s = time.perf_counter() - t0
    u = r.values.get("u")
    rounded = None if u is None else sorted(np.argsort(u, kind="stable")[:problem.B].tolist())
    params = {**call.params(), "M": r.extra.get("M")}
    return payload_from(
        r, problem=PROBLEM, method=entry.name, ds=split.ds, params=params,
        equation=r.extra.get("equation"), u=u, message=r.message if r.bound is None else "",
        load_s=load_s, rounded_selected=rounded,
        rounded_selected_names=None if rounded is None else
        [split.ds.feature_names[j] for j in rounded],
        rounded_meaning="the B features with the smallest relaxed u*_j (a rounding)")


SOLVE = register_command(Command(
    "solve", PROBLEM, run_solve, "Linear SVM feature selection with a hard cardinality "
    "constraint (paper D, FS-SVM (2)).",
    plan=("relax_solver", "misocp_solver", "qp_solver", "subproblem_time_limit", "warm_start",
          "verbose")))
RELAX = register_command(Command(
    "relax", PROBLEM, run_relax, "A lower bound on FS-SVM (2) from a relaxation of paper D "
    "(objective = the relaxation's value).", kind="relaxation"))
