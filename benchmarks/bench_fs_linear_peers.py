"""Paper D's FS-SVM (2) by ``fast`` and its CV estimator against the peers a user would pick
instead, on the same folds, in one process.

Protocol: colorectal, lymphoma, dlbcl; stratified 5-fold CV (shuffled, seed 0), the same
folds for every method; scaling fitted on each training part (columns constant there
dropped). Peers, installed only in this benchmark's own venv
(``benchmarks/bench_fs_linear_peers_env.sh``), never as project dependencies:
abess 0.4.11 L0 logistic regression, an l1-LinearSVC (squared hinge) and skglm 0.5's MCP
logistic regression.

* ``fixed`` -- per fit at B = 5, 10, 20: ``fast`` (C = 1), today's ``fast`` before its rewrite
  (commit ``BASE``, loaded from git into this process: the same-process baseline), abess at
  support size B, the l1-LinearSVC over 30 Cs (1e-3..1e2) and skglm's MCP over 20 alphas,
  each keeping the largest support <= B (their time is the whole grid's); per-fit CPU and
  wall seconds, test accuracy, objective of (2) against the baseline's.
* ``innerC`` -- ``fast`` at B = 10 with C in {0.1, 1, 10} chosen by an inner 3-fold CV
  (``CardinalityLinearSVCCV(Bs=(10,), method="path")``).
* ``select`` -- whole model selection per outer fold (folds 0 and 1 of each set):
  ``CardinalityLinearSVCCV`` (3 B x 3 C x 5 folds + refit), the code before its rewrite on
  fold 0 (its path per fold and C, ``fast`` refit), abess's own CV over support sizes 1..20
  + refit, ``GridSearchCV`` of the l1-LinearSVC over 30 Cs, skglm MCP over 10 alphas by
  the same inner folds (skglm's estimator has no ``score``); CPU, wall, size, accuracy.
* ``before`` -- the code before its rewrite at C = 0.1, 1, 10 on every training part (its
  monotonicity in C).
* ``synth`` -- the wide synthetic set (120 x 1500): ``fast`` at B = 5, 10, 20 against
  Kernel Search's 60 s objective (``fs_linear_fast_ks.json`` / ``fs_linear_fast_objective.json``),
  the path B = 1..20 x C = 0.1, 1 against ``fast``, and the CV estimator's whole selection.

    bash benchmarks/bench_fs_linear_peers_env.sh
    benchmarks/.venv-peers/bin/python benchmarks/bench_fs_linear_peers.py SECTION
    (SECTION: fixed, innerC, select, synth, before, or report: the Markdown from the JSON)
"""

from __future__ import annotations

import importlib
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
SEED = 0

from baseline_package import package_at  # noqa: E402
from bench_fs_linear_peers_report import (  # noqa: E402
    BASE,
    BUDGETS,
    OUT,
    SETS,
    report,
    store,
)


# ------------------------------------------------------------------ data and the baseline
def dataset(name: str) -> tuple[np.ndarray, np.ndarray]:
    if name == "synth120x1500":
        from sklearn.datasets import make_classification

        X, y = make_classification(n_samples=120, n_features=1500, n_informative=10,
                                   n_redundant=10, random_state=0, flip_y=0.05)
        return X.astype(float), np.where(y == 1, 1.0, -1.0)
    from sparsekm.data import load_dataset

    ds = load_dataset(name)
    return np.asarray(ds.X, float), np.asarray(ds.y, float)


