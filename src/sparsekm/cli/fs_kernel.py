"""``sparsekm solve fs-kernel``: Paper A (kernel-SVM feature selection with binary masks).

Methods: minlp (MINLP (4), SCIP), relax-round (Ipopt baseline), ls (Alg. 1), ls-star (Alg. 2),
decsub (DecSubLight*, Alg. 3), rfe1/rfe2 (Section 5.2), enumerate (exact).
JSON: objective = min over alpha of the dual (3) at the chosen mask (negative); the paper sense
minimizes it (as (4) is printed), the margin sense maximizes it. ``starts`` lists the per-start
objectives and times of multistart methods.
"""

from __future__ import annotations

import time
from typing import Annotated

import numpy as np
import typer

from .common import (
    DEFAULT_DATA,
    CLIError,
    COpt,
    DataOpt,
    JsonOpt,
    LabelOpt,
    RowsOpt,
    ScaleOpt,
    SeedOpt,
    SolverOpt,
    TimeLimitOpt,
    cli_errors,
    emit,
    load_cli_data,
    result_payload,
    scale_fit_transform,
    solve_app,
)

METHOD_HELP = "minlp|relax-round|ls|ls-star|decsub|rfe1|rfe2|enumerate"

DEMO_RANK = 20


def _accuracy(res, problem, X, y) -> float:
    from sparsekm.kernels import kernel_matrix

    sel = res.beta
    K = kernel_matrix(X[:, sel], problem.X[:, sel], **problem.kernel_params())
    d = K @ (res.alpha * problem.y) + res.b
    return float(np.mean(np.where(d >= 0, 1.0, -1.0) == y))


@solve_app.command("fs-kernel")
def solve_fs_kernel_cmd(
    data: DataOpt = DEFAULT_DATA, label: LabelOpt = "label", scale: ScaleOpt = "standard",
    rows: RowsOpt = None, seed: SeedOpt = 0, solver: SolverOpt = None,
    time_limit: TimeLimitOpt = None, json_out: JsonOpt = False, C: COpt = 10.0,
    kernel: Annotated[str, typer.Option("--kernel", help="poly|rbf")] = "poly",
    degree: Annotated[int, typer.Option("--degree", help="Polynomial degree d.")] = 2,
    gamma: Annotated[float, typer.Option("--gamma", help="Kernel gamma > 0.")] = 0.1,
    coef0: Annotated[float, typer.Option("--coef0", help="Polynomial c >= 0.")] = 1.0,
    B: Annotated[int | None, typer.Option(
        "--B", help="Selected features (default floor(n/2)).")] = None,
    method: Annotated[str, typer.Option("--method", help=METHOD_HELP)] = "ls-star",
    sense: Annotated[str, typer.Option(
        "--sense", help="paper: minimize as (4) is printed; margin: maximize.")] = "paper",
    starts: Annotated[int, typer.Option("--starts", help="Seeded random start masks.")] = 1,
    test_size: Annotated[float, typer.Option(
        "--test-size", help="Stratified seeded test fraction (0: train on all rows).")] = 0.0,
    samples: Annotated[int, typer.Option("--samples", help="LS* #Samples.")] = 500,
    sol_pool: Annotated[int, typer.Option("--sol-pool", help="DecSubLight* #SolPool.")] = 200,
    opt_window: Annotated[int | None, typer.Option(
        "--opt-window", help="OptWindow (default 5 for LS*, 10 for DecSubLight*).")] = None,
    n_jobs: Annotated[int | None, typer.Option(
        "--n-jobs", help="Worker processes for enumerate (default all cores).")] = None,
) -> None:
    """Kernel SVM feature selection with exactly B features (Paper A, problem (4))."""
    from sparsekm.algorithms.fs_kernel_core import FSKernelProblem
    from sparsekm.algorithms.fs_kernel_solve import METHODS, solve_fs_kernel
    from sparsekm.data import train_test_split

    with cli_errors():
        if method not in METHODS:
            raise CLIError(f"--method {method!r}: choose one of {METHOD_HELP}")
        ds = load_cli_data(data, label, rows)
        if not 0.0 <= test_size < 1.0:
            raise CLIError(f"--test-size {test_size}: use a fraction in [0, 1)")
        test = None
        if test_size > 0:
            train, test = train_test_split(ds, test_size=test_size, seed=seed)
            train, test = scale_fit_transform(scale, train, test)
        else:
            train = scale_fit_transform(scale, ds)
        problem = FSKernelProblem(train.X, train.y, kernel, B, C, gamma, degree, coef0, sense)
        opts: dict = {}
        if method == "ls-star":
            opts = {"n_samples": samples, "opt_window": opt_window or 5}
        elif method == "decsub":
            opts = {"sol_pool": sol_pool, "opt_window": opt_window or 10}
        t0 = time.perf_counter()
        res = solve_fs_kernel(problem, method, starts=starts, seed=seed, time_limit=time_limit,
                              solver=solver, n_jobs=n_jobs, **opts)
        dt = time.perf_counter() - t0
        params = {"kernel": problem.kernel, "degree": degree, "gamma": gamma, "coef0": coef0,
                  "B": problem.B, "C": C, "sense": sense, "starts": starts, "seed": seed,
                  "scale": scale, "test_size": test_size, "time_limit": time_limit, **opts}
        extra = {"sense": sense, "b": res.b, "n_evals": res.n_evals,
                 "train_accuracy": _accuracy(res, problem, train.X, train.y),
                 "m_train": problem.m}
        if test is not None:
            extra["test_accuracy"] = _accuracy(res, problem, test.X, test.y)
        if "starts" in res.extra:
            extra["start_objectives"] = [s["objective"] for s in res.extra["starts"]]
            extra["start_times_s"] = [s["time_s"] for s in res.extra["starts"]]
        for key in ("solver_objective", "relaxation_objective", "integral", "iterations"):
            if key in res.extra:
                extra[key] = res.extra[key]
        payload = result_payload(
            problem="fs-kernel", method=method, solver=res.extra.get("solver", solver), ds=ds,
            params=params, status=res.status, objective=res.objective,
            lower_bound=res.lower_bound, gap=res.gap, selected=res.selected.tolist(),
            time_s=dt, **extra)
        emit(payload, json_out)


def demo_section(ds, quick: bool = False) -> list[str]:
    """Paper A in a few lines: LS* in both senses on a 70/30 split, poly kernel d = 2."""
    from sparsekm.algorithms.fs_kernel_core import FSKernelProblem
    from sparsekm.algorithms.fs_kernel_solve import solve_fs_kernel
    from sparsekm.data import train_test_split

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
        r = solve_fs_kernel(p, "ls-star", seed=0, n_samples=100, opt_window=3)
        dt = time.perf_counter() - t0
        names = [ds.feature_names[j] for j in r.selected]
        lines += [
            f"  LS* (Alg. 2), sense={sense:<6} objective = {r.objective:.4f}  ({dt:.1f} s, "
            f"{r.n_evals} SVM fits)",
            f"    selected: {', '.join(names)}",
            f"    accuracy: train {_accuracy(r, p, train.X, train.y):.3f}, "
            f"test {_accuracy(r, p, test.X, test.y):.3f}",
        ]
    lines.append("  (sense=paper is (4) as printed: it picks the worst-fitting mask; "
                 "sense=margin is the estimator default)")
    return lines
