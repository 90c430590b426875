"""Paper E's experiment (Section 4.2): Algorithm 1 in 10 outer folds for every C2 in the grid.

Per outer fold (stratified, seeded): features scaled to [-1, 1] on the 9 training folds S~,
5-fold CV for (C*, gamma_ini) (the NO-FS model), then for each C2 each requested route from
that start, the test accuracy of the re-solved SVM (10), and the ranking curve of Section 5.2
(top-F features by gamma_j keep their weights, the others get 0, (10) re-solved on S~).
Folds run through ``plan.executor`` (ordered map, so the result does not depend on the number
of workers). :func:`pooled` sums one C2 and method over the folds (Table 2's accuracies);
``sparsekm solve minmax-fs --outer-folds 10`` runs the protocol as one grid run.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from sparsekm import registry
from sparsekm.models.minmax_fs import MinMaxFSProblem
from sparsekm.models.minmax_fs.lower import kernel
from sparsekm.solvers import SolverPlan

from .algorithm1 import C2_GRID, multistart, predict_scores
from .cv import C_GRID, GAMMA_GRID, cv_start, decision_values, svm_fit

__all__ = ["F_grid", "outer_fold", "pooled", "ranking", "ranking_curve", "run_protocol"]


def F_grid(n: int) -> list[int]:
    """Numbers of top features for the ranking curve: 1..n for n <= 40, else a log-ish grid."""
    if n <= 40:
        return list(range(1, n + 1))
    base = [1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 40, 50, 75, 100, 200, 500, 1000, 2000]
    return sorted({f for f in base if f < n} | {n})


def ranking(gamma: np.ndarray) -> np.ndarray:
    """Features by decreasing gamma_j (ties by index): ``ranking[0]`` is the most relevant."""
    return np.argsort(-np.asarray(gamma, dtype=float), kind="stable")


def ranking_curve(X: np.ndarray, y: np.ndarray, X_test: np.ndarray, y_test: np.ndarray,
                  gamma: np.ndarray, C: float, Fs: list[int]) -> list[int]:
    """Correct test predictions with the top-F features (their gamma_j kept, others 0)."""
    order = ranking(gamma)
    out = []
    for F in Fs:
        g = np.zeros_like(gamma)
        g[order[:F]] = gamma[order[:F]]
        alpha, b = svm_fit(kernel(X, g), y, C)
        d = decision_values(X, y, alpha, b, g, X_test)
        out.append(int(np.sum(np.where(d >= 0, 1.0, -1.0) == y_test)))
    return out


def _correct(d: np.ndarray, y: np.ndarray) -> int:
    return int(np.sum(np.where(d >= 0, 1.0, -1.0) == y))


def outer_fold(task: dict[str, Any]) -> dict[str, Any]:
    """One outer fold of the protocol (a picklable task dict -> a JSON-ready dict)."""
    from sparsekm.data import Scaler

    t0 = time.perf_counter()
    X, y = task["X"], task["y"]
    tr, te = task["train"], task["test"]
    sc = Scaler(task.get("scale", "minmax11")).fit(X[tr])
    Xtr, Xte, ytr, yte = sc.transform(X[tr]), sc.transform(X[te]), y[tr], y[te]
    cv = cv_start(Xtr, ytr, folds=task["inner"], seed=task["seed"], C_grid=task["C_grid"],
                  gamma_grid=task["gamma_grid"], tie=task.get("tie", "largest-C"))
    g_ini = np.full(X.shape[1], cv.gamma)
    a0, b0 = svm_fit(kernel(Xtr, g_ini), ytr, cv.C)
    out: dict[str, Any] = {
        "fold": task["fold"], "n_train": len(tr), "n_test": len(te), "C": cv.C,
        "gamma_ini": cv.gamma, "cv_accuracy": cv.accuracy,
        "cv_time_s": time.perf_counter() - t0,
        "nofs_correct": _correct(decision_values(Xtr, ytr, a0, b0, g_ini, Xte), yte),
        "runs": []}
    Fs = F_grid(X.shape[1])
    for C2 in task["C2_grid"]:
        problem = MinMaxFSProblem(Xtr, ytr, C=cv.C, C2=C2, p=task["p"])
        for method in task["methods"]:
            opts = task["method_options"].get(method, {})
            plan = SolverPlan(solver=task.get("solver"), time_limit=task["time_limit"])
            res = multistart(registry.get("minmax-fs", "method", method), problem, plan,
                             cv.gamma, task.get("starts", 1), opts)
            gamma = np.asarray(res.gamma)
            run = {"C2": C2, "method": method, "objective": res.objective,
                   "start_objective": res.extra["start_objective"],
                   "method_objective": res.extra["method_objective"],
                   "solver_objective": res.extra.get("solver_objective"),
                   "status": res.status.value, "time_s": res.time_s,
                   "kkt": res.extra["kkt"], "returned_start": res.extra["returned_start"],
                   "lower_level_gap": res.extra.get("lower_level_gap"),
                   "evaluations": res.extra.get("evaluations"),
                   "test_correct": _correct(predict_scores(Xtr, ytr, res, Xte), yte),
                   "train_correct": _correct(predict_scores(Xtr, ytr, res, Xtr), ytr),
                   "norm1": float(gamma.sum()), "n_selected": len(res.selected or []),
                   "selected": list(res.selected or []), "gamma": gamma.tolist(),
                   "start_values": res.extra.get("start_values")}
            if task["curves"] and method == task["methods"][0]:
                run["curve"] = ranking_curve(Xtr, ytr, Xte, yte, gamma, cv.C, Fs)
            out["runs"].append(run)
    out["F"] = Fs
    out["time_s"] = time.perf_counter() - t0
    return out


def run_protocol(X: np.ndarray, y: np.ndarray, *, C2_grid: tuple = C2_GRID, p: float = 1.0,
                 methods: tuple[str, ...] = ("fast",), plan: SolverPlan | None = None,
                 options: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Paper E's protocol on (X, y) (unscaled): one dict per outer fold, in fold order.

    ``options``: ``outer`` (10), ``inner`` (5) folds, ``seed`` (0), ``method_options``
    ({method: {option: value}}), ``time_limit`` (seconds per solve), ``solver`` (the routes'
    ``--solver``), ``curves`` (ranking curves, default True), ``folds`` (run only these outer
    fold indices), ``grids`` ((C grid, gamma grid)), ``scale`` ("minmax11", the paper's
    [-1, 1]), ``tie`` (the CV's tie rule), ``starts`` (route starts per solve, 1).
    """
    from sparsekm.data import kfold_splits

    opts = dict(options or {})
    outer, inner, seed = opts.get("outer", 10), opts.get("inner", 5), opts.get("seed", 0)
    plan = plan or SolverPlan()
    grids = opts.get("grids", (C_GRID, GAMMA_GRID))
    for m in methods:
        registry.get("minmax-fs", "method", m)          # unknown names fail here, clearly
    splits = kfold_splits(y, k=outer, seed=seed, name="outer_folds")
    keep = opts.get("folds")
    tasks = [{"X": X, "y": y, "train": tr, "test": te, "fold": k, "inner": inner,
              "seed": seed + 1 + k, "C2_grid": tuple(C2_grid), "p": p, "methods": methods,
              "method_options": opts.get("method_options", {}),
              "time_limit": opts.get("time_limit"), "curves": opts.get("curves", True),
              "C_grid": grids[0], "gamma_grid": grids[1], "solver": opts.get("solver"),
              "scale": opts.get("scale", "minmax11"), "tie": opts.get("tie", "largest-C"),
              "starts": opts.get("starts", 1)}
             for k, (tr, te) in enumerate(splits) if keep is None or k in keep]
    if plan.executor is None:
        return [outer_fold(t) for t in tasks]
    return plan.executor.map(outer_fold, tasks)