def folds(y: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    from sklearn.model_selection import StratifiedKFold

    return list(StratifiedKFold(5, shuffle=True, random_state=SEED).split(np.zeros(y.size), y))


def scale(train: np.ndarray, *others: np.ndarray) -> list[np.ndarray]:
    mu, sd = train.mean(0), train.std(0)
    keep = sd > 0
    return [(a[:, keep] - mu[keep]) / sd[keep] for a in (train, *others)]


def fits(C: float = 1.0):
    """The 45 per-fit problems of the protocol: (key "set/fold/B=B", fold, B, the FS-SVM (2)
    on the scaled training part), sets x folds x budgets in order."""
    from sparsekm.models.fs_linear import FSLinearProblem

    for name in SETS:
        X, y = dataset(name)
        for k, (tr, _) in enumerate(folds(y)):
            Xtr = scale(X[tr])[0]
            for B in BUDGETS:
                yield f"{name}/{k}/B={B}", k, B, FSLinearProblem(Xtr, y[tr], B=B, C=C)


def baseline() -> tuple[object, object]:
    """``fast`` and the path of the code before its rewrite (commit BASE), loaded beside this
    checkout's (:func:`baseline_package.package_at`)."""
    name = package_at(BASE).__name__
    return (importlib.import_module(f"{name}.algorithms.fs_linear.iterated_swap"),
            importlib.import_module(f"{name}.algorithms.fs_linear.budget_path"))


def timed(fn, *args, **kw):
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn(*args, **kw)
    return out, time.process_time() - c0, time.perf_counter() - t0


FIT_RUNS = 3   # a fit at fixed B is timed as the smallest of this many runs, every method


def timed_best(fn, *args):
    """:func:`timed` run :data:`FIT_RUNS` times: the last output, the smallest CPU and wall
    seconds (a fit of abess takes 10-30 ms, where one run's timing varied 1.8x between two
    reruns on this shared machine)."""
    runs = [timed(fn, *args) for _ in range(FIT_RUNS)]
    return runs[-1][0], min(r[1] for r in runs), min(r[2] for r in runs)


def accuracy(dec: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean(np.where(dec >= 0, 1.0, -1.0) == y))


# ------------------------------------------------------------------ the methods
def fit_fast(Xtr, ytr, B, C=1.0):
    from sparsekm.algorithms.fs_linear import solve_fs_linear
    from sparsekm.models.fs_linear import FSLinearProblem

    r = solve_fs_linear(FSLinearProblem(Xtr, ytr, B=B, C=C), "fast")
    return r.values["w"], r.values["b"], r.objective


def fit_abess(Xtr, ytr, B):
    from abess.linear import LogisticRegression

    mdl = LogisticRegression(support_size=[B]).fit(Xtr, (ytr > 0).astype(int))
    return mdl


def fit_l1svc(Xtr, ytr, B, Cs=np.logspace(-3, 2, 30)):
    from sklearn.svm import LinearSVC

    best = None
    for C in Cs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mdl = LinearSVC(penalty="l1", dual=False, C=C, max_iter=20_000).fit(Xtr, ytr)
        k = int(np.count_nonzero(mdl.coef_))
        if k <= B and (best is None or k > best[0]):
            best = (k, mdl)
    return best[1]


def mcp(alpha):
    from skglm import GeneralizedLinearEstimator
    from skglm.datafits import Logistic
    from skglm.penalties import MCPenalty
    from skglm.solvers import AndersonCD

    return GeneralizedLinearEstimator(Logistic(), MCPenalty(alpha=alpha, gamma=3.0),
                                      AndersonCD(fit_intercept=True))


def alpha_grid(X, y, num):
    amax = float(np.max(np.abs(X.T @ y)) / (2 * len(y)))
    return amax * np.logspace(0, -2, num)


def fit_mcp(Xtr, ytr, B, num=20):
    best = None
    for a in alpha_grid(Xtr, ytr, num):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mdl = mcp(a).fit(Xtr, ytr)
        k = int(np.count_nonzero(mdl.coef_))
        if k <= B and (best is None or k > best[0]):
            best = (k, mdl)
    return best[1]


def mcp_cv(X, y, inner, num=10):
    """skglm's MCP logistic regression, alpha by CV accuracy over ``num`` alphas on the
    folds ``inner``, refit on all rows (skglm's estimator has no ``score``)."""
    alphas = alpha_grid(X, y, num)
    acc = np.zeros(num)
    for tr, te in inner.split(X, y):
        for q, a in enumerate(alphas):
            mdl = mcp(a).fit(X[tr], y[tr])
            acc[q] += accuracy(X[te] @ np.ravel(mdl.coef_) + float(np.ravel(mdl.intercept_)[0]),
                               y[te])
    return mcp(alphas[int(np.argmax(acc))]).fit(X, y)


def warm(base_fast) -> None:
    """Compile and load everything once, outside the timings."""
    from sparsekm.algorithms.fs_linear.iterated_swap import warm_up
    from sparsekm.models.fs_linear import FSLinearProblem

    warm_up()
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 30))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    base_fast.iterated_search(FSLinearProblem(X, y, B=6, C=1.0), restarts=1)
    fit_abess(X, y, 3), fit_l1svc(X, y, 3), fit_mcp(X, y, 3, num=3)
    fit_fast(X, y, 6)


