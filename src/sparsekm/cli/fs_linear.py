"""``sparsekm solve fs-linear`` / ``sparsekm relax fs-linear``: paper D end to end.

FS-SVM (2): linear SVM with at most B features. Methods and relaxations are the registered ones
(``sparsekm methods fs-linear``). JSON: objective = 1/2||w||^2 + C sum xi (for relax: the
bound); lower_bound / gap when certified.
"""

from __future__ import annotations

import time
from typing import Annotated, Any

import numpy as np
import typer

from sparsekm import registry

from . import common as c

DEMO_RANK = 10  # paper D first in the demo
PROBLEM = "fs-linear"
D = registry.defaults(PROBLEM)
PLAN_KEYS = ("relax_solver", "misocp_solver", "qp_solver", "subproblem_time_limit",
             "warm_start", "verbose")


def _problem(train: Any, params: dict[str, Any]) -> Any:
    from sparsekm.models.fs_linear import FSLinearProblem

    B = params.pop("B", D["B"])
    if not (isinstance(B, int) and B >= 1):
        raise c.CLIError(f"--B {B}: give a budget of at least 1 feature (B >= n: the plain SVM)")
    return FSLinearProblem(train.X, train.y, B=B, C=params.pop("C", D["C"]),
                           cardinality=params.pop("cardinality", D["cardinality"]))


def _plan(opts: c.RunOptions, params: dict[str, Any]) -> Any:
    from sparsekm.solvers import SolverPlan

    return SolverPlan(solver=opts.solver, time_limit=opts.time_limit,
                      **{k: params.pop(k) for k in PLAN_KEYS if k in params})


def _method_options(method: str, params: dict[str, Any]) -> dict[str, Any]:
    """The options ``method`` takes; a key no fs-linear method takes is an error."""
    known = {k for e in registry.entries(PROBLEM, "method") for k in e.options}
    unknown = sorted(set(params) - known)
    if unknown:
        raise c.CLIError(f"no fs-linear method takes {', '.join(unknown)}; options: "
                       f"{', '.join(sorted(known))}")
    mine = registry.get(PROBLEM, "method", method).options
    return {k: v for k, v in params.items() if k in mine}


@c.runner("solve", PROBLEM, checks=True)
def run(opts: c.RunOptions, **params: Any) -> dict[str, Any]:
    """Solve FS-SVM (2) with ``params["method"]``; the JSON payload of ``solve fs-linear``."""
    from sparsekm.algorithms.fs_linear import solve_fs_linear

    params = dict(params)
    method = params.pop("method", "kernel-search")
    options = params.pop("options", None)
    split = c.prepare(opts)
    B_given = params.get("B", D["B"])  # B >= n is stored as n (the plain SVM)
    problem = _problem(split.train, params)
    plan = _plan(opts, params)
    entry = registry.get(PROBLEM, "method", method)
    tree = c.tree_options(entry, params.pop("workers", 1), params.pop("checkpoint", None))
    kwargs = c.method_options(entry, {**_method_options(entry.name, params), **tree}, options)
    if "seed" in entry.options and "seed" not in kwargs:
        kwargs["seed"] = opts.seed       # the CLI's --seed, unless --option seed= says
    c.ready()
    load_s = registry.load_compiled(entry)       # before the method's clock: not a solve
    res = solve_fs_linear(problem, entry.name, plan, **kwargs)
    w, b = res.values["w"], float(res.values["b"])
    extra: dict[str, Any] = {"load_s": load_s, "b": b, "w_selected": [w[j] for j in res.selected],
                             "train_accuracy": c.accuracy(split.train.X @ w + b, split.train.y),
                             "iterations": res.log or None, "equation": entry.citation}
    if split.test is not None:
        extra["test_accuracy"] = c.accuracy(split.test.X @ w + b, split.test.y)
    if "M" in res.extra:
        extra["M_used"] = res.extra["M"]
    return c.payload_from(res, problem=PROBLEM, method=entry.name, ds=split.ds,
                          params=_ran(B_given, problem.C, entry, {**params, **kwargs}, opts),
                          **extra)