def pooled(folds: list[dict[str, Any]], method: str, C2: float) -> dict[str, Any]:
    """One (method, C2) over the outer folds: pooled test / train accuracy of MM-FS and of the
    NO-FS start (correct predictions over all test rows, as the paper counts them), the mean
    (14) and ||gamma||_1, the features selected in every fold, and the per-fold summaries."""
    runs = [next(r for r in f["runs"] if r["method"] == method and r["C2"] == C2)
            for f in folds]
    n_test = sum(f["n_test"] for f in folds)
    n_train = sum(f["n_train"] for f in folds)
    common = set(runs[0]["selected"]).intersection(*(r["selected"] for r in runs[1:]))
    per_fold = [{"fold": f["fold"], "C": f["C"], "gamma_ini": f["gamma_ini"],
                 "cv_accuracy": f["cv_accuracy"], "test_correct": r["test_correct"],
                 "nofs_correct": f["nofs_correct"], "n_test": f["n_test"],
                 "objective": r["objective"], "start_objective": r["start_objective"],
                 "start_values": r["start_values"], "n_selected": r["n_selected"],
                 "norm1": r["norm1"], "status": r["status"],
                 "kkt_residual": r["kkt"]["kkt_residual"], "time_s": r["time_s"]}
                for f, r in zip(folds, runs)]
    return {"test_accuracy": sum(r["test_correct"] for r in runs) / n_test,
            "train_accuracy": sum(r["train_correct"] for r in runs) / n_train,
            "nofs_test_accuracy": sum(f["nofs_correct"] for f in folds) / n_test,
            "objective": float(np.mean([r["objective"] for r in runs])),
            "norm1": float(np.mean([r["norm1"] for r in runs])),
            "mean_selected": float(np.mean([r["n_selected"] for r in runs])),
            "selected": sorted(common), "statuses": sorted({r["status"] for r in runs}),
            "n_test": n_test, "folds": per_fold}
