"""Paper E benchmarks: Table 2, Figure 1 (C2 frontier), Figure 2 (ranking curves), route times.

    python benchmarks/bench_minmax_fs.py table2 [--datasets breast,diabetes] [--workers 2]
    python benchmarks/bench_minmax_fs.py routes [--ipopt-limit 300] [--folds 0,1,2]
    python benchmarks/bench_minmax_fs.py models
    python benchmarks/bench_minmax_fs.py report          # markdown + PNGs from the JSON files

Writes ``benchmarks/results/minmax_fs_{table2,routes,models}.{json,md}`` and
``minmax_fs_frontier.png``, ``minmax_fs_ranking.png``. The protocol is Section 4.2: 10
stratified outer folds (seed 0), features scaled to [-1, 1] on the training rows, 5-fold CV
over the (C, gamma) grid, the C2 grid {0.01, 0.1, ..., 0.9, 0.99}, p = 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")          # 2 shared cores: one BLAS thread
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import numpy as np  # noqa: E402

from sparsekm.algorithms.minmax_fs.protocol import run_protocol  # noqa: E402
from sparsekm.algorithms.minmax_fs.summary import table2  # noqa: E402
from sparsekm.data import load_dataset  # noqa: E402
from sparsekm.parallel import Executor  # noqa: E402
from sparsekm.solvers import SolverPlan  # noqa: E402

OUT = Path(__file__).parent / "results"
DATASETS = {"breast": "breast_cancer_diagnostic", "diabetes": "diabetes",
            "lymphoma": "lymphoma", "colorectal": "colorectal"}
# Paper E, Table 2: MM-FS, NO-FS (%), and the C2 of the best MM-FS accuracy.
PAPER = {"breast": (97.35, 97.89, "0.4, 0.7"), "diabetes": (76.43, 77.08, "0.3"),
         "lymphoma": (96.87, 94.79, "0.1"), "colorectal": (85.48, 83.87, "0.9")}
PAPER_C2 = {"breast": 0.7, "diabetes": 0.3, "lymphoma": 0.1, "colorectal": 0.9}


def _slim(folds: list[dict], names: list[str]) -> list[dict]:
    """Drop the full gamma vectors (lymphoma: 4026 per run); keep the top 10 features."""
    for f in folds:
        for r in f["runs"]:
            g = np.asarray(r.pop("gamma"))
            top = np.argsort(-g, kind="stable")[:10]
            r["top"] = [[int(j), names[j], float(g[j])] for j in top]
    return folds


def _load(path: Path) -> dict:
    return json.loads(path.read_text()) if path.exists() else {}


def _save(path: Path, data: dict) -> None:
    path.write_text(json.dumps(data, indent=1, default=float))


def run_table2(args: argparse.Namespace) -> None:
    path = OUT / "minmax_fs_table2.json"
    data = _load(path)
    plan = SolverPlan(executor=Executor(args.workers) if args.workers > 1 else None)
    for key in args.datasets:
        ds = load_dataset(DATASETS[key])
        t0 = time.perf_counter()
        folds = run_protocol(ds.X, ds.y, plan=plan, options={"folds": args.folds})
        wall = time.perf_counter() - t0
        data[key] = {"folds": _slim(folds, list(ds.feature_names)), "wall_s": wall,
                     "workers": args.workers, "m": ds.m, "n": ds.n}
        print(f"{key}: {wall:.0f} s, table 2 {table2(folds)}", flush=True)
        _save(path, data)


def run_routes(args: argparse.Namespace) -> None:
    """fast vs ipopt from the same start (Algorithm 1's), at the paper's best C2, per fold."""
    path = OUT / "minmax_fs_routes.json"
    data = _load(path)
    for key in args.datasets:
        ds = load_dataset(DATASETS[key])
        opts = {"folds": args.folds, "curves": False, "time_limit": args.ipopt_limit}
        folds = run_protocol(ds.X, ds.y, C2_grid=(PAPER_C2[key],), methods=("fast", "ipopt"),
                             options=opts)
        data[key] = {"folds": _slim(folds, list(ds.feature_names)),
                     "ipopt_limit_s": args.ipopt_limit, "C2": PAPER_C2[key]}
        for f in folds:
            fa, ip = f["runs"]
            print(f"{key} fold {f['fold']}: fast {fa['time_s']:.1f} s f={fa['objective']:.6g}"
                  f" | ipopt {ip['time_s']:.1f} s f={ip['objective']:.6g} ({ip['status']})",
                  flush=True)
        _save(path, data)


def run_models(args: argparse.Namespace) -> None:
    """(20) on the first m of 200 breast rows (classes alternating): Pyomo model + solver-layer
    compile vs numpy callbacks (L-BFGS or exact Hessian), Ipopt from Algorithm 1's start."""
    from sparsekm.algorithms.minmax_fs.nlp_routes import ipopt
    from sparsekm.data import Scaler
    from sparsekm.models.minmax_fs import MinMaxFSProblem

    ds = load_dataset("breast_cancer_diagnostic")
    X = Scaler("minmax11").fit_transform(ds.X)
    pos, neg = np.flatnonzero(ds.y > 0), np.flatnonzero(ds.y < 0)
    order = np.ravel(np.column_stack([pos[:100], neg[:100]]))     # alternate the classes
    X, y = X[order], ds.y[order]
    rows = []
    for m in (10, 20, 40, 80):
        pb = MinMaxFSProblem(X[:m], y[:m], C=10.0, C2=0.5)
        routes = (("pyomo", "auto"),) if m <= 20 else ()      # 250 s at m = 20 already
        for model, hess in routes + (("callbacks", "lbfgs"), ("callbacks", "exact")):
            t0 = time.perf_counter()
            res = ipopt(pb, SolverPlan(time_limit=600), gamma0=0.1, model=model, hessian=hess)
            rows.append({"m": m, "n": pb.n, "model": model, "hessian": hess,
                         "time_s": time.perf_counter() - t0, "objective": res.objective,
                         "status": res.status.value})
            print(rows[-1], flush=True)
    _save(OUT / "minmax_fs_models.json", {"rows": rows})


def run_engine(args: argparse.Namespace) -> None:
    """The SVM engine of the fast route: libsvm (cold) vs sparsekm's SMO warm-started from the
    previous alpha, same problem, same process, alternating (after one warm-up each)."""
    from sparsekm.algorithms.minmax_fs.cv import cv_start
    from sparsekm.algorithms.minmax_fs.fast import fast
    from sparsekm.data import Scaler, kfold_splits
    from sparsekm.models.minmax_fs import MinMaxFSProblem

    rows = []
    for key in args.datasets:
        ds = load_dataset(DATASETS[key])
        tr, _ = kfold_splits(ds.y, k=10, seed=0)[0]
        X = Scaler("minmax11").fit_transform(ds.X[tr])
        cv = cv_start(X, ds.y[tr], folds=5, seed=1)
        pb = MinMaxFSProblem(X, ds.y[tr], C=cv.C, C2=PAPER_C2[key])
        fast(MinMaxFSProblem(X[:40], ds.y[tr][:40], C=cv.C, C2=0.5), gamma0=cv.gamma,
             engine="smo")                                  # numba compile outside the timing
        for engine in ("libsvm", "smo", "libsvm", "smo"):
            res = fast(pb, gamma0=cv.gamma, engine=engine)
            rows.append({"data": key, "C": cv.C, "gamma0": cv.gamma, "engine": engine,
                         "time_s": res.time_s, "svm_time_s": res.extra["svm_time_s"],
                         "evaluations": res.extra["evaluations"], "objective": res.objective})
            print(rows[-1], flush=True)
    _save(OUT / "minmax_fs_engine.json", {"rows": rows})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("part", choices=["table2", "routes", "models", "engine", "report"])
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--folds", default=None, help="comma-separated outer fold indices")
    ap.add_argument("--ipopt-limit", type=float, default=300.0,
                    help="CPU seconds per Ipopt solve (routes)")
    args = ap.parse_args()
    args.datasets = args.datasets.split(",")
    args.folds = None if args.folds is None else [int(k) for k in args.folds.split(",")]
    OUT.mkdir(exist_ok=True)
    if args.part == "report":
        from bench_minmax_fs_report import write_report

        write_report(OUT, PAPER, PAPER_C2, DATASETS)
        return
    parts = {"table2": run_table2, "routes": run_routes, "models": run_models,
             "engine": run_engine}
    parts[args.part](args)


if __name__ == "__main__":
    main()
