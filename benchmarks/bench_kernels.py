"""Benchmark: masked-kernel swap updates and the SVM-dual inner loop (Paper A, eqs. (3)-(4)).

A script, not a config: a micro-benchmark (operations timed in one process), not a grid of runs.

Run with ``PYTHONPATH=src python benchmarks/bench_kernels.py``. On a seeded random 300 x 30
problem with ``B = 15`` selected features it measures

(a) one feature swap of :class:`sparsekm.kernels.MaskedKernel` (O(m^2)) against a full rebuild
    ``kernel_matrix(X[:, mask])`` (O(m^2 n)), for the polynomial (d = 2) and Gaussian kernels;
(b) fits per second of :func:`sparsekm.engines.smo.solve_svm_dual` on those 300 x 300
    kernels (and of ``SVC(kernel="precomputed")`` for reference), and the cost of swap + fit
    against rebuild + fit.

All ratios come from the same process; each timing is the best of ``REPEATS`` runs of
``N_OPS`` operations. BLAS is limited to one thread by default (``--blas-threads 0`` keeps the
library default): every other step here is single-threaded, and on a shared machine a threaded
BLAS on 300 x 300 products degrades badly under contention. Prints a table and writes
``benchmarks/results/kernels.md``.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from sklearn.svm import SVC  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from sparsekm.engines.smo import SVMDualOptions, solve_svm_dual  # noqa: E402
from sparsekm.kernels import MaskedKernel, kernel_matrix  # noqa: E402

M, N, B = 300, 30, 15
N_OPS = 200  # swaps timed in (a)
N_FIT = 50  # swaps + fits timed in (b) (a poly fit takes ~40 ms at tol = 1e-6)
REPEATS = 5
C = 10.0  # Paper A, Section 5: C = 10, gamma = 0.1
KERNELS = {
    "poly d=2": {"kernel": "poly", "gamma": 0.1, "degree": 2, "coef0": 1.0},
    "rbf": {"kernel": "rbf", "gamma": 0.1, "degree": 3, "coef0": 0.0},
}
OUT = Path(__file__).resolve().parent / "results" / "kernels.md"


def make_problem(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    """Seeded data, labels, an initial mask and a valid sequence of N_OPS swaps."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((M, N))
    score = X[:, 0] * X[:, 1] + X[:, 2] - 0.5 * X[:, 3] ** 2 + 0.3 * rng.standard_normal(M)
    y = np.where(score > np.median(score), 1.0, -1.0)
    mask = np.zeros(N, dtype=bool)
    mask[rng.choice(N, B, replace=False)] = True
    swaps, cur = [], mask.copy()
    for _ in range(N_OPS):
        j_out = int(rng.choice(np.flatnonzero(cur)))
        j_in = int(rng.choice(np.flatnonzero(~cur)))
        cur[j_out], cur[j_in] = False, True
        swaps.append((j_out, j_in))
    return X, y, mask, swaps


def best_times(
    runs: dict[str, Callable[[], None]], n_ops: int, repeats: int = REPEATS
) -> dict[str, float]:
    """Best wall time per op of each run, interleaving the runs (load drift hits all alike)."""
    for run in runs.values():
        run()  # warm-up (JIT compilation, caches)
    best = dict.fromkeys(runs, np.inf)
    for _ in range(repeats):
        for key, run in runs.items():
            t0 = time.perf_counter()
            run()
            best[key] = min(best[key], time.perf_counter() - t0)
    return {key: t / n_ops for key, t in best.items()}


def bench(X: np.ndarray, y: np.ndarray, mask0: np.ndarray, swaps: list, kw: dict) -> dict:
    """All timings (seconds per operation) for one kernel."""
    params = {k: v for k, v in kw.items() if k != "kernel"}
    name = kw["kernel"]

    def masked_run(backend: str) -> Callable[[], None]:
        def run() -> None:
            mk = MaskedKernel(X, name, mask=mask0, backend=backend, **params)
            for j_out, j_in in swaps:
                mk.swap(j_out, j_in)
                _ = mk.K

        return run

    def neighbour_run() -> None:
        mk = MaskedKernel(X, name, mask=mask0, **params)
        j_out, j_in = swaps[0]
        for _ in swaps:
            mk.with_swap(j_out, j_in)

    def rebuild_run() -> None:
        cur = mask0.copy()
        for j_out, j_in in swaps:
            cur[j_out], cur[j_in] = False, True
            kernel_matrix(X[:, cur], kernel=name, **params)

    # the swap timings include building the MaskedKernel once (conservative, ~1/N_OPS rebuild)
    res = best_times(
        {
            "swap": masked_run("numba"),
            "swap_numpy": masked_run("numpy"),
            "with_swap": neighbour_run,
            "rebuild": rebuild_run,
        },
        n_ops=N_OPS,
    )

    # the SVM fits see the same N_FIT kernels in every variant
    mk = MaskedKernel(X, name, mask=mask0, **params)
    fit_swaps = swaps[:N_FIT]
    kernels = [mk.swap(j_out, j_in).K for j_out, j_in in fit_swaps]

    def fit_run() -> None:
        for K in kernels:
            solve_svm_dual(K, y, C, options=SVMDualOptions(check_input=False))

    def fit_checked_run() -> None:
        for K in kernels:
            solve_svm_dual(K, y, C)

    def svc_run() -> None:
        for K in kernels:
            SVC(kernel="precomputed", C=C, tol=1e-6).fit(K, y)

    def swap_fit_run() -> None:
        mk = MaskedKernel(X, name, mask=mask0, **params)
        for j_out, j_in in fit_swaps:
            solve_svm_dual(mk.swap(j_out, j_in).K, y, C, options=SVMDualOptions(check_input=False))

    def rebuild_fit_run() -> None:
        cur = mask0.copy()
        for j_out, j_in in fit_swaps:
            cur[j_out], cur[j_in] = False, True
            K = kernel_matrix(X[:, cur], kernel=name, **params)
            solve_svm_dual(K, y, C, options=SVMDualOptions(check_input=False))

    fits = [solve_svm_dual(K, y, C) for K in kernels]
    res["n_sv"] = float(np.mean([f.support.size for f in fits]))
    res["n_iter"] = float(np.mean([f.n_iter for f in fits]))
    res |= best_times(
        {
            "fit": fit_run,
            "fit_checked": fit_checked_run,
            "svc": svc_run,
            "swap_fit": swap_fit_run,
            "rebuild_fit": rebuild_fit_run,
        },
        n_ops=N_FIT,
        repeats=3,
    )
    return res


