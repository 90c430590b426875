"""The SMO engine against libsvm on the hinge dual (cold and warm), warm vs cold on the
logistic dual after a one-feature kernel change, and the row cache on magic.

    python benchmarks/bench_sklr_engine.py   # -> benchmarks/results/sklr_engine.md (+ .json)

Every ratio is measured in one process, the two solvers interleaved, best of ``REPEAT`` runs,
single-threaded: the 2-core machine is shared, so absolute times are noisy, ratios less so.
"""

from __future__ import annotations

import json
import os
import resource
import time
import warnings
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from sparsekm.data import Scaler, load_dataset  # noqa: E402
from sparsekm.kernels import KernelSpec, kernel_matrix  # noqa: E402
from sparsekm.solvers.smo import (  # noqa: E402
    Hinge,
    KernelSource,
    Logistic,
    SMOOptions,
    solve_kernel_dual,
)
from sparsekm.solvers.smo.libsvm import fit_libsvm  # noqa: E402

RESULTS = Path(__file__).parent / "results"
REPEAT = 3
CASES = [("ionosphere", None), ("diabetes", None), ("spambase", 2000), ("twonorm", 4000)]


def data(name: str, rows: int | None) -> tuple[np.ndarray, np.ndarray]:
    ds = load_dataset(name)
    X = Scaler("minmax01").fit_transform(ds.X)
    return (X, ds.y) if rows is None else (X[:rows], ds.y[:rows])


def best(fn: Any, *args: Any, **kwargs: Any) -> tuple[float, Any]:
    out, ts = None, []
    for _ in range(REPEAT):
        t0 = time.perf_counter()
        out = fn(*args, **kwargs)
        ts.append(time.perf_counter() - t0)
    return min(ts), out


def hinge_rows() -> list[dict[str, Any]]:
    """Precomputed kernel: libsvm (cold only) vs the engine (cold, and warm after dropping
    feature 0 from the kernel: the move of paper A's local search)."""
    rows = []
    for name, m in CASES:
        X, y = data(name, m)
        K = kernel_matrix(X, kernel="rbf", gamma=0.5)
        K2 = kernel_matrix(X[:, 1:], kernel="rbf", gamma=0.5)
        for C in (1.0, 10.0):
            for tol in (1e-3, 1e-6):
                o = SMOOptions(tol=tol, max_iter=-1)
                tl, (_, _, _, il) = best(fit_libsvm, K, y, C, tol, -1, 1024.0)
                ts, rs = best(solve_kernel_dual, K, y, Hinge(C), options=o)
                tl2, (_, _, _, il2) = best(fit_libsvm, K2, y, C, tol, -1, 1024.0)
                tc2, rc2 = best(solve_kernel_dual, K2, y, Hinge(C), options=o)
                tw, rw = best(solve_kernel_dual, K2, y, Hinge(C), alpha0=rs.alpha, options=o)
                rows.append({"data": name, "m": int(y.size), "C": C, "tol": tol,
                             "libsvm_s": tl, "libsvm_it": il, "smo_s": ts,
                             "smo_it": rs.extra["iterations"], "libsvm2_s": tl2,
                             "libsvm2_it": il2, "smo2_cold_s": tc2,
                             "smo2_cold_it": rc2.extra["iterations"], "smo2_warm_s": tw,
                             "smo2_warm_it": rw.extra["iterations"]})
                print(rows[-1], flush=True)
    return rows


def warm_rows() -> list[dict[str, Any]]:
    """Logistic dual (22): cold vs warm after a one-feature change, and after a 1 % change of
    the rbf gamma (paper E's anisotropic step is of this kind)."""
    rows = []
    for name, m in CASES:
        X, y = data(name, m)
        K = kernel_matrix(X, kernel="rbf", gamma=0.5)
        changes = {"drop feature 0": kernel_matrix(X[:, 1:], kernel="rbf", gamma=0.5),
                   "gamma x 1.01": kernel_matrix(X, kernel="rbf", gamma=0.505)}
        for C in (1.0, 10.0, 100.0):
            for wss in ("second-order", "first-order"):
                o = SMOOptions(tol=1e-5, max_iter=-1, wss=wss)
                loss = Logistic(C, C / 10)
                base = solve_kernel_dual(K, y, loss, options=o)
                for what, K2 in changes.items():
                    tc, rc = best(solve_kernel_dual, K2, y, loss, options=o)
                    tw, rw = best(solve_kernel_dual, K2, y, loss, alpha0=base.alpha, options=o)
                    rows.append({"data": name, "m": int(y.size), "C": C, "wss": wss,
                                 "change": what, "cold_it": rc.extra["iterations"],
                                 "warm_it": rw.extra["iterations"], "cold_s": tc,
                                 "warm_s": tw})
                    print(rows[-1], flush=True)
    return rows