def _ran(B: int, C: float, entry: Any, given: dict[str, Any], opts: c.RunOptions
         ) -> dict[str, Any]:
    """The parameters of the run as it ran: B, C, the options the method took (``--option``
    values over flags; a flag the method does not take is left out) and the run options
    (``seed`` only when the method took none of its own)."""
    took = {k: v for k, v in given.items() if k in entry.options}
    return {"B": B, "C": C, **took, **{k: v for k, v in opts.params().items() if k not in took}}


@c.runner("relax", PROBLEM, checks=True)
def run_relax(opts: c.RunOptions, **params: Any) -> dict[str, Any]:
    """A registered relaxation of FS-SVM (2): objective = its value, lower_bound = its
    certified value (null, with the reason, when the solver certifies none)."""
    from sparsekm.relaxations.fs_linear import solve_relaxation

    params = dict(params)
    options = params.pop("options", None)
    entry = registry.get(PROBLEM, "relaxation", params.pop("relaxation", "dscop"))
    name = entry.name
    split = c.prepare(opts)
    B_given = params.get("B", D["B"])  # B >= n is stored as n (the plain SVM)
    problem = _problem(split.train, params)
    plan = _plan(opts, params).with_(relax_solver=opts.solver)
    kwargs = c.method_options(entry, params, options)
    c.ready()
    load_s = registry.load_compiled(entry)       # before the clock: not a solve
    t0 = time.perf_counter()
    r = solve_relaxation(problem, name, plan, **kwargs)
    r.time_s = time.perf_counter() - t0
    u = r.values.get("u")
    rounded = None if u is None else sorted(np.argsort(u, kind="stable")[:problem.B].tolist())
    run_params = {"B": B_given, "C": problem.C, "M": r.extra.get("M"),
                  **{k: v for k, v in {**params, **kwargs}.items() if k != "M"},
                  **opts.params()}
    return c.payload_from(
        r, problem=PROBLEM, method=name, ds=split.ds, params=run_params,
        equation=r.extra.get("equation"), u=u, message=r.message if r.bound is None else "",
        load_s=load_s,
        rounded_selected=rounded,
        rounded_selected_names=None if rounded is None else
        [split.ds.feature_names[j] for j in rounded],
        rounded_meaning="the B features with the smallest relaxed u*_j (a rounding)")


BOpt = Annotated[int, typer.Option("--B", help="Budget: at most B selected features.")]
MOpt = Annotated[float | None, typer.Option(
    "--M", help="Big-M for the forms that use it (valid estimate sqrt(2 UB) when absent).")]
MethodOpt = Annotated[str, typer.Option(
    "--method", help=registry.choices_help(PROBLEM, "method"))]
RelaxOpt = Annotated[str, typer.Option(
    "--relaxation", help=registry.choices_help(PROBLEM, "relaxation"))]
RelaxSolverOpt = Annotated[str | None, typer.Option(
    "--relax-solver", help="Solver for the conic relaxations (default: configured, Clarabel).")]


@c.solve_app.command("fs-linear")
@c.shared_options
def solve_fs_linear_cmd(
    data: c.DataOpt = c.DEFAULT_DATA, label: c.LabelOpt = "label", scale: c.ScaleOpt = "standard",
    rows: c.RowsOpt = None, seed: c.SeedOpt = 0, solver: c.SolverOpt = None,
    time_limit: c.TimeLimitOpt = None, test_size: c.TestSizeOpt = 0.0, json_out: c.JsonOpt = False,
    B: BOpt = D["B"], C: c.COpt = D["C"], method: MethodOpt = "kernel-search", M: MOpt = None,
    relax_solver: RelaxSolverOpt = None,
    misocp_solver: Annotated[str | None, typer.Option(
        "--misocp-solver", help="Solver for SR-DLMP(K) in exact (default: --solver).")] = None,
    k: Annotated[int, typer.Option("--k", help="Local Search excess k.")] = D["k"],
    rho: Annotated[int, typer.Option("--rho", help="Kernel Search bucket size.")] = D["rho"],
    s: Annotated[int, typer.Option("--s", help="Exact: features added to K per iter.")] = D["s"],
    strategy: Annotated[str, typer.Option(
        "--strategy", help="Upper-bound strategy of heuristic/exact.")] = D["strategy"],
    cop_form: Annotated[str, typer.Option(
        "--cop-form", help="CoP (7) / CoP(K) (16) form: bilinear|perspective.")] = D["cop_form"],
    subproblem_time_limit: Annotated[float, typer.Option(
        "--subproblem-time-limit", help="Seconds per Kernel Search subproblem.")] = 60.0,
    warm_start: Annotated[bool, typer.Option(
        "--warm-start/--no-warm-start",
        help="bigm/cop: start the solver from the Kernel Search incumbent (CoP*).")] = True,
    verbose: Annotated[bool, typer.Option("--verbose", help="Progress on stderr.")] = False,
    workers: c.WorkersOpt = 1, checkpoint: c.CheckpointOpt = None,
) -> None:
    """Linear SVM feature selection with a hard cardinality constraint (paper D)."""
    opts = c.RunOptions(data, label, scale, rows, seed, solver, time_limit, test_size)
    params: dict[str, Any] = {
        "workers": workers, "checkpoint": checkpoint, "method": method, "B": B, "C": C,
        "relax_solver": relax_solver,
        "misocp_solver": misocp_solver, "subproblem_time_limit": subproblem_time_limit,
        "warm_start": warm_start, "verbose": verbose, "k": k, "rho": rho, "s": s,
        "strategy": strategy, "cop_form": cop_form}
    if M is not None:
        params["M"] = M
    c.run_command(run, opts, json_out, **params)