def main(blas_threads: int = 1) -> str:
    """Run all measurements, write the Markdown report and return it."""
    if blas_threads > 0:
        with threadpool_limits(limits=blas_threads, user_api="blas"):
            return _main(f"{blas_threads} BLAS thread(s)")
    return _main("library-default BLAS threads")


def _main(blas_note: str) -> str:
    load0 = os.getloadavg()[0]
    X, y, mask0, swaps = make_problem()
    rows_a, rows_b = [], []
    for label, kw in KERNELS.items():
        r = bench(X, y, mask0, swaps, kw)
        us = {k: v * 1e6 for k, v in r.items()}
        rows_a.append(
            f"| {label} | {us['swap']:.0f} | {us['with_swap']:.0f} | {us['swap_numpy']:.0f} "
            f"| {us['rebuild']:.0f} | **{r['rebuild'] / r['swap']:.1f}x** |"
        )
        rows_b.append(
            f"| {label} | {r['n_sv']:.0f} | {r['n_iter']:.0f} | {1 / r['fit']:.0f} "
            f"| {1 / r['fit_checked']:.0f} | {1 / r['svc']:.0f} "
            f"| {us['swap_fit'] / 1e3:.2f} | {us['rebuild_fit'] / 1e3:.2f} "
            f"| **{r['rebuild_fit'] / r['swap_fit']:.2f}x** |"
        )
    import numba
    import sklearn

    lines = [
        "# Masked-kernel swaps and the SVM-dual inner loop",
        "",
        f"Seeded random problem: m = {M} samples, n = {N} features, B = {B} selected, "
        f"{N_OPS} random swaps in (a) and {N_FIT} swaps + fits in (b), C = {C}, gamma = 0.1 "
        f"(Paper A, Section 5); best of {REPEATS} runs in (a), 3 in (b), all in one process.",
        f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}, "
        f"scikit-learn {sklearn.__version__}, {blas_note}; "
        f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC; 1-min load average "
        f"{load0:.1f} at start, {os.getloadavg()[0]:.1f} at end "
        "(other jobs share the machine: BLAS-based rebuilds suffer most from contention).",
        "",
        "## (a) Kernel update per operation (microseconds)",
        "",
        "| kernel | swap (numba) | with_swap | swap (numpy backend) | full rebuild "
        "| rebuild / swap |",
        "|---|---:|---:|---:|---:|---:|",
        *rows_a,
        "",
        "swap = `MaskedKernel.swap` + reading `.K`; with_swap = neighbour kernel without a state "
        "change; full rebuild = `kernel_matrix(X[:, mask])`.",
        "",
        "## (b) SVM dual (Paper A, eq. (3)) on the 300 x 300 kernels",
        "",
        "| kernel | mean #SV | mean SMO iter | fits/s solve_svm_dual | fits/s (check_input) "
        "| fits/s SVC | swap+fit (ms) | rebuild+fit (ms) | rebuild+fit / swap+fit |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        *rows_b,
        "",
        "solve_svm_dual calls scikit-learn's compiled libsvm directly (tol = 1e-6); "
        "SVC = `SVC(kernel='precomputed', tol=1e-6).fit`; check_input = the default finite and "
        "symmetry checks. swap+fit and rebuild+fit both use `check_input=False`.",
    ]
    text = "\n".join(lines) + "\n"
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text)
    return text


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--blas-threads", type=int, default=1, help="BLAS threads (0 = library default)"
    )
    print(main(parser.parse_args().blas_threads))
    print(f"written to {OUT}")