# ------------------------------------------------------------------ sections
def fixed_section() -> None:
    from sparsekm.models.fs_linear import FSLinearProblem

    base_fast, _ = baseline()
    warm(base_fast)
    path, out = store("fixed")
    for name in SETS:
        X, y = dataset(name)
        for k, (tr, te) in enumerate(folds(y)):
            Xtr, Xte = scale(X[tr], X[te])
            for B in BUDGETS:
                key = f"{name}/{k}/B={B}"
                if key in out:
                    continue
                row = {}
                (w, b, obj), c, s = timed_best(fit_fast, Xtr, y[tr], B)
                row["fast"] = dict(acc=accuracy(Xte @ w + b, y[te]), cpu=c, wall=s,
                                   objective=obj, support=int(np.count_nonzero(w)))
                r, c, s = timed_best(base_fast.iterated_search, FSLinearProblem(Xtr, y[tr], B=B,
                                                                           C=1.0))
                row["fast-before"] = dict(acc=accuracy(Xte @ r.values["w"] + r.values["b"],
                                                       y[te]), cpu=c, wall=s,
                                          objective=r.objective)
                for lab, fn in (("abess", fit_abess), ("l1-LinearSVC", fit_l1svc),
                                ("skglm-MCP", fit_mcp)):
                    mdl, c, s = timed_best(fn, Xtr, y[tr], B)
                    dec = (mdl.predict_proba(Xte)[:, 1] - 0.5 if lab == "abess"
                           else Xte @ np.ravel(mdl.coef_) + float(np.ravel(mdl.intercept_)[0]))
                    row[lab] = dict(acc=accuracy(dec, y[te]), cpu=c, wall=s,
                                    support=int(np.count_nonzero(mdl.coef_)))
                for v in row.values():
                    v["runs"] = FIT_RUNS
                out[key] = row
                path.write_text(json.dumps(out, indent=1))
                print(key, {m: (round(v["acc"], 3), round(v["cpu"], 3)) for m, v in row.items()},
                      flush=True)


def before_section() -> None:
    """The code before its rewrite: ``fast`` on every training part at B = 5, 10, 20 and
    C = 1, 0.1, 10 (its monotonicity in C is counted in the report)."""
    from sparsekm.models.fs_linear import FSLinearProblem

    base_fast, _ = baseline()
    warm(base_fast)
    path, out = store("before")
    for name in SETS:
        X, y = dataset(name)
        for k, (tr, _) in enumerate(folds(y)):
            Xtr = scale(X[tr])[0]
            for B in BUDGETS:
                for C in (1.0, 0.1, 10.0):
                    key = f"{name}/{k}/{B}/{C}"
                    if key not in out:
                        r, c, s = timed(base_fast.iterated_search,
                                        FSLinearProblem(Xtr, y[tr], B=B, C=C))
                        out[key] = dict(obj=r.objective, cpu=c, wall=s, sel=r.selected)
                        path.write_text(json.dumps(out, indent=1))


def inner_c_section() -> None:
    from sparsekm.estimators import CardinalityLinearSVCCV

    warm(baseline()[0])
    path, out = store("innerC")
    for name in SETS:
        X, y = dataset(name)
        for k, (tr, te) in enumerate(folds(y)):
            key = f"{name}/{k}/B=10"
            if key in out:
                continue
            Xtr, Xte = scale(X[tr], X[te])
            est, c, s = timed(CardinalityLinearSVCCV(Bs=(10,), Cs=(0.1, 1.0, 10.0), cv=3).fit,
                              Xtr, y[tr])
            out[key] = dict(acc=float(np.mean(est.predict(Xte) == y[te])), cpu=c, wall=s,
                            C=est.C_)
            path.write_text(json.dumps(out, indent=1))
            print(key, out[key], flush=True)