def magic_rows() -> list[dict[str, Any]]:
    """magic (m = 19,020): the engine with rows on demand (1024 MB LRU cache) against SVC
    with its own 1024 MB cache, hinge; then the logistic dual, same cache."""
    from sklearn.svm import SVC

    X, y = data("magic", None)
    spec = KernelSpec("rbf", gamma=0.5)
    rows = []
    for C in (1.0,):
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clf = SVC(C=C, kernel="rbf", gamma=0.5, tol=1e-3, cache_size=1024).fit(X, y)
        t_svc = time.perf_counter() - t0
        ks = KernelSource.from_data(X, spec, cache_mb=1024, precompute=False)
        t0 = time.perf_counter()
        rh = solve_kernel_dual(ks, y, Hinge(C), options=SMOOptions(tol=1e-3, max_iter=-1))
        t_h = time.perf_counter() - t0
        ks = KernelSource.from_data(X, spec, cache_mb=1024, precompute=False)
        t0 = time.perf_counter()
        rl = solve_kernel_dual(ks, y, Logistic(C, C / 10), options=SMOOptions(tol=1e-5))
        t_l = time.perf_counter() - t0
        rows.append({"C": C, "svc_s": t_svc, "svc_it": int(clf.n_iter_[0]),
                     "hinge_s": t_h, "hinge_it": rh.extra["iterations"],
                     "hinge_rows": rh.extra["rows_computed"], "klr_s": t_l,
                     "klr_it": rl.extra["iterations"], "klr_rows": rl.extra["rows_computed"],
                     "klr_status": rl.termination.value, "cache_mb": ks.nbytes / 2**20,
                     "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024})
        print(rows[-1], flush=True)
    return rows


def table(rows: list[dict[str, Any]], cols: list[str]) -> list[str]:
    def fmt(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.3g}" if abs(v) < 1e4 else f"{v:.0f}"
        return str(v)

    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    out += ["| " + " | ".join(fmt(r.get(c, "")) for c in cols) + " |" for r in rows]
    return out


def main() -> None:
    res = {"hinge": hinge_rows(), "warm": warm_rows(), "magic": magic_rows()}
    (RESULTS / "sklr_engine.json").write_text(json.dumps(res, indent=1))
    for r in res["hinge"]:
        r["smo/libsvm"] = r["smo_s"] / r["libsvm_s"]
        r["warm/libsvm"] = r["smo2_warm_s"] / r["libsvm2_s"]
        r["warm/cold it"] = r["smo2_warm_it"] / r["smo2_cold_it"]
    for r in res["warm"]:
        r["it ratio"] = r["warm_it"] / r["cold_it"]
        r["time ratio"] = r["warm_s"] / r["cold_s"]
    lines = ["# SMO engine: hinge vs libsvm, warm vs cold, magic (`bench_sklr_engine.py`)", "",
             "Single-threaded, best of 3, libsvm and the engine interleaved in one process "
             "(the 2-core machine was shared with other jobs: read the ratios). RBF gamma 0.5 "
             "on [0, 1]-scaled features. `libsvm` = scikit-learn's compiled libsvm called "
             "directly on the precomputed kernel (no warm start possible); `smo` = "
             "`solve_kernel_dual` (second-order working set). After the change the kernel "
             "misses feature 0 (a move of paper A's local search).", "",
             "## Hinge (SVM dual, paper A eq. (3))", ""]
    lines += table(res["hinge"], ["data", "m", "C", "tol", "libsvm_s", "libsvm_it", "smo_s",
                                  "smo_it", "smo/libsvm", "libsvm2_s", "smo2_cold_it",
                                  "smo2_warm_s", "smo2_warm_it", "warm/libsvm",
                                  "warm/cold it"])
    lines += ["", "## Logistic dual (22), lam = C/10: warm vs cold after a kernel change", ""]
    lines += table(res["warm"], ["data", "m", "C", "wss", "change", "cold_it", "warm_it",
                                 "it ratio", "cold_s", "warm_s", "time ratio"])
    lines += ["", "## magic, m = 19,020, rows on demand (1024 MB LRU cache)", ""]
    lines += table(res["magic"], ["C", "svc_s", "svc_it", "hinge_s", "hinge_it", "hinge_rows",
                                  "klr_s", "klr_it", "klr_rows", "klr_status", "cache_mb",
                                  "maxrss_mb"])
    (RESULTS / "sklr_engine.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
