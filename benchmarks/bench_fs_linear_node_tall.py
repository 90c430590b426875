"""The node bound on paper D's tall sets: the active-set engine against the interior point.

For arrhythmia (452 x 274), madelon (2,000 x 500) and mfeat (2,000 x 649), B = 10, C = 10
(standardised, as the CLI does): the root by the interior point, then the engine from its
multipliers (the form's polish); then the two children (feature fixed out, fixed in) of the
root's ``--children`` highest-scoring features, each bounded from the root's multipliers by
the engine (the form's solve: chunks, stalls, the interior point when it stalls) and by the
interior point alone. CPU by ``time.process_time`` in one process (run it alone, one BLAS
thread: ``OPENBLAS_NUM_THREADS=1``). Writes ``results/fs_linear_node_tall.md`` and ``.json``::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_fs_linear_node_tall.py
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from results_io import write_results

from sparsekm.data import Scaler, load_dataset
from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.relaxations.fs_linear.node import solve_node_task
from sparsekm.relaxations.fs_linear.node_active import ActiveSetNode
from sparsekm.relaxations.fs_linear.node_form import NodeTask
from sparsekm.solvers import SolverPlan

SETS = ("arrhythmia", "madelon", "mfeat")


def problem(name: str, B: int = 10, C: float = 10.0) -> FSLinearProblem:
    ds = load_dataset(name)
    X = Scaler("standard").fit(ds.X).transform(ds.X)
    return FSLinearProblem(X, ds.y.astype(float), B=B, C=C)


def timed(fn):
    t = time.process_time()
    out = fn()
    return out, time.process_time() - t


def one_set(name: str, children: int) -> dict:
    p, form, plan = problem(name), ActiveSetNode(), SolverPlan()
    root = NodeTask.root(p)
    ipm_root, t_ipm = timed(lambda: solve_node_task(p, plan, root))
    top, t_form = timed(lambda: form.solve(p, plan, root))
    rows = []
    for j in root.free[np.argsort(-top.score[root.free])][:children].tolist():
        rest = root.free[root.free != j]
        for side in (0, 1):
            F1 = np.array([j]) if side else np.zeros(0, np.int64)
            task = NodeTask(F1, rest, root.k - side, alpha0=top.alpha, W0=top.W_next)
            eng, t_eng = timed(lambda task=task: form.solve(p, plan, task))
            ipm, t_i = timed(lambda task=task: solve_node_task(p, plan, task))
            rows.append({"feature": j, "side": "in" if side else "out",
                         "engine_s": t_eng, "ipm_s": t_i, "engine_bound": eng.bound,
                         "ipm_bound": ipm.bound, "pivots": eng.info.get("pivots", 0),
                         "status": eng.status, "fallback": eng.info.get("fallback", 0)})
    return {"data": name, "m": p.m, "n": p.n, "root_ipm_s": t_ipm, "root_form_s": t_form,
            "root_ipm_bound": ipm_root.bound, "root_form_bound": top.bound,
            "root_pivots": top.info.get("pivots", 0), "children": rows}


def report(runs: list[dict]) -> list[str]:
    lines = ["# The node bound on paper D's tall sets: the active-set engine against the "
             "interior point", "",
             "Produced by `benchmarks/bench_fs_linear_node_tall.py` (B = 10, C = 10, one "
             "process, one BLAS thread, CPU by `time.process_time`). Root: the interior point, "
             "then the form's polish by the engine (both CPU figures). Children: the two "
             "children of the root's highest-scoring features, each from the root's "
             "multipliers, by the form (the engine; the interior point after a stall: "
             "`fallbacks`) and by the interior point alone. `worst bound diff`: the largest "
             "(interior point - form) / |interior point| over the children (> 0: the form's "
             "bound is lower).", "",
             "| data | m x n | root: IPM s | root: polish s | children | form s mean | "
             "IPM s mean | IPM / form | median IPM / form | pivots mean | fallbacks | "
             "worst bound diff |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        ch = r["children"]
        eng = np.array([c["engine_s"] for c in ch])
        ipm = np.array([c["ipm_s"] for c in ch])
        diff = max((c["ipm_bound"] - c["engine_bound"]) / abs(c["ipm_bound"]) for c in ch)
        lines.append(
            f"| {r['data']} | {r['m']} x {r['n']} | {r['root_ipm_s']:.2f} | "
            f"{r['root_form_s'] - r['root_ipm_s']:.2f} | {len(ch)} | {eng.mean():.3f} | "
            f"{ipm.mean():.3f} | {ipm.mean() / eng.mean():.1f} | "
            f"{np.median(ipm / eng):.1f} | "
            f"{np.mean([c['pivots'] for c in ch]):.0f} | "
            f"{sum(c['fallback'] for c in ch)} | {diff:.1e} |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--children", type=int, default=8)
    args = ap.parse_args()
    runs = [one_set(name, args.children) for name in SETS]
    write_results("fs_linear_node_tall", report(runs), runs)


if __name__ == "__main__":
    main()
