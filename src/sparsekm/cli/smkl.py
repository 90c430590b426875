"""``sparsekm solve smkl`` / ``sparsekm relax smkl``: paper B (sparse multiple kernel learning).

Methods and relaxations are the registered ones (``sparsekm methods smkl``); ``--option
NAME=VALUE`` reaches any of their keyword options. JSON: objective = value of (4) at the
returned beta (minimised; for relax: the relaxation's value), lower_bound = certified lower
bound (for relax: the relaxation's certified value), gap, beta (one weight per kernel of the
spec, in spec order), support (kernel indices) and support_kernels, train/test accuracy, and
every extra the method reports.
``--cv-folds K`` tunes (C, lam, k0) first by K-fold CV on the training rows over the
``--cv-C / --cv-lam / --cv-k0`` lists (paper B, Section 5.1) and refits at the best point
(``cv_params``, ``cv_accuracy`` in the JSON; objective, beta, accuracies of the refit).
"""

from __future__ import annotations

from typing import Annotated, Any

import numpy as np
import typer

from sparsekm import registry

from .common import (
    DEFAULT_DATA,
    CheckpointOpt,
    CLIError,
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
    WorkersOpt,
    accuracy,
    method_options,
    payload_from,
    prepare,
    ready,
    relax_app,
    run_command,
    runner,
    shared_options,
    solve_app,
    tree_options,
)

DEMO_RANK = 30
DEFAULTS = {"kernels": "paper10", "k0": 2, "C": 10.0, "lam": 1.0, "method": "abr",
            "init": "ranking", "starts": 3}

KernelsOpt = Annotated[str, typer.Option(
    "--kernels", help="Kernel spec: linear, poly:G:C0:D, rbf:G, laplacian:G, sigmoid:G:C0, "
    "comma-separated, or paper10 / paper50.")]
K0Opt = Annotated[int, typer.Option("--k0", help="At most k0 kernels.")]
LamOpt = Annotated[float, typer.Option("--lam", help="Ridge weight lambda >= 0 on beta.")]
NormOpt = Annotated[str, typer.Option("--normalize", help="none|trace (base kernels).")]
CVFoldsOpt = Annotated[int, typer.Option(
    "--cv-folds", help="Tune C, lam, k0 by this many CV folds on the training rows first (paper "
    "B: 10); 0: no CV.")]
CVCOpt = Annotated[str, typer.Option("--cv-C", help="C values of the CV, comma-separated.")]
CVLamOpt = Annotated[str, typer.Option("--cv-lam", help="lam values of the CV, comma-separated.")]
CVK0Opt = Annotated[str, typer.Option("--cv-k0", help="k0 values of the CV, comma-separated.")]
CV_GRID = {"C": "5,10,50,100", "lam": "0.01,1,100", "k0": "1,2"}


def _cv_grid(C: str, lam: str, k0: str) -> dict[str, tuple]:
    """The CV grid from the comma-separated option values (one-line error if malformed)."""
    grid: dict[str, tuple] = {}
    for name, text, kind in (("C", C, float), ("lam", lam, float), ("k0", k0, int)):
        try:
            vals = tuple(kind(v) for v in text.split(",") if v.strip())
        except ValueError:
            raise CLIError(f"--cv-{name} {text!r}: give comma-separated numbers") from None
        if not vals:
            raise CLIError(f"--cv-{name}: give at least one value")
        grid[name] = vals
    return grid


def _problem(split: Any, kernels: str, k0: int, C: float, lam: float, normalize: str) -> Any:
    from sparsekm.models.smkl.problem import SMKLProblem

    if normalize not in ("none", "trace"):
        raise CLIError(f"--normalize {normalize!r}: choose none or trace")
    return SMKLProblem(split.train.X, split.train.y, kernels, k0, C, lam,
                       None if normalize == "none" else normalize)


