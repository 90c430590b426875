"""``sparsekm solve sklr``: sparse kernel logistic regression (paper C, dual (22)).

``objective`` is the value of (22a) at the returned a (minimised, with the auxiliary bounds
of (22c)) and ``lower_bound`` a certified bound on its optimum (SMO: the linearised duality
gap; conic: the solver's). Paper C scales features to [0, 1] (``--scale minmax01``, the
default here) and uses exp(-||x - z||^2 / (2 sigma^2)) with sigma = 1: gamma 0.5.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from sparsekm import declare

from .command import BASE_OPTIONS, Command, register_command
from .data import prepare, ready, validation_split
from .payload import payload_from
from .predict_budget import reserved_plan
from .resolve import Call

PROBLEM = "sklr"


@dataclass(frozen=True)
class SKLRRun:
    """The command's own parameter: lambda as a multiple of C (paper C's grid)."""

    lam_ratio: float | None = declare.field(None, "lambda as a multiple of C, instead of --lam "
                                            "(Section 5.1's grid: 10 equally spaced values in "
                                            "[0, 1]).", ge=0, le=1e8)


def metrics(f: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(accuracy, mean log-loss) of decision values ``f`` under eq. (3)."""
    from scipy.special import log_expit

    acc = float(np.mean(np.where(f > 0, 1.0, -1.0) == y))
    return acc, float(-log_expit(y * f).mean())


def _lam(call: Call) -> dict[str, Any]:
    ratio = call.own["lam_ratio"]
    if ratio is None:
        return {}
    if "lam" in call.shown:
        from sparsekm.declare import ParamError

        raise ParamError("lam_ratio", ratio, "--lam and --lam-ratio both set lambda: give one")
    return {"lam": ratio * call.problem["C"]}


def run_solve(call: Call) -> dict[str, Any]:
    """Paper C's sparse KLR; the JSON payload of ``sparsekm solve sklr``."""
    from sparsekm.algorithms.sklr import solve_sklr
    from sparsekm.kernels import kernel_decision
    from sparsekm.models.sklr.problem import SKLRProblem

    split = prepare(call.opts)
    train, val = validation_split(split.train, call.opts)
    problem = call.build(SKLRProblem, train.X, train.y, **_lam(call))
    plan = reserved_plan(call.solver_plan(), problem.kernel, train.X,
                         None if val is None else val.X,
                         None if split.test is None else split.test.X)
    ready()
    res = solve_sklr(problem, call.choice, plan, **call.options)
    extra: dict[str, Any] = {}
    if res.has_solution:
        coef, b = res.values["dual_coef"], float(res.values["b"])
        sv = np.asarray(res.values["support"])
        spec = problem.kernel

        def decide(X: np.ndarray) -> np.ndarray:
            return kernel_decision(spec, X, train.X[sv], coef[sv], b)

        if "K" in problem.__dict__:   # the matrix the engine used: one product
            on_sv = np.zeros(problem.m)
            on_sv[sv] = coef[sv]
            train_f = problem.K @ on_sv + b
        else:
            train_f = decide(train.X)
        acc, ll = metrics(train_f, train.y)
        extra.update({"support_fraction": sv.size / problem.m, "n_support": int(sv.size),
                      "iterations": res.extra.get("iterations"),
                      "kkt_violation": res.extra.get("kkt_violation"), "b": b,
                      "rho": res.values.get("rho"), "train_accuracy": acc,
                      "train_log_loss": ll})
        if val is not None:
            extra["validation_accuracy"], extra["validation_loss"] = metrics(
                decide(val.X), val.y)
        if split.test is not None:
            extra["test_accuracy"], extra["test_log_loss"] = metrics(decide(split.test.X),
                                                                     split.test.y)
    params = {**call.params(), "lam": problem.lam, "gamma": problem.kernel.gamma}
    return payload_from(res, problem=PROBLEM, method=call.choice, ds=split.ds, params=params,
                        **extra)


SOLVE = register_command(Command(
    "solve", PROBLEM, run_solve, "Sparse kernel logistic regression (paper C): objective = "
    "(22a) at the returned alpha.", own=SKLRRun,
    run_options=(*BASE_OPTIONS, "validation_size"), run_defaults=(("scale", "minmax01"),)))
