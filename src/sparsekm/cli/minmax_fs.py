"""``sparsekm solve minmax-fs``: paper E, min-max feature weighting for the Gaussian-kernel SVM.

Without ``--gamma0``, Algorithm 1's 5-fold CV over the paper's (C, gamma) grid chooses C and
the start gamma_j = gamma (a given ``--C`` fixes C in that CV); with ``--gamma0 G`` the
start is gamma_j = G for every j and C is ``--C`` (default 1). JSON: ``objective`` = value of
(14) at the returned gamma, ``gamma`` (one weight per feature), ``selected`` = features with
gamma_j > 1e-4 max(gamma) (``selected_threshold``), train/test accuracies of the SVM at gamma
and of the NO-FS start, ``kkt_residual`` of (20) at the returned point (with its parts in
``kkt``), ``lower_bound`` only from ``--method scip`` (a certified bound on (14)).
"""

from __future__ import annotations

from typing import Annotated, Any

import numpy as np
import typer

from sparsekm import registry

from .common import (
    CLIError,
    DataOpt,
    JsonOpt,
    LabelOpt,
    RowsOpt,
    RunOptions,
    SeedOpt,
    SolverOpt,
    TestSizeOpt,
    TimeLimitOpt,
    accuracy,
    payload_from,
    prepare,
    ready,
    run_command,
    runner,
    shared_options,
    solve_app,
)

DEMO_RANK = 50
PROBLEM = "minmax-fs"


def _nofs_scores(train: Any, C: float, gamma: float, *others: Any) -> list[float]:
    """Accuracy of the NO-FS SVM (gamma_j = gamma, penalty C) on train and each of ``others``."""
    from sparsekm.algorithms.minmax_fs.cv import decision_values, svm_fit
    from sparsekm.models.minmax_fs.lower import kernel

    g = np.full(train.n, float(gamma))
    alpha, b = svm_fit(kernel(train.X, g), train.y, C)
    return [accuracy(decision_values(train.X, train.y, alpha, b, g, d.X), d.y)
            for d in (train, *others)]


