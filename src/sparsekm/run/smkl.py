"""``sparsekm solve smkl`` / ``relax smkl``: paper B (sparse multiple kernel learning).

Methods and relaxations are the registered ones (``sparsekm methods smkl``); ``--option
NAME=VALUE`` reaches any of their declared options. JSON: objective = value of (4) at the
returned beta (minimised; for relax: the relaxation's value), lower_bound = certified lower
bound (for relax: the relaxation's certified value), gap, beta (one weight per kernel of the
dictionary, in its order), support and support_kernels, train/test accuracy, and every extra
the method reports. ``--cv-folds K`` tunes (C, lam, k0) first by K-fold CV on the training
rows over ``--cv-C / --cv-lam / --cv-k0`` (paper B, Section 5.1) and refits at the best point
(``cv_params``, ``cv_accuracy`` in the JSON).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from sparsekm import declare

from .command import Command, register_command
from .data import accuracy, prepare, ready
from .payload import payload_from
from .resolve import Call

PROBLEM = "smkl"


@dataclass(frozen=True)
class SMKLCV:
    """Paper B's model selection (Section 5.1): K-fold CV over (C, lam, k0), then a refit."""

    cv_folds: int = declare.field(0, "Tune C, lam, k0 by this many CV folds on the training "
                                  "rows first (paper B: 10); 0: no CV.", ge=0, le=100)
    cv_C: tuple[float, ...] = declare.field((5.0, 10.0, 50.0, 100.0), "C values of the CV.",
                                            ge=1e-8, le=1e8, flag="--cv-C")
    cv_lam: tuple[float, ...] = declare.field((0.01, 1.0, 100.0), "lam values of the CV.",
                                              ge=0, le=1e8)
    cv_k0: tuple[int, ...] = declare.field((1, 2), "k0 values of the CV.", ge=1)


def _payload(call: Call, res: Any, problem: Any, split: Any) -> dict[str, Any]:
    """The JSON payload: the fixed keys, beta and its support, accuracies, then every extra the
    method reported (no hand-written key list)."""
    beta = res.values.get("beta")
    solve = call.command.action == "solve"
    extra: dict[str, Any] = {"kernels": problem.labels}
    if beta is not None:
        beta = np.asarray(beta, dtype=float)
        support = [int(i) for i in np.flatnonzero(beta > 0)] if solve else \
            sorted(res.selected or [])
        extra.update(beta=beta, support=support,
                     support_kernels=[problem.labels[i] for i in support])
    if solve and beta is not None:
        coef = res.values["alpha"] * problem.y
        D = problem.dictionary
        extra["train_accuracy"] = accuracy(D.combine(beta) @ coef + res.values["b"], problem.y)
        if split.test is not None and call.solver_plan().clock.expired():
            extra["test_accuracy"] = None   # its kernels took 3 s past a 5 s limit (spambase)
            extra["test_accuracy_note"] = "not computed: the time limit was spent"
        elif split.test is not None:
            f = D.decision(beta, coef, split.test.X)
            extra["test_accuracy"] = accuracy(f + res.values["b"], split.test.y)
    if not solve and res.bound is None:
        extra["message"] = res.message or "the relaxation's solver certified no bound"
    kernels_used = res.selected if solve else None
    res.selected = None  # kernel indices: named by the kernels below, not by the features
    payload = payload_from(res, problem=PROBLEM, method=call.choice, ds=split.ds,
                           params=call.params(), **extra)
    if kernels_used is not None:
        payload["selected"] = sorted(int(i) for i in kernels_used)
        payload["selected_names"] = [problem.labels[i] for i in payload["selected"]]
    return payload


def _problem(call: Call, train: Any) -> Any:
    """The problem, its kernel stack built within the run's time limit (a stack that cannot
    be is refused at once, naming --time-limit)."""
    from sparsekm.models.smkl.problem import SMKLProblem

    return call.build(SMKLProblem, train.X, train.y, fit_deadline=call.solver_plan().clock)


def run_solve(call: Call) -> dict[str, Any]:
    """Sparse MKL (4) with the chosen method (after the CV when ``--cv-folds``)."""
    from sparsekm.algorithms.smkl import solve_smkl

    split = prepare(call.opts)
    problem = _problem(call, split.train)
    plan = call.solver_plan(relax_solver=call.opts.solver)
    ready()
    folds = call.own["cv_folds"]
    if folds == 1:
        from sparsekm.declare import ParamError

        raise ParamError("cv_folds", folds, "give 0 (no CV) or at least 2 folds")
    if not folds:
        res = solve_smkl(problem, call.choice, plan, **call.options)
    else:
        from sparsekm.algorithms.smkl.cv import cross_validate, restrict

        grid = {"C": tuple(call.own["cv_C"]), "lam": tuple(call.own["cv_lam"]),
                "k0": tuple(call.own["cv_k0"])}
        res, cv = cross_validate(problem, call.entry.run, grid, folds=folds,
                                 seed=call.opts.seed, plan=plan, options=call.options)
        problem = restrict(problem, None, **cv["cv_params"])
        res.extra.update(cv)
        from sparsekm.algorithms.api import uncertified

        res = uncertified(problem, res)
    return _payload(call, res, problem, split)


def run_relax(call: Call) -> dict[str, Any]:
    """A relaxation of (13): its value and certified value (a lower bound on (4))."""
    from sparsekm.relaxations import relax

    split = prepare(call.opts)
    problem = _problem(call, split.train)
    ready()
    plan = call.solver_plan(relax_solver=call.opts.solver)
    res = relax(problem, call.choice, plan, **call.options)
    return _payload(call, res, problem, split)


SOLVE = register_command(Command(
    "solve", PROBLEM, run_solve, "Sparse multiple kernel learning, paper B eq. (4): at most "
    "k0 kernels.", own=SMKLCV))
RELAX = register_command(Command(
    "relax", PROBLEM, run_relax, "A convex relaxation of MISDP (13) and its certified lower "
    "bound on (4).", kind="relaxation"))