@c.relax_app.command("fs-linear")
@c.shared_options
def relax_fs_linear_cmd(
    data: c.DataOpt = c.DEFAULT_DATA, label: c.LabelOpt = "label", scale: c.ScaleOpt = "standard",
    rows: c.RowsOpt = None, seed: c.SeedOpt = 0, solver: c.SolverOpt = None,
    time_limit: c.TimeLimitOpt = None, test_size: c.TestSizeOpt = 0.0, json_out: c.JsonOpt = False,
    B: BOpt = D["B"], C: c.COpt = D["C"], relaxation: RelaxOpt = "dscop", M: MOpt = None,
    conic: Annotated[str, typer.Option(
        "--conic", help="Decomposed forms: soc (Lemma 4.3) or sdp (PSD blocks).")] = "soc",
) -> None:
    """A lower bound on FS-SVM (2) from a relaxation of paper D (objective = the bound)."""
    opts = c.RunOptions(data, label, scale, rows, seed, solver, time_limit, test_size)
    params: dict[str, Any] = {"relaxation": relaxation, "B": B, "C": C, "conic": conic}
    if M is not None:
        params["M"] = M
    c.run_command(run_relax, opts, json_out, **params)


def demo_section(ds: Any, quick: bool = False) -> list[str]:
    """A certified paper-D run: Kernel Search incumbent, DSCoP bound, gap, names, accuracy."""
    from sparsekm.algorithms.fs_linear import solve_fs_linear
    from sparsekm.data import train_test_split
    from sparsekm.models.fs_linear import FSLinearProblem
    from sparsekm.solvers import SolverPlan

    B, C = min(5, ds.n), 10.0
    train, test = train_test_split(ds, test_size=0.2, seed=0)
    if quick:
        train = train.head(min(train.m, 150))
    plan = SolverPlan(time_limit=60 if quick else 300, subproblem_time_limit=20 if quick else 60)
    t0 = time.perf_counter()
    res = solve_fs_linear(FSLinearProblem(train.X, train.y, B=B, C=C), "kernel-search", plan,
                          rho=10)
    dt = time.perf_counter() - t0
    w, b = res.values["w"], res.values["b"]
    names = [train.feature_names[j] for j in res.selected]
    return [
        "\n== Feature selection, linear SVM with at most B features (paper D) " + "=" * 8,
        f"  FS-SVM (2): B = {B}, C = {C:g}, train m = {train.m}, test m = {test.m}",
        f"  Kernel Search (Alg. 2) incumbent  objective = {res.objective:.6f}",
        f"  DSCoP (13) lower bound            {res.bound:.6f}",
        f"  certified gap                     {100 * (res.gap or 0.0):.3f} %  ({dt:.1f} s)",
        f"  selected features: {', '.join(names)}",
        f"  accuracy: train {c.accuracy(train.X @ w + b, train.y):.3f}, "
        f"test {c.accuracy(test.X @ w + b, test.y):.3f}",
    ]
