"""Warm-started SMO engine vs cold libsvm inside paper B's ABR (Algorithm 1).

    python benchmarks/bench_smo_warm.py   # -> benchmarks/results/smo_warm.md (+ .json)

A script, not a ``sparsekm bench`` config: it swaps the SVM backend of ABR's alpha-subproblem
(``sparsekm.models.smkl.objective.solve_alpha``) in-process, which no registered option
exposes. Setting as in docs/guides/smkl.md: ``paper10``, k0 = 2, C = 10, lam = 0.1, seeded 80 %
training rows (standardised), the same random start; libsvm (cold) and the default (the first
solve by libsvm, then the engine warm from the previous best response's alpha) alternate,
best of ``REPEAT``, in one process on the shared 2-core machine (read the ratios).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import sparsekm.models.smkl.objective as objective  # noqa: E402
from sparsekm.algorithms.smkl.abr import abr_run, random_start  # noqa: E402
from sparsekm.data import Scaler, load_dataset, train_test_split  # noqa: E402
from sparsekm.engines.smo import SVMDualOptions, solve_svm_dual  # noqa: E402
from sparsekm.models.smkl.problem import SMKLProblem  # noqa: E402

RESULTS = Path(__file__).parent / "results"
REPEAT = 3
CASES = [("banknote", None), ("ionosphere", None), ("heart", None),
         ("breast_cancer_diagnostic", None), ("spambase", 1500)]
WARM = objective.solve_alpha  # the default: the engine warm-started when alpha0 is given


def cold_alpha(K: np.ndarray, y: np.ndarray, C: float, alpha0: np.ndarray | None = None
               ) -> tuple[np.ndarray, float, float, float]:
    """solve_alpha with cold libsvm always (alpha0 ignored): the former default."""
    res = solve_svm_dual(K, y, C, options=SVMDualOptions(
        tol=objective.SVM_TOL, check_input=False, max_iter=objective.SVM_MAX_ITER,
        backend="libsvm"))
    return res.values["alpha"], float(res.values["b"]), -float(res.objective), \
        -float(res.bound)


def run(p: SMKLProblem, beta0: np.ndarray, backend: Any) -> tuple[float, float, int]:
    objective.solve_alpha = backend
    try:
        t0 = time.perf_counter()
        out = abr_run(p, beta0)
        return time.perf_counter() - t0, float(out["best"].value), len(out["evals"])
    finally:
        objective.solve_alpha = WARM


def main() -> None:
    rows = []
    for name, cap in CASES:
        ds = load_dataset(name, missing="zero")
        train, _ = train_test_split(ds, test_size=0.2, seed=0)
        X, y = Scaler("standard").fit_transform(train.X), train.y
        if cap is not None:
            X, y = X[:cap], y[:cap]
        p = SMKLProblem(X, y, "paper10", 2, 10.0, 0.1)
        beta0 = random_start(p.q, p.k0, np.random.default_rng(0))
        run(p, beta0, WARM)  # numba's cache loaded outside the timing
        times: dict[str, list[float]] = {"cold": [], "warm": []}
        for _ in range(REPEAT):
            for label, backend in (("cold", cold_alpha), ("warm", WARM)):
                t, value, evals = run(p, beta0, backend)
                times[label].append(t)
                rows.append({"data": name, "m": int(y.size), "engine": label, "time_s": t,
                             "objective": value, "evaluations": evals})
        cold = [r for r in rows if r["data"] == name and r["engine"] == "cold"][-1]
        warm = [r for r in rows if r["data"] == name and r["engine"] == "warm"][-1]
        print(name, min(times["warm"]) / min(times["cold"]), cold["objective"],
              warm["objective"], flush=True)
    (RESULTS / "smo_warm.json").write_text(json.dumps(rows, indent=1))
    lines = ["# Warm-started engine vs cold libsvm in ABR (`bench_smo_warm.py`)", "",
             "paper10, k0 = 2, C = 10, lam = 0.1, 80 % training rows (seed 0), standardised, "
             "one random start (seed 0); best of 3, alternating, one process, 2-core machine "
             "shared with other jobs.", "",
             "| data | m | cold libsvm s | warm engine s | warm/cold | objective cold | "
             "objective warm | SVM solves |", "|---|---|---|---|---|---|---|---|"]
    for name, _ in CASES:
        rs = [r for r in rows if r["data"] == name]
        tc = min(r["time_s"] for r in rs if r["engine"] == "cold")
        tw = min(r["time_s"] for r in rs if r["engine"] == "warm")
        rc = next(r for r in rs if r["engine"] == "cold")
        rw = next(r for r in rs if r["engine"] == "warm")
        lines.append(f"| {name} | {rs[0]['m']} | {tc:.3f} | {tw:.3f} | {tw / tc:.2f} | "
                     f"{rc['objective']:.8g} | {rw['objective']:.8g} | {rc['evaluations']} |")
    (RESULTS / "smo_warm.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
