"""``sparsekm solve fs-kernel``: Paper A (kernel-SVM feature selection with binary masks).

Methods are the registered ones (``sparsekm methods fs-kernel``). JSON: objective = min over
alpha of the dual (3) at the chosen mask (negative); ``--sense margin`` (the default, shared
with the estimator) maximizes it, ``--sense paper`` minimizes it as (4) is printed (to
reproduce the paper's tables). ``starts`` lists the per-start objectives and times.

``time_s`` is the search alone. Loading the compiled code of the method (LS, LS*,
DecSubLight*: numba's on-disk cache of both paths, scikit-learn's libsvm; ~0.3 s in a fresh
process, once) happens before the clock starts, for ``--fast`` and ``--plain`` alike
(:func:`sparsekm.registry.load_compiled`), and is reported as ``load_s`` (0 when the
process had it loaded already).
"""

from __future__ import annotations

import time
from typing import Annotated, Any

import numpy as np
import typer

from sparsekm import registry

from . import common as c

DEMO_RANK = 20
PROBLEM = "fs-kernel"
D = registry.defaults(PROBLEM)
PROBLEM_KEYS = ("kernel", "B", "C", "gamma", "degree", "coef0", "sense")
REPORTED = ("solver_objective", "relaxation_objective", "integral", "iterations", "n_evals")


def decision(res: Any, problem: Any, X: np.ndarray) -> np.ndarray:
    """Decision values of the SVM at the result's mask on rows ``X`` (the models' function)."""
    from sparsekm.models.fs_kernel import decision_values

    v = res.values
    return decision_values(problem.spec, v["beta"], problem.X, v["alpha"] * problem.y, v["b"],
                           X)


@c.runner("solve", PROBLEM, checks=True)
def run(opts: c.RunOptions, **params: Any) -> dict[str, Any]:
    """Select B features with ``params["method"]``; the JSON payload of ``solve fs-kernel``."""
    from sparsekm.algorithms.fs_kernel import solve_fs_kernel
    from sparsekm.models.fs_kernel import FSKernelProblem
    from sparsekm.parallel import Executor
    from sparsekm.solvers import SolverPlan

    params = dict(params)
    given = params.pop("options", None)
    method = registry.get(PROBLEM, "method", params.pop("method", "ls-star")).name
    tree = c.tree_options(registry.get(PROBLEM, "method", method), params.pop("workers", 1),
                          params.pop("checkpoint", None))
    starts, n_jobs = params.pop("starts", 1), params.pop("n_jobs", None)
    if not (isinstance(starts, int) and starts >= 1):
        raise c.CLIError(f"--starts {starts}: give at least one start (an integer >= 1)")
    split = c.prepare(opts)
    problem = FSKernelProblem(split.train.X, split.train.y,
                              **{k: params.pop(k) for k in PROBLEM_KEYS if k in params})
    plan = SolverPlan(solver=opts.solver, time_limit=opts.time_limit,
                      executor=None if n_jobs is None else Executor(n_jobs))
    entry = registry.get(PROBLEM, "method", method)
    if method == "enumerate" and n_jobs is not None:
        params["workers"] = n_jobs
    options = c.method_options(entry, {**{k: v for k, v in params.items() if v is not None},
                                       **tree}, given)
    c.ready()
    load_s = registry.load_compiled(entry)  # before the clock: not search work
    t0 = time.perf_counter()
    res = solve_fs_kernel(problem, method, plan, starts=starts, seed=opts.seed, **options)
    res.time_s = time.perf_counter() - t0
    extra: dict[str, Any] = {"load_s": load_s, "b": res.values["b"],
                             "train_accuracy": c.accuracy(decision(res, problem, split.train.X),
                                                        split.train.y),
                             "m_train": problem.m}
    if split.test is not None:
        extra["test_accuracy"] = c.accuracy(decision(res, problem, split.test.X), split.test.y)
    if "starts" in res.extra:
        extra["start_objectives"] = [s["objective"] for s in res.extra["starts"]]
        extra["start_times_s"] = [s["time_s"] for s in res.extra["starts"]]
    extra.update({k: res.extra[k] for k in REPORTED if k in res.extra})
    run_params = {**problem.params(), "starts": starts, **options, **opts.params()}
    run_params.pop("spec", None)
    return c.payload_from(res, problem=PROBLEM, method=method, ds=split.ds, params=run_params,
                        **extra)


