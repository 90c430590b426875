"""``sparsekm solve sklr``: sparse kernel logistic regression (paper C, dual (22)).

``objective`` is the value of (22a) at the returned a (minimised, with the auxiliary bounds
of (22c)) and ``lower_bound`` a certified bound on its optimum (SMO: the linearised duality
gap; conic: the solver's). Paper C scales features to [0, 1] (``--scale minmax01``, the
default here) and uses exp(-||x - z||^2 / (2 sigma^2)) with sigma = 1: ``--gamma 0.5``.
"""

from __future__ import annotations

from typing import Annotated, Any

import numpy as np
import typer

from sparsekm import registry

from .common import (
    DEFAULT_DATA,
    COpt,
    DataOpt,
    JsonOpt,
    LabelOpt,
    RowsOpt,
    RunOptions,
    ScaleOpt,
    SeedOpt,
    SolverOpt,
    TestSizeOpt,
    TimeLimitOpt,
    ValidationOpt,
    method_options,
    payload_from,
    prepare,
    ready,
    run_command,
    runner,
    shared_options,
    solve_app,
    validation_split,
)

DEMO_RANK = 30
DEFAULTS: dict[str, Any] = {"kernel": "rbf", "gamma": 0.5, "degree": 3, "coef0": 0.0,
                            "C": 1.0, "lam": None, "tol": 1e-5, "max_iter": 10_000}
"""Model defaults of the command (== SparseKernelLogisticRegression's; a test checks it)."""