@runner("solve", PROBLEM, checks=True)
def run(opts: RunOptions, *, C: float | None = None, C2: float = 0.5, p: float = 1.0,
        gamma0: float | None = None, method: str = "fast", cv_folds: int = 5,
        options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Algorithm 1 (or a given start) and the chosen route; the JSON payload."""
    from sparsekm.algorithms.minmax_fs.algorithm1 import Start, algorithm1, predict_scores
    from sparsekm.algorithms.minmax_fs.common import SELECT_REL
    from sparsekm.models.minmax_fs import MinMaxFSProblem
    from sparsekm.solvers import SolverPlan

    registry.get(PROBLEM, "method", method)            # unknown method: one-line error
    options = dict(options or {})
    gamma0 = options.pop("gamma0", gamma0)             # -o gamma0=... is --gamma0
    if cv_folds < 2:
        raise CLIError(f"--cv-folds {cv_folds}: Algorithm 1's CV needs at least 2 folds")
    split = prepare(opts)
    tr, te = split.train, split.test
    if gamma0 is not None and C is None:
        C = 1.0
    MinMaxFSProblem(tr.X, tr.y, C=1.0 if C is None else C, C2=C2, p=p)  # validates C2, p
    plan = SolverPlan(solver=opts.solver, time_limit=opts.time_limit)
    ready()
    res = algorithm1(tr.X, tr.y, C2=C2, p=p, method=method, plan=plan,
                     start=Start(C=C, gamma0=gamma0, folds=cv_folds, seed=opts.seed),
                     method_options=options)
    C_used, g_start = res.extra["C"], res.extra["cv"]["gamma"]
    others = [te] if te is not None else []
    acc = {"train_accuracy": accuracy(predict_scores(tr.X, tr.y, res, tr.X), tr.y)}
    if te is not None:
        acc["test_accuracy"] = accuracy(predict_scores(tr.X, tr.y, res, te.X), te.y)
    nofs = _nofs_scores(tr, C_used, g_start, *others)
    acc["nofs_train_accuracy"] = nofs[0]
    if te is not None:
        acc["nofs_test_accuracy"] = nofs[1]
    params = {"C": C, "C2": C2, "p": p, "gamma0": gamma0, "cv_folds": cv_folds, **options,
              "scale": opts.scale, "seed": opts.seed, "time_limit": opts.time_limit,
              "test_size": opts.test_size}
    kkt = res.extra["kkt"]
    return payload_from(
        res, problem=PROBLEM, method=method, ds=split.ds, params=params,
        gamma=np.asarray(res.gamma), selected_threshold=f"gamma_j > {SELECT_REL:g} max(gamma)",
        C_used=C_used, gamma_start=g_start, cv_accuracy=res.extra["cv"]["cv_accuracy"],
        start_objective=res.extra["start_objective"], kkt_residual=kkt["kkt_residual"],
        kkt=kkt, returned_start=res.extra["returned_start"], **acc)


@solve_app.command("minmax-fs")
@shared_options
def solve_minmax_fs_cmd(
    data: DataOpt = "breast_cancer_diagnostic", label: LabelOpt = "label",
    scale: Annotated[str, typer.Option(
        "--scale", help="Preprocessing fitted on training rows (paper E: minmax11 = [-1, 1]): "
        "none|standard|minmax01|minmax11.")] = "minmax11",
    rows: RowsOpt = None, seed: SeedOpt = 0, solver: SolverOpt = None,
    time_limit: TimeLimitOpt = None, test_size: TestSizeOpt = 0.0, json_out: JsonOpt = False,
    C: Annotated[float | None, typer.Option(
        "--C", help="SVM penalty C > 0 (default: chosen by the CV; 1 with --gamma0).")] = None,
    C2: Annotated[float, typer.Option(
        "--C2", help="Weight of ||gamma||_p^p in (14), in (0, 1).")] = 0.5,
    p: Annotated[float, typer.Option("--p", help="Penalty exponent p > 0 (paper: 1).")] = 1.0,
    gamma0: Annotated[float | None, typer.Option(
        "--gamma0", help="Start gamma_j = G for every j (skips the CV of Algorithm 1).")]
    = None,
    method: Annotated[str, typer.Option(
        "--method", help=registry.choices_help(PROBLEM, "method"))] = "fast",
    cv_folds: Annotated[int, typer.Option(
        "--cv-folds", help="Folds of Algorithm 1's CV (paper: 5).")] = 5,
) -> None:
    """Min-max feature weighting (paper E, problem (14)): gamma, selected features, accuracy."""
    opts = RunOptions(data, label, scale, rows, seed, solver, time_limit, test_size)
    run_command(run, opts, json_out, C=C, C2=C2, p=p, gamma0=gamma0, method=method,
                cv_folds=cv_folds)


def demo_section(ds: Any, quick: bool = False) -> list[str]:
    """Paper E on the demo data: CV start, fast route, weights, accuracy."""
    import time

    from sparsekm.algorithms.minmax_fs.algorithm1 import algorithm1, predict_scores
    from sparsekm.data import train_test_split

    from .common import scale_fit_transform

    train, test = train_test_split(ds, test_size=0.2, seed=0)
    if quick:
        train = train.head(min(train.m, 150))
    train, test = scale_fit_transform("minmax11", train, test)
    t0 = time.perf_counter()
    res = algorithm1(train.X, train.y, C2=0.5)
    dt = time.perf_counter() - t0
    order = np.argsort(-np.asarray(res.gamma))[:5]
    top = ", ".join(f"{train.feature_names[j]} ({res.gamma[j]:.3g})" for j in order)
    acc = accuracy(predict_scores(train.X, train.y, res, test.X), test.y)
    return [
        "\n== Feature weighting, Gaussian-kernel SVM (paper E, min-max (14)) " + "=" * 8,
        f"  Algorithm 1 CV: C* = {res.extra['C']:g}, gamma_ini = {res.extra['cv']['gamma']:g};"
        f" C2 = 0.5, train m = {train.m}",
        f"  (14): NO-FS start {res.extra['start_objective']:.6f} -> {res.objective:.6f} "
        f"(fast route, {dt:.1f} s), KKT residual of (20) {res.extra['kkt']['kkt_residual']:.1e}",
        f"  {len(res.selected or [])} of {train.n} features kept; top: {top}",
        f"  test accuracy {acc:.3f}"]