def _payload(res: Any, problem: Any, split: Any, action: str, name: str, params: dict) -> dict:
    """The JSON payload: the fixed keys, beta and its support, accuracies, then every extra the
    method reported (no hand-written key list)."""
    beta = res.values.get("beta")
    extra: dict[str, Any] = {"kernels": problem.labels}
    if beta is not None:
        beta = np.asarray(beta, dtype=float)
        support = [int(i) for i in np.flatnonzero(beta > 0)] if action == "solve" else \
            sorted(res.selected or [])
        extra.update(beta=beta, support=support,
                     support_kernels=[problem.labels[i] for i in support])
    if action == "solve" and beta is not None:
        coef = res.values["alpha"] * problem.y
        D = problem.dictionary
        Ktr = D.combine(beta)
        extra["train_accuracy"] = accuracy(Ktr @ coef + res.values["b"], problem.y)
        if split.test is not None:
            Kte = D.combine(beta, stack=D.cross(split.test.X))
            extra["test_accuracy"] = accuracy(Kte @ coef + res.values["b"], split.test.y)
    if action == "relax" and res.bound is None:
        extra["message"] = res.message or "the relaxation's solver certified no bound"
    kernels_used = None if action == "relax" else res.selected
    res.selected = None  # kernel indices: named by the kernels below, not by the data's features
    payload = payload_from(res, problem="smkl", method=name, ds=split.ds, params=params,
                           **extra)
    if kernels_used is not None:
        payload["selected"] = sorted(int(i) for i in kernels_used)
        payload["selected_names"] = [problem.labels[i] for i in payload["selected"]]
    return payload


def _plan(opts: RunOptions) -> Any:
    from sparsekm.solvers import SolverPlan

    return SolverPlan(solver=opts.solver, relax_solver=opts.solver, time_limit=opts.time_limit)


@runner("solve", "smkl", checks=True)
def run(opts: RunOptions, *, kernels: str = "paper10", k0: int = 2, C: float = 10.0,
        lam: float = 1.0, method: str = "abr", init: str = "ranking", starts: int = 3,
        normalize: str = "none", cv_folds: int = 0, cv_C: str = CV_GRID["C"],
        cv_lam: str = CV_GRID["lam"], cv_k0: str = CV_GRID["k0"],
        options: dict[str, Any] | None = None, workers: int = 1,
        checkpoint: str | None = None) -> dict[str, Any]:
    """Sparse MKL (4) on ``opts.data`` with a registered method; the JSON payload."""
    entry = registry.get("smkl", "method", method)
    tree = tree_options(entry, workers, checkpoint)
    if not (isinstance(starts, int) and starts >= 1):
        raise CLIError(f"--starts {starts}: give at least one start (an integer >= 1)")
    if init not in ("random", "ranking"):
        if "init" not in entry.options:
            raise CLIError(f"--init {init}: method {method} takes no start (use --method abr)")
        registry.get("smkl", "relaxation", init)  # a registered relaxation, or the list
    grid = _cv_grid(cv_C, cv_lam, cv_k0) if cv_folds else None
    split = prepare(opts)
    problem = _problem(split, kernels, k0, C, lam, normalize)
    given = {"init": init, "starts": starts, "seed": opts.seed, **tree}
    kwargs = method_options(entry, given, options)
    ready()
    if grid is None:
        res = entry.run(problem, _plan(opts), **kwargs)
    else:
        from sparsekm.algorithms.smkl.cv import cross_validate

        res, cv = cross_validate(problem, entry.run, grid, folds=cv_folds, seed=opts.seed,
                                 plan=_plan(opts), options=kwargs)
        problem = _problem_like(problem, cv["cv_params"])
        res.extra.update(cv)
    params = {"kernels": kernels, "k0": k0, "C": C, "lam": lam, "init": init,
              "starts": starts, "normalize": normalize, "cv_folds": cv_folds,
              **({"cv_C": cv_C, "cv_lam": cv_lam, "cv_k0": cv_k0} if cv_folds else {}),
              **tree, **(options or {}), **opts.params()}
    return _payload(res, problem, split, "solve", method, params)


def _problem_like(problem: Any, params: dict[str, Any]) -> Any:
    """``problem`` with the CV's (C, lam, k0), sharing its kernel stack."""
    from sparsekm.algorithms.smkl.cv import restrict

    return restrict(problem, None, **params)


@runner("relax", "smkl", checks=True)
def run_relax(opts: RunOptions, *, kernels: str = "paper10", k0: int = 2, C: float = 10.0,
              lam: float = 1.0, relaxation: str = "sdp-full-cp", normalize: str = "none",
              options: dict[str, Any] | None = None) -> dict[str, Any]:
    """A relaxation of (13): its value and certified value (a lower bound on (4))."""
    entry = registry.get("smkl", "relaxation", relaxation)
    split = prepare(opts)
    problem = _problem(split, kernels, k0, C, lam, normalize)
    ready()
    res = entry.run(problem, _plan(opts), **(options or {}))
    params = {"kernels": kernels, "k0": k0, "C": C, "lam": lam, "normalize": normalize,
              **(options or {}), **opts.params()}
    return _payload(res, problem, split, "relax", relaxation, params)