def select_section() -> None:
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.svm import LinearSVC

    from sparsekm.estimators import CardinalityLinearSVCCV

    base_fast, base_path = baseline()
    warm(base_fast)
    path, out = store("select")
    inner = StratifiedKFold(5)
    for name in SETS:
        X, y = dataset(name)
        for k, (tr, te) in enumerate(folds(y)[:2]):
            key = f"{name}/{k}"
            if key in out:
                continue
            Xtr, Xte = scale(X[tr], X[te])
            row = {}
            est, c, s = timed(CardinalityLinearSVCCV(cv=5).fit, Xtr, y[tr])
            row["fast-CV"] = dict(acc=float(np.mean(est.predict(Xte) == y[te])), cpu=c, wall=s,
                                  B=est.B_, C=est.C_)
            if k == 0:
                _, c, s = timed(_cv_before, base_fast, base_path, Xtr, y[tr])
                row["fast-CV-before"] = dict(cpu=c, wall=s)
            from abess.linear import LogisticRegression
            mdl, c, s = timed(LogisticRegression(support_size=range(1, 21), cv=5).fit, Xtr,
                              (y[tr] > 0).astype(int))
            row["abess-CV"] = dict(acc=accuracy(mdl.predict_proba(Xte)[:, 1] - 0.5, y[te]),
                                   cpu=c, wall=s, B=int(np.count_nonzero(mdl.coef_)))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                g, c, s = timed(GridSearchCV(LinearSVC(penalty="l1", dual=False,
                                                       max_iter=20_000),
                                             {"C": np.logspace(-3, 2, 30)}, cv=inner).fit,
                                Xtr, y[tr])
                row["l1-LinearSVC-grid"] = dict(acc=float(np.mean(g.predict(Xte) == y[te])),
                                                cpu=c, wall=s,
                                                B=int(np.count_nonzero(g.best_estimator_.coef_)))
                g, c, s = timed(mcp_cv, Xtr, y[tr], inner)
                dec = Xte @ np.ravel(g.coef_) + float(np.ravel(g.intercept_)[0])
                row["skglm-MCP-grid"] = dict(acc=accuracy(dec, y[te]), cpu=c, wall=s,
                                             B=int(np.count_nonzero(g.coef_)))
            out[key] = row
            path.write_text(json.dumps(out, indent=1))
            print(key, {m: (round(v.get("acc", -1), 3), round(v["cpu"], 2)) for m, v in
                        row.items()}, flush=True)


def _cv_before(base_fast, base_path, X, y) -> None:
    """The CV estimator before its rewrite: its path per fold and C scored, ``fast`` refit."""
    from sklearn.model_selection import StratifiedKFold

    from sparsekm.models.fs_linear import FSLinearProblem

    for tr, _ in StratifiedKFold(5).split(X, y):
        base_path.fs_linear_path(X[tr], y[tr], BUDGETS, [0.1, 1.0, 10.0])
    base_fast.iterated_search(FSLinearProblem(X, y, B=10, C=1.0))


def synth_section() -> None:
    from sparsekm.algorithms.fs_linear.budget_path import fs_linear_path
    from sparsekm.estimators import CardinalityLinearSVCCV

    warm(baseline()[0])
    path, out = store("synth")
    X, y = dataset("synth120x1500")
    X = scale(X)[0]
    ks = json.loads((OUT / "fs_linear_fast_ks.json").read_text())
    ks["synth120x1500/B=10"] = json.loads((OUT / "fs_linear_fast_objective.json").read_text())[
        "synth120x1500"]["kernel-search"]
    fast = {}
    for B in BUDGETS:
        (_, _, obj), c, s = timed(fit_fast, X, y, B)
        fast[B] = obj
        k = ks[f"synth120x1500/B={B}"]
        out[f"fast/B={B}"] = dict(objective=obj, cpu=c, wall=s, ks_objective=k["objective"],
                                  ks_seconds=k["seconds"])
        print(B, out[f"fast/B={B}"], flush=True)
    rows, c, s = timed(fs_linear_path, X, y, range(1, 21), [0.1, 1.0])
    objs = {(r["B"], r["C"]): r["objective"] for r in rows}
    f = {(B, C): fit_fast(X, y, B, C)[2] for B in range(1, 21) for C in (0.1, 1.0)}
    out["path"] = dict(cpu=c, wall=s, entries={f"{B}/{C}": v for (B, C), v in objs.items()},
                       fast={f"{B}/{C}": v for (B, C), v in f.items()})
    est, c, s = timed(CardinalityLinearSVCCV(cv=5).fit, X, y)
    out["cv"] = dict(cpu=c, wall=s, B=est.B_, C=est.C_)
    path.write_text(json.dumps(out, indent=1))
    print(out["cv"], flush=True)


if __name__ == "__main__":
    sections = {"fixed": fixed_section, "innerC": inner_c_section, "select": select_section,
                "synth": synth_section, "before": before_section}
    arg = sys.argv[1] if len(sys.argv) > 1 else "report"
    if arg == "report":
        (OUT / "fs_linear_peers.md").write_text(report())
    else:
        sections[arg]()
