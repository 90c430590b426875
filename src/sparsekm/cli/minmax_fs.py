"""``sparsekm solve minmax-fs``: paper E, min-max feature weighting for the Gaussian-kernel SVM.

Without ``--gamma0``, Algorithm 1's 5-fold CV over the paper's (C, gamma) grid chooses C and
the start gamma_j = gamma (a given ``--C`` fixes C in that CV); with ``--gamma0 G`` the
start is gamma_j = G for every j and C is ``--C`` (default 1). JSON: ``objective`` = value of
(14) at the returned gamma, ``gamma`` (one weight per feature), ``selected`` = features with
gamma_j > 1e-4 max(gamma) (``selected_threshold``), train/test accuracies of the SVM at gamma
and of the NO-FS start, ``kkt_residual`` of (20) at the returned point (with its parts in
``kkt``), ``lower_bound`` only from ``--method scip`` (a certified bound on (14)).

``--outer-folds K`` runs paper E's protocol (Section 4.2) instead, as one run: K stratified
outer folds of the whole data (seeded), on each the scaling and Algorithm 1 (CV, route at
``--C2``) on the other K - 1 folds and predictions on the held-out one; ``test_accuracy`` and
``nofs_test_accuracy`` are pooled over the folds (Table 2), ``objective`` is the mean (14),
``selected`` the features selected in every fold, ``folds`` the per-fold details.
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
    result_payload,
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


def _protocol(opts: RunOptions, params: dict[str, Any], method: str, outer: int,
              start: Any, options: dict[str, Any]) -> dict[str, Any]:
    """Paper E's Section 4.2 protocol on the whole data set, as one payload (see above)."""
    import time

    from sparsekm.algorithms.minmax_fs.cv import C_GRID, GAMMA_GRID
    from sparsekm.algorithms.minmax_fs.protocol import pooled, run_protocol
    from sparsekm.models.minmax_fs import MinMaxFSProblem

    from .common import load_cli_data

    if opts.test_size > 0:
        raise CLIError("--outer-folds holds out each fold in turn: drop --test-size")
    if outer < 2:
        raise CLIError(f"--outer-folds {outer}: give at least 2 (paper E: 10), or 0 for one fit")
    ds = load_cli_data(opts.data, opts.label, opts.rows)
    MinMaxFSProblem(ds.X, ds.y, C=1.0 if start.C is None else start.C, C2=params["C2"],
                    p=params["p"])                       # validates C2, p
    ready()          # a grid's dry run (check_run) stops here, before the nested CV
    t0 = time.perf_counter()
    grids = ((C_GRID if start.C is None else (float(start.C),)),
             (GAMMA_GRID if start.gamma0 is None else (float(start.gamma0),)))
    folds = run_protocol(ds.X, ds.y, C2_grid=(params["C2"],), p=params["p"], methods=(method,),
                         options={"outer": outer, "inner": start.folds, "seed": opts.seed,
                                  "time_limit": opts.time_limit, "solver": opts.solver,
                                  "curves": False, "grids": grids, "scale": opts.scale,
                                  "tie": start.tie, "starts": start.starts,
                                  "method_options": {method: options}})
    out = pooled(folds, method, params["C2"])
    statuses = out.pop("statuses")
    status = statuses[0] if len(statuses) == 1 else \
        "time_limit" if "time_limit" in statuses else "feasible"
    return result_payload(problem=PROBLEM, method=method, solver=None, ds=ds, params=params,
                          status=status, objective=out.pop("objective"),
                          selected=out.pop("selected"), time_s=time.perf_counter() - t0,
                          termination="outer_folds", outer_folds=outer,
                          selected_rule="gamma_j > 1e-4 max(gamma) in every outer fold", **out)


@runner("solve", PROBLEM, checks=True)
def run(opts: RunOptions, *, C: float | None = None, C2: float = 0.5, p: float = 1.0,
        gamma0: float | None = None, method: str = "fast", cv_folds: int = 5,
        cv_tie: str = "largest-C", starts: int = 1, outer_folds: int = 0,
        options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Algorithm 1 (or a given start) and the chosen route; the JSON payload."""
    from sparsekm.algorithms.minmax_fs.algorithm1 import Start, algorithm1, predict_scores
    from sparsekm.algorithms.minmax_fs.common import SELECT_REL
    from sparsekm.algorithms.minmax_fs.cv import TIES
    from sparsekm.models.minmax_fs import MinMaxFSProblem
    from sparsekm.solvers import SolverPlan

    registry.get(PROBLEM, "method", method)            # unknown method: one-line error
    options = dict(options or {})
    gamma0 = options.pop("gamma0", gamma0)             # -o gamma0=... is --gamma0
    if cv_folds < 2:
        raise CLIError(f"--cv-folds {cv_folds}: Algorithm 1's CV needs at least 2 folds")
    if cv_tie not in TIES:
        raise CLIError(f"--cv-tie {cv_tie!r}: choose one of {', '.join(TIES)}")
    if starts < 1:
        raise CLIError(f"--starts {starts}: give at least 1")
    params = {"C": C, "C2": C2, "p": p, "gamma0": gamma0, "cv_folds": cv_folds,
              "cv_tie": cv_tie, "starts": starts, "outer_folds": outer_folds, **options,
              "scale": opts.scale, "seed": opts.seed, "time_limit": opts.time_limit,
              "test_size": opts.test_size}
    if outer_folds:
        return _protocol(opts, params, method, outer_folds,
                         Start(C=C, gamma0=gamma0, folds=cv_folds, tie=cv_tie, starts=starts),
                         options)
    split = prepare(opts)
    tr, te = split.train, split.test
    if gamma0 is not None and C is None:
        C = 1.0
    MinMaxFSProblem(tr.X, tr.y, C=1.0 if C is None else C, C2=C2, p=p)  # validates C2, p
    plan = SolverPlan(solver=opts.solver, time_limit=opts.time_limit)
    ready()
    res = algorithm1(tr.X, tr.y, C2=C2, p=p, method=method, plan=plan,
                     start=Start(C=C, gamma0=gamma0, folds=cv_folds, seed=opts.seed,
                                 tie=cv_tie, starts=starts),
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
    cv_tie: Annotated[str, typer.Option(
        "--cv-tie", help="The CV's rule among equal accuracies: largest-C (default), "
        "smallest-C (scikit-learn's), smallest-gamma.")] = "largest-C",
    starts: Annotated[int, typer.Option(
        "--starts", help="Route starts: gamma_ini, then x0.1, x10, x0.01, ...; the lowest "
        "(14) wins (paper: 1).")] = 1,
    outer_folds: Annotated[int, typer.Option(
        "--outer-folds", help="Run paper E's Section 4.2 protocol with this many outer folds "
        "(paper: 10); accuracies pooled over the held-out folds. 0: one fit.")] = 0,
) -> None:
    """Min-max feature weighting (paper E, problem (14)): gamma, selected features, accuracy."""
    opts = RunOptions(data, label, scale, rows, seed, solver, time_limit, test_size)
    run_command(run, opts, json_out, C=C, C2=C2, p=p, gamma0=gamma0, method=method,
                cv_folds=cv_folds, cv_tie=cv_tie, starts=starts, outer_folds=outer_folds)


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