@c.solve_app.command("fs-kernel")
@c.shared_options
def solve_fs_kernel_cmd(
    data: c.DataOpt = c.DEFAULT_DATA, label: c.LabelOpt = "label", scale: c.ScaleOpt = "standard",
    rows: c.RowsOpt = None, seed: c.SeedOpt = 0, solver: c.SolverOpt = None,
    time_limit: c.TimeLimitOpt = None, test_size: c.TestSizeOpt = 0.0, json_out: c.JsonOpt = False,
    train_rows: c.TrainRowsOpt = None, C: c.COpt = D["C"],
    kernel: Annotated[str, typer.Option("--kernel", help="poly|rbf")] = D["kernel"],
    degree: Annotated[int, typer.Option("--degree", help="Polynomial degree d.")] = D["degree"],
    gamma: Annotated[float, typer.Option("--gamma", help="Kernel gamma > 0.")] = D["gamma"],
    coef0: Annotated[float, typer.Option("--coef0", help="Polynomial c >= 0.")] = D["coef0"],
    B: Annotated[int | None, typer.Option(
        "--B", help="Selected features (default floor(n/2)).")] = None,
    method: Annotated[str, typer.Option(
        "--method", help=registry.choices_help(PROBLEM, "method"))] = "ls-star",
    sense: Annotated[str, typer.Option(
        "--sense", help="margin (default, as the estimator): maximize min_alpha f; paper: "
        "minimize it as (4) is printed (reproduces the paper's tables).")] = D["sense"],
    starts: Annotated[int, typer.Option("--starts", help="Seeded random start masks.")] = 1,
    samples: Annotated[int, typer.Option("--samples", help="LS* #Samples.")] = 500,
    sol_pool: Annotated[int, typer.Option("--sol-pool", help="DecSubLight* #SolPool.")] = 200,
    opt_window: Annotated[int | None, typer.Option(
        "--opt-window", help="OptWindow (default 5 for LS*, 10 for DecSubLight*).")] = None,
    n_jobs: Annotated[int | None, typer.Option(
        "--n-jobs", help="Worker processes for starts and enumeration (enumerate: all cores "
        "by default).")] = None,
    fast: Annotated[bool, typer.Option(
        "--fast/--plain", help="LS, LS*, DecSubLight*: screen neighbours with certified "
        "bounds and warm-started SMO (same masks as --plain, which solves every one).")
    ] = D["fast"],
    workers: c.WorkersOpt = 1, checkpoint: c.CheckpointOpt = None,
) -> None:
    """Kernel SVM feature selection with exactly B features (Paper A, problem (4)).

    JSON time_s is the search alone; load_s is the one-time loading of the compiled code
    the method runs (fast or plain path), done before the clock starts."""
    opts = c.RunOptions(data, label, scale, rows, seed, solver, time_limit, test_size, train_rows)
    c.run_command(run, opts, json_out, method=method, kernel=kernel, B=B, C=C, gamma=gamma,
                degree=degree, coef0=coef0, sense=sense, starts=starts, n_samples=samples,
                sol_pool=sol_pool, opt_window=opt_window, n_jobs=n_jobs, fast=fast,
                workers=workers, checkpoint=checkpoint)


def demo_section(ds: Any, quick: bool = False) -> list[str]:
    """Paper A in a few lines: LS* in both senses on a 70/30 split, poly kernel d = 2."""
    from sparsekm.algorithms.fs_kernel import solve_fs_kernel
    from sparsekm.data import train_test_split
    from sparsekm.models.fs_kernel import FSKernelProblem

    train, test = train_test_split(ds, test_size=0.3, seed=0)
    if quick:
        train = train.head(min(train.m, 120))
    B = min(5, ds.n)
    lines = ["\n== Feature selection, kernel SVM with exactly B features (paper A) " + "=" * 6,
             f"  MINLP (4), poly kernel d = 2, gamma = 0.1, c = 1, C = 10, B = {B}, "
             f"train m = {train.m}, test m = {test.m}"]
    for sense in ("margin", "paper"):
        p = FSKernelProblem(train.X, train.y, "poly", B, 10.0, 0.1, 2, 1.0, sense)
        t0 = time.perf_counter()
        r = solve_fs_kernel(p, "ls-star", n_samples=100, opt_window=3)
        dt = time.perf_counter() - t0
        names = [ds.feature_names[j] for j in r.selected]
        lines += [
            f"  LS* (Alg. 2), sense={sense:<6} objective = {r.objective:.4f}  ({dt:.1f} s, "
            f"{r.extra['n_evals']} SVM fits)",
            f"    selected: {', '.join(names)}",
            f"    accuracy: train {c.accuracy(decision(r, p, train.X), train.y):.3f}, "
            f"test {c.accuracy(decision(r, p, test.X), test.y):.3f}",
        ]
    lines.append("  (sense=margin, the default, maximizes the dual optimum over masks; "
                 "sense=paper is (4) as printed and picks the worst-fitting mask)")
    return lines
