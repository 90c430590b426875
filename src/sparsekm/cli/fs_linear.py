"""``sparsekm solve fs-linear`` / ``sparsekm relax fs-linear``: paper D end to end.

FS-SVM (2) of Bomze, D'Onofrio, Palagi, Peng (2024): linear SVM with at most B features.
``solve`` methods: bigm (6), cop (7), local-search (Alg. 1), kernel-search (Alg. 2),
heuristic (Alg. 3), exact (Alg. 4). ``relax`` relaxations: box (8), shor-bigm (10),
shor-cop (11), shor-cop-bigm (12), dsmp (15), dscop (13), dscomp (14).
JSON: objective = 1/2||w||^2 + C sum xi (for relax: the bound); lower_bound/gap when given.
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
    relax_app,
    result_payload,
    scale_fit_transform,
    solve_app,
)

BOpt = Annotated[int, typer.Option("--B", help="Budget: at most B selected features.")]
MOpt = Annotated[float | None, typer.Option(
    "--M", help="Big-M for the forms that use it (estimated when absent; ignored by others).")]
MethodOpt = Annotated[str, typer.Option(
    "--method", help="bigm|cop|local-search|kernel-search|heuristic|exact")]
RelaxOpt = Annotated[str, typer.Option(
    "--relaxation", help="box|shor-bigm|shor-cop|shor-cop-bigm|dsmp|dscop|dscomp")]

DEMO_RANK = 10  # paper D first in the demo


def _check_B(B: int, n: int) -> None:
    if B < 1 or n < B:
        raise CLIError(f"--B {B}: must be between 1 and the number of features n = {n}")


@solve_app.command("fs-linear")
def solve_fs_linear_cmd(
    data: DataOpt = DEFAULT_DATA, label: LabelOpt = "label", scale: ScaleOpt = "standard",
    rows: RowsOpt = None, seed: SeedOpt = 0, solver: SolverOpt = None,
    time_limit: TimeLimitOpt = None, json_out: JsonOpt = False,
    B: BOpt = 5, C: COpt = 10.0, method: MethodOpt = "kernel-search", M: MOpt = None,
    relax_solver: Annotated[str | None, typer.Option(
        "--relax-solver", help="Solver for the conic relaxations (default Clarabel).")] = None,
    misocp_solver: Annotated[str | None, typer.Option(
        "--misocp-solver", help="Solver for SR-DLMP(K) in exact (default: --solver).")] = None,
    k: Annotated[int, typer.Option("--k", help="Local Search excess k.")] = 10,
    rho: Annotated[int, typer.Option("--rho", help="Kernel Search bucket size.")] = 10,
    s: Annotated[int, typer.Option("--s", help="Exact: features added to K per iter.")] = 10,
    strategy: Annotated[str, typer.Option(
        "--strategy", help="Upper-bound strategy of heuristic/exact.")] = "kernel-search",
    subproblem_time_limit: Annotated[float, typer.Option(
        "--subproblem-time-limit", help="Seconds per Kernel Search subproblem.")] = 60.0,
) -> None:
    """Linear SVM feature selection with a hard cardinality constraint (paper D)."""
    from sparsekm.algorithms.fs_linear_solve import solve_fs_linear

    with cli_errors():
        ds = scale_fit_transform(scale, load_cli_data(data, label, rows))
        _check_B(B, ds.n)
        res = solve_fs_linear(ds.X, ds.y, B, C, method=method, solver=solver,
                              relax_solver=relax_solver, misocp_solver=misocp_solver,
                              time_limit=time_limit, M=M, k=k, rho=rho, s=s,
                              strategy=strategy, subproblem_time_limit=subproblem_time_limit)
        acc = float(np.mean(np.where(ds.X @ res.w + res.b >= 0, 1.0, -1.0) == ds.y))
        params = {"B": B, "C": C, "M": M, "k": k, "rho": rho, "s": s, "strategy": strategy,
                  "scale": scale, "seed": seed, "time_limit": time_limit}
        extra = {"b": res.b, "w_selected": [res.w[j] for j in res.selected],
                 "train_accuracy": acc, "iterations": res.log or None}
        if "M" in res.info:
            extra["M_used"] = res.info["M"]
        payload = result_payload(
            problem="fs-linear", method=method, solver=res.solver or solver, ds=ds,
            params=params, status=res.status, objective=res.objective, lower_bound=res.lower_bound,
            gap=res.gap, selected=res.selected, time_s=res.time_s, **extra)
        emit(payload, json_out)


@relax_app.command("fs-linear")
def relax_fs_linear_cmd(
    data: DataOpt = DEFAULT_DATA, label: LabelOpt = "label", scale: ScaleOpt = "standard",
    rows: RowsOpt = None, seed: SeedOpt = 0, solver: SolverOpt = None,
    time_limit: TimeLimitOpt = None, json_out: JsonOpt = False,
    B: BOpt = 5, C: COpt = 10.0, relaxation: RelaxOpt = "dscop", M: MOpt = None,
    conic: Annotated[str, typer.Option(
        "--conic", help="Decomposed forms: soc (Lemma 4.3) or sdp (PSD blocks).")] = "soc",
) -> None:
    """A lower bound on FS-SVM (2) from a relaxation of paper D (objective = the bound)."""
    from sparsekm.models.fs_linear import estimate_big_m
    from sparsekm.relaxations.fs_linear import (
        NEEDS_M,
        canonical_relaxation,
        solve_relaxation,
    )

    with cli_errors():
        ds = scale_fit_transform(scale, load_cli_data(data, label, rows))
        _check_B(B, ds.n)
        name = canonical_relaxation(relaxation)
        t0 = time.perf_counter()
        Mv = M
        if name in NEEDS_M and M is None:
            Mv = estimate_big_m(ds.X, ds.y, B, C)
        r = solve_relaxation(ds.X, ds.y, B, C, name, M=Mv if name in NEEDS_M else None,
                             solver=solver, time_limit=time_limit, conic=conic)
        order = np.argsort(r.u, kind="stable")[:B] if r.u is not None else None
        params = {"B": B, "C": C, "M": Mv if name in NEEDS_M else None, "conic": conic,
                  "scale": scale, "seed": seed, "time_limit": time_limit}
        payload = result_payload(
            problem="fs-linear", method=name, solver=r.solver, ds=ds, params=params,
            status=r.status, objective=r.bound, lower_bound=r.bound, gap=None,
            selected=None if order is None else order.tolist(),
            time_s=time.perf_counter() - t0, equation=r.info.get("equation"),
            u=None if r.u is None else r.u.tolist())
        payload["selected_meaning"] = "the B features with the smallest relaxed u*_j"
        emit(payload, json_out)


def demo_section(ds, quick: bool = False) -> list[str]:
    """A certified paper-D run: Kernel Search incumbent, DSCoP bound, gap, names, accuracy."""
    from sparsekm.algorithms.fs_linear_kernel_search import kernel_search
    from sparsekm.data import train_test_split

    B, C = 5, 10.0
    B = min(B, ds.n)
    train, test = train_test_split(ds, test_size=0.2, seed=0)
    if quick:
        train = train.head(min(train.m, 150))
    t0 = time.perf_counter()
    res = kernel_search(train.X, train.y, B, C, rho=10, time_limit=60 if quick else 300,
                        subproblem_time_limit=20 if quick else 60)
    dt = time.perf_counter() - t0

    def acc(d) -> float:
        return float(np.mean(np.where(d.X @ res.w + res.b >= 0, 1.0, -1.0) == d.y))

    names = [train.feature_names[j] for j in res.selected]
    return [
        "\n== Feature selection, linear SVM with at most B features (paper D) " + "=" * 8,
        f"  FS-SVM (2): B = {B}, C = {C:g}, train m = {train.m}, test m = {test.m}",
        f"  Kernel Search (Alg. 2) incumbent  objective = {res.objective:.6f}",
        f"  DSCoP (13) lower bound            {res.lower_bound:.6f}",
        f"  certified gap                     {100 * (res.gap or 0.0):.3f} %  ({dt:.1f} s)",
        f"  selected features: {', '.join(names)}",
        f"  accuracy: train {acc(train):.3f}, test {acc(test):.3f}",
    ]