def metrics(f: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(accuracy, mean log-loss) of decision values ``f`` under eq. (3)."""
    from scipy.special import log_expit

    acc = float(np.mean(np.where(f > 0, 1.0, -1.0) == y))
    return acc, float(-log_expit(y * f).mean())


def sklr_problem(train: Any, **params: Any) -> Any:
    """The validated SKLRProblem of a training Dataset; ``params`` as in DEFAULTS."""
    from sparsekm.kernels import KernelSpec
    from sparsekm.models.sklr.problem import SKLRProblem

    p = {**DEFAULTS, **params}
    spec = KernelSpec(p["kernel"], gamma=p["gamma"], degree=p["degree"], coef0=p["coef0"])
    lam = p["C"] / 10.0 if p["lam"] is None else p["lam"]
    return SKLRProblem(train.X, train.y, kernel=spec, C=p["C"], lam=lam)


def solve_sklr(train: Any, method: str, plan: Any, options: dict[str, Any] | None = None,
               **params: Any) -> tuple[Any, Any]:
    """(problem, Result) of ``method`` on a training Dataset; ``params`` as in DEFAULTS,
    ``options`` the method's own keyword options (``--option``)."""
    problem = sklr_problem(train, **params)
    entry = registry.get("sklr", "method", method)
    kwargs = method_options(entry, {**DEFAULTS, **params}, options)
    ready()
    return problem, entry.run(problem, plan, **kwargs)


@runner("solve", "sklr", checks=True)
def run(opts: RunOptions, *, method: str = "smo2", lam_ratio: float | None = None,
        validation_size: float = 0.0, options: dict[str, Any] | None = None,
        **params: Any) -> dict[str, Any]:
    """Paper C's sparse KLR on ``opts.data``; the JSON payload of ``sparsekm solve sklr``.

    ``lam_ratio`` sets lam = lam_ratio * C (Section 5.1's grid: 10 equally spaced values of
    lam in [0, C]); ``validation_size`` fits on the training rows less that held-out fraction
    and reports ``validation_accuracy`` and ``validation_loss`` (log-loss (3)) (Section 5.1:
    5 % of the training rows).
    """
    from sparsekm.solvers import SolverPlan

    unknown = set(params) - set(DEFAULTS)
    if unknown:
        raise ValueError(f"unknown sklr parameters {sorted(unknown)}; known: {sorted(DEFAULTS)}")
    if lam_ratio is not None:
        if params.get("lam") is not None:
            raise ValueError("--lam and --lam-ratio both set lambda: give one")
        if lam_ratio < 0:
            raise ValueError(f"--lam-ratio {lam_ratio}: use a value >= 0")
        params["lam"] = lam_ratio * params.get("C", DEFAULTS["C"])
    split = prepare(opts)
    train, val = split.train, None
    if validation_size > 0:
        train, val = validation_split(split.train, validation_size, opts.seed)
    plan = SolverPlan(solver=opts.solver, time_limit=opts.time_limit)
    problem, res = solve_sklr(train, method, plan, options, **params)
    p = {**DEFAULTS, **params, **(options or {}), "lam": problem.lam}
    if lam_ratio is not None:
        p["lam_ratio"] = lam_ratio
    if val is not None:
        p["validation_size"] = validation_size
    extra: dict[str, Any] = {}
    if res.has_solution:
        coef, b = res.values["dual_coef"], float(res.values["b"])
        sv = np.asarray(res.values["support"])
        spec = problem.kernel

        def decide(X: np.ndarray) -> np.ndarray:
            return spec(X, train.X[sv]) @ coef[sv] + b

        acc, ll = metrics(decide(train.X), train.y)
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
    return payload_from(res, problem="sklr", method=method, ds=split.ds,
                        params={**p, "method": method, **opts.params()}, **extra)


@solve_app.command("sklr")
@shared_options
def solve_sklr_cmd(
    data: DataOpt = DEFAULT_DATA, label: LabelOpt = "label", scale: ScaleOpt = "minmax01",
    rows: RowsOpt = None, seed: SeedOpt = 0, solver: SolverOpt = None,
    time_limit: TimeLimitOpt = None, test_size: TestSizeOpt = 0.0, json_out: JsonOpt = False,
    method: Annotated[str, typer.Option(
        "--method", help=registry.choices_help("sklr", "method")
        + ": SMO with the second-order (smo2, paper C (31)-(35)) or first-order working set, "
          "or the conic model (22) with --solver.")] = "smo2",
    kernel: Annotated[str, typer.Option(
        "--kernel", help="linear|poly|rbf|laplacian|sigmoid")] = DEFAULTS["kernel"],
    gamma: Annotated[float, typer.Option(
        "--gamma", help="Kernel gamma (rbf: exp(-gamma ||x - z||^2)); paper C's sigma = 1 is "
                        "gamma = 0.5 on features scaled to [0, 1].")] = DEFAULTS["gamma"],
    degree: Annotated[int, typer.Option("--degree")] = DEFAULTS["degree"],
    coef0: Annotated[float, typer.Option("--coef0")] = DEFAULTS["coef0"],
    C: COpt = DEFAULTS["C"],
    lam: Annotated[float | None, typer.Option(
        "--lam", help="Sparsity weight lambda of (18)/(22) (= rho, Observation 1); 0 is plain "
                      "KLR; default C/10 (Appendix C).")] = DEFAULTS["lam"],
    lam_ratio: Annotated[float | None, typer.Option(
        "--lam-ratio", help="lambda as a multiple of C, instead of --lam (Section 5.1's grid: "
                            "10 equally spaced values in [0, 1]).")] = None,
    validation_size: ValidationOpt = 0.0,
    tol: Annotated[float, typer.Option(
        "--tol", help="SMO KKT tolerance tau (Section 5.1).")] = DEFAULTS["tol"],
    max_iter: Annotated[int, typer.Option(
        "--max-iter", help="SMO iteration cap (Section 5.1: 10000; -1 none).")]
    = DEFAULTS["max_iter"],
) -> None:
    """Sparse kernel logistic regression (paper C): objective = (22a) at the returned alpha."""
    opts = RunOptions(data, label, scale, rows, seed, solver, time_limit, test_size)
    run_command(run, opts, json_out, method=method, kernel=kernel, gamma=gamma, degree=degree,
                coef0=coef0, C=C, lam=lam, tol=tol, max_iter=max_iter, lam_ratio=lam_ratio,
                validation_size=validation_size)


def demo_section(ds: Any, quick: bool = False) -> list[str]:
    """smo2 vs smo1 vs the conic model on a [0, 1]-scaled subset (C = 100, lam = 30)."""
    from sparsekm.solvers import SolverPlan

    from .common import scale_fit_transform

    sub = scale_fit_transform("minmax01", ds.head(min(ds.m, 150 if quick else 400)))
    lines = ["\n== Sparse kernel logistic regression (paper C, dual (22)) " + "=" * 9]
    for method in ("smo2", "smo1", "conic"):
        _, res = solve_sklr(sub, method, SolverPlan(), C=100.0, lam=30.0, tol=1e-8,
                            max_iter=-1)
        sv = len(res.values.get("support", []))
        it = res.extra.get("iterations")
        lines.append(f"  {method:<6} objective (22a) = {res.objective:.8f}  selected = "
                     f"{sv}/{sub.m}  iterations = {it}  ({res.time_s:.2f} s)")
    return lines
