"""Where ``fast``'s CPU goes, per part, on the fold-0 fits of the peer protocol.

Each compiled or solver part that ``fast`` calls through :mod:`sparsekm.algorithms.fs_linear.swap`
is wrapped with a process-CPU timer (the decisions ``scan_exchanges``, the SVM (1) solves of
accepted supports ``decide_below``, the primal-ranked swap scores ``smallest_swap_values`` and
``line_lower_bounds``, the full SVM's dual, the dual correlations d = X'(alpha y) of all
features with the perspective bound); the rest is the interpreter and numpy between them (the
move lists, the calls). The smallest of three
runs per fit. Fits: fold 0 of colorectal, lymphoma and dlbcl at B = 5, 10, 20 (C = 1), and
the 120 x 1500 synthetic set at B = 20.

    PYTHONPATH=src python benchmarks/bench_fs_linear_fast_split.py

Writes ``results/fs_linear_fast_split.md`` and ``.json``.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_fs_linear_peers import dataset, fits, scale  # noqa: E402
from results_io import write_results  # noqa: E402

from sparsekm.algorithms.fs_linear import fast as fast_mod  # noqa: E402
from sparsekm.algorithms.fs_linear import swap  # noqa: E402
from sparsekm.models.fs_linear import FSLinearProblem  # noqa: E402

PARTS = {"decisions": ("scan_exchanges",), "accepted SVM": ("decide_below",),
         "primal swap scores": ("smallest_swap_values", "line_lower_bounds"),
         "full SVM": ("full_svm_dual",), "dual correlations": ("_Search.correlations",)}


def timed_parts() -> dict[str, float]:
    """Wrap the parts of :data:`PARTS` in ``swap``'s namespace; their CPU accumulates here."""
    acc: dict[str, float] = {}
    for part, names in PARTS.items():
        for name in names:
            owner = swap._Search if name.startswith("_Search.") else swap
            name = name.removeprefix("_Search.")
            fun = getattr(owner, name)

            def timed(*a, _f=fun, _p=part, **k):
                t = time.process_time()
                try:
                    return _f(*a, **k)
                finally:
                    acc[_p] = acc.get(_p, 0.0) + time.process_time() - t
            setattr(owner, name, timed)
    return acc


def main() -> None:
    acc = timed_parts()
    fast_mod.warm_up()
    cases = [(key, p) for key, fold, _, p in fits() if fold == 0]
    X, y = dataset("synth120x1500")
    cases.append(("synth120x1500/B=20", FSLinearProblem(scale(X)[0], y, B=20, C=1.0)))
    rows = []
    for key, p in cases:
        best = None
        for _ in range(3):
            acc.clear()
            t = time.process_time()
            fast_mod.iterated_search(p)
            total = time.process_time() - t
            if best is None or total < best["total"]:
                best = {"fit": key, "total": total, **{k: acc.get(k, 0.0) for k in PARTS}}
        best["interpreter"] = best["total"] - sum(best[k] for k in PARTS)
        rows.append(best)
        print(best, flush=True)
    cols = [*PARTS, "interpreter"]   # the rest: numpy and Python between the parts
    lines = ["# Where `fast`'s CPU goes", "",
             "Produced by `benchmarks/bench_fs_linear_fast_split.py`: process CPU per part, "
             "the smallest of three runs; share of the fit's CPU in brackets.", "",
             "| fit | CPU s | " + " | ".join(cols) + " |", "|---|---|" + "---|" * len(cols)]
    lines += [f"| {r['fit']} | {r['total']:.3f} | " + " | ".join(
        f"{r[c]:.3f} ({100 * r[c] / r['total']:.0f} %)" for c in cols) + " |" for r in rows]
    write_results("fs_linear_fast_split", lines, rows)


if __name__ == "__main__":
    main()
