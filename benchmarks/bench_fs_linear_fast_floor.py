"""How far compiled code alone keeps ``fast`` from abess, on all 45 peer fits.

Each fit of the peer protocol (colorectal, lymphoma, dlbcl; 5 folds; B = 5, 10, 20; C = 1) is
run in one process by abess 0.4.11 at the same B and by ``fast`` with its parts timed as in
``bench_fs_linear_fast_split.py`` (process CPU; the smallest of five runs of each, the two
methods alternating: the peers benchmark saw one run of a 10-30 ms abess fit move by up to
1.8x between reruns). Per fit
it reports ``fast``'s CPU over abess's, and two floors of that ratio, what would be left if
the rest cost nothing:

* **kernels**: the compiled SVM decisions of the swap scans (``scan_exchanges``) and the SVM
  (1) solves of accepted supports (``decide_below``): the work that makes ``fast``'s
  decisions, and so its supports;
* **no interpreter**: the kernels plus the primal swap scores, the full SVM and the dual
  correlations, i.e. every timed part, with the interpreter and numpy between them at zero.

A cell whose kernel floor is above 10x cannot be brought within 10x of abess by removing
overhead: the decisions themselves would have to change (and the frontier benchmark,
``bench_fs_linear_fast_frontier.py``, measures what cheaper decisions cost in objective).

Runs in the peers' own venv (abess is never a project dependency)::

    bash benchmarks/bench_fs_linear_peers_env.sh
    benchmarks/.venv-peers/bin/python benchmarks/bench_fs_linear_fast_floor.py

Writes ``results/fs_linear_fast_floor.md`` and ``.json``.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_fs_linear_fast_split import PARTS, timed_parts  # noqa: E402
from bench_fs_linear_peers import fit_abess, fits, timed  # noqa: E402
from results_io import write_results  # noqa: E402

from sparsekm.algorithms.fs_linear import iterated_swap as fast_mod  # noqa: E402

RUNS = 5
KERNELS = ("decisions", "accepted SVM")
GOAL = 10.0


def timed_pair(acc: dict[str, float], problem: object, B: int
               ) -> tuple[float, dict[str, float]]:
    """abess and ``fast`` (its defaults) on ``problem``, alternating, :data:`RUNS` times each:
    abess's smallest CPU, and ``fast``'s run of smallest CPU with its parts and objective."""
    best: dict[str, float] | None = None
    abess_cpu = float("inf")
    for _ in range(RUNS):
        abess_cpu = min(abess_cpu, timed(fit_abess, problem.X, problem.y, B)[1])
        acc.clear()
        t = time.process_time()
        res = fast_mod.iterated_search(problem)
        total = time.process_time() - t
        if best is None or total < best["total"]:
            best = {"total": total, "objective": float(res.objective),
                    **{k: acc.get(k, 0.0) for k in PARTS}}
    assert best is not None
    return abess_cpu, best


def row(key: str, B: int, abess_cpu: float, parts: dict[str, float]) -> dict[str, object]:
    kernels = sum(parts[k] for k in KERNELS)
    timed_all = sum(parts[k] for k in PARTS)
    return {"fit": key, "cell": key.split("/")[0] + f"/B={B}", "abess_cpu": abess_cpu,
            **parts, "ratio": parts["total"] / abess_cpu, "kernel_floor": kernels / abess_cpu,
            "no_interpreter_floor": timed_all / abess_cpu}


def report(rows: list[dict[str, object]]) -> list[str]:
    cells: dict[str, list[dict[str, object]]] = {}
    for r in rows:
        cells.setdefault(str(r["cell"]), []).append(r)

    def med(rs: list[dict[str, object]], k: str) -> float:
        return statistics.median(float(r[k]) for r in rs)

    lines = ["# How far compiled code alone keeps `fast` from abess", "",
             "Produced by `benchmarks/bench_fs_linear_fast_floor.py` in the peers' venv: the 45 "
             "fits of `bench_fs_linear_peers.py` (same folds and scaling, C = 1), abess 0.4.11 "
             "and `fast` in one process, each fit's process CPU the smallest of five runs, the "
             "two alternating. "
             "*kernels*: the compiled swap decisions plus the SVM (1) solves of accepted "
             "supports; *no interpreter*: every timed part of `fast` (kernels, primal swap "
             "scores, full SVM, dual correlations), the interpreter and numpy between them "
             "at zero. Medians over the 5 folds; ranges in brackets.", "",
             "| cell | abess ms/fit | fast ms/fit (parts timed) | fast / abess | kernel floor | "
             "no-interpreter floor | folds with kernel floor > 10x |",
             "|---|---|---|---|---|---|---|"]
    for cell, rs in cells.items():
        def span(k: str, rs: list[dict[str, object]] = rs) -> str:
            vals = [float(r[k]) for r in rs]
            return f"{med(rs, k):.1f}x ({min(vals):.1f}-{max(vals):.1f})"
        over = sum(float(r["kernel_floor"]) > GOAL for r in rs)
        lines.append(f"| {cell} | {1e3 * med(rs, 'abess_cpu'):.1f} | "
                     f"{1e3 * med(rs, 'total'):.0f} | {span('ratio')} | {span('kernel_floor')} "
                     f"| {span('no_interpreter_floor')} | {over} of {len(rs)} |")
    over_all = [c for c, rs in cells.items() if med(rs, "no_interpreter_floor") > GOAL]
    over_kernels = [c for c, rs in cells.items() if med(rs, "kernel_floor") > GOAL]
    lines += ["", f"Cells whose median no-interpreter floor exceeds {GOAL:g}x: "
              f"{', '.join(over_all) or 'none'}. Cells whose median kernel floor exceeds "
              f"it: {', '.join(over_kernels) or 'none'}."]
    return lines


def main() -> None:
    try:
        import abess  # noqa: F401
    except ImportError:
        sys.exit("abess is not installed here: run this in the peers' venv "
                 "(bash benchmarks/bench_fs_linear_peers_env.sh)")
    acc = timed_parts()
    fast_mod.warm_up()
    rows = []
    for key, _, B, p in fits():
        rows.append(row(key, B, *timed_pair(acc, p, B)))
        print(rows[-1], flush=True)
    write_results("fs_linear_fast_floor", report(rows), rows)


if __name__ == "__main__":
    main()