@solve_app.command("smkl")
@shared_options
def solve_smkl_cmd(
    data: DataOpt = DEFAULT_DATA, label: LabelOpt = "label", scale: ScaleOpt = "standard",
    rows: RowsOpt = None, seed: SeedOpt = 0, solver: SolverOpt = None,
    time_limit: TimeLimitOpt = None, test_size: TestSizeOpt = 0.0, json_out: JsonOpt = False,
    kernels: KernelsOpt = "paper10", k0: K0Opt = 2, C: COpt = 10.0, lam: LamOpt = 1.0,
    method: Annotated[str, typer.Option(
        "--method", help=registry.choices_help("smkl", "method"))] = "abr",
    init: Annotated[str, typer.Option(
        "--init", help="ABR start: ranking (best single kernels), random, or a relaxation's "
        "k0 largest weights: " + registry.choices_help("smkl", "relaxation"))] = "ranking",
    starts: Annotated[int, typer.Option(
        "--starts", help="ABR starts (ranked single kernels, or seeded random; >= 1).")] = 3,
    normalize: NormOpt = "none", workers: WorkersOpt = 1, checkpoint: CheckpointOpt = None,
    cv_folds: CVFoldsOpt = 0, cv_C: CVCOpt = CV_GRID["C"], cv_lam: CVLamOpt = CV_GRID["lam"],
    cv_k0: CVK0Opt = CV_GRID["k0"],
) -> None:
    """Sparse multiple kernel learning, paper B eq. (4): at most k0 kernels."""
    opts = RunOptions(data, label, scale, rows, seed, solver, time_limit, test_size)
    run_command(run, opts, json_out, kernels=kernels, k0=k0, C=C, lam=lam, method=method,
                init=init, starts=starts, normalize=normalize, workers=workers,
                checkpoint=checkpoint, cv_folds=cv_folds, cv_C=cv_C, cv_lam=cv_lam, cv_k0=cv_k0)


@relax_app.command("smkl")
@shared_options
def relax_smkl_cmd(
    data: DataOpt = DEFAULT_DATA, label: LabelOpt = "label", scale: ScaleOpt = "standard",
    rows: RowsOpt = None, seed: SeedOpt = 0, solver: SolverOpt = None,
    time_limit: TimeLimitOpt = None, test_size: TestSizeOpt = 0.0, json_out: JsonOpt = False,
    kernels: KernelsOpt = "paper10", k0: K0Opt = 2, C: COpt = 10.0, lam: LamOpt = 1.0,
    relaxation: Annotated[str, typer.Option(
        "--relaxation", help=registry.choices_help("smkl", "relaxation"))] = "sdp-full-cp",
    normalize: NormOpt = "none",
) -> None:
    """A convex relaxation of MISDP (13) and its certified lower bound on (4)."""
    opts = RunOptions(data, label, scale, rows, seed, solver, time_limit, test_size)
    run_command(run_relax, opts, json_out, kernels=kernels, k0=k0, C=C, lam=lam,
                relaxation=relaxation, normalize=normalize)


def demo_section(ds: Any, quick: bool = False) -> list[str]:
    """ABR, the exact branch-and-bound and the (14) bound on a standardised subset (paper10)."""
    from sparsekm.models.smkl.problem import SMKLProblem
    from sparsekm.solvers import SolverPlan

    from .common import scale_fit_transform

    sub = scale_fit_transform("standard", ds.head(min(ds.m, 100 if quick else 200)))
    problem = SMKLProblem(sub.X, sub.y, "paper10", 2, 10.0, 1.0)
    lines = ["\n== Sparse multiple kernel learning, at most k0 = 2 of 10 kernels (paper B) " +
             "=" * 4, f"  (4) with C = 10, lam = 1, the paper's ten kernels, m = {sub.m}"]
    names = problem.labels
    for kind, name in (("method", "abr"), ("method", "exact"), ("relaxation", "sdp-full-cp")):
        res = registry.get("smkl", kind, name)(problem, SolverPlan(time_limit=60))
        bound = "-" if res.bound is None else f"{res.bound:.6f}"
        what = "lower bound (14)" if kind == "relaxation" else "objective"
        sel = "" if kind == "relaxation" else "  kernels " + ", ".join(
            names[i] for i in res.selected)
        lines.append(f"  {name:<12} {what} = {res.objective:.6f}  certified bound = {bound}  "
                     f"status = {res.status.value}  ({res.time_s:.1f} s){sel}")
    return lines
