"""``fast`` of this checkout against ``fast`` of an earlier commit, in one process.

The earlier commit's whole ``sparsekm`` package is read from git into ``benchmarks/out/`` under
the name ``skm_at_<commit>`` (the same-process baseline of the developers' guide); both run
``fast`` (``iterated_search``, its defaults) on each fit, the order alternating per fit, twice,
and the smaller process-CPU time of the two is kept. Fits:

* the 45 of ``bench_fs_linear_peers.py`` (colorectal, lymphoma, dlbcl; 5 stratified folds;
  B = 5, 10, 20; C = 1);
* the wide synthetic set (120 x 1500) at B = 5, 10, 20, C = 1;
* arrhythmia (452 x 279, standard scaling) at B = 5, 10, 20, C = 1 and 10.

Reports per fit the CPU seconds of each, their ratio, SVM decisions and the objectives of (2)
(they should be equal: a change that keeps the decisions keeps the supports).

    PYTHONPATH=src .venv/bin/python benchmarks/bench_fs_linear_snap.py [COMMIT] [--stem STEM]

Writes ``results/<stem>.md`` and ``.json`` (default stem ``fs_linear_fast_snap``).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from pathlib import Path

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from baseline_package import package_at  # noqa: E402
from bench_fs_linear_peers import dataset, fits, scale  # noqa: E402
from results_io import write_results  # noqa: E402


def other_fits():
    """(key, X, y, B, C) of the synthetic and arrhythmia fits."""
    X, y = dataset("synth120x1500")
    X = scale(X)[0]
    for B in (5, 10, 20):
        yield f"synth120x1500/B={B}/C=1", X, y, B, 1.0
    X, y = dataset("arrhythmia")
    X = scale(X)[0]
    for C in (1.0, 10.0):
        for B in (5, 10, 20):
            yield f"arrhythmia/B={B}/C={C:g}", X, y, B, C


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("commit", nargs="?", default="ed3c6eb")
    ap.add_argument("--stem", default="fs_linear_fast_snap")
    args = ap.parse_args()
    old = package_at(args.commit)
    fast_old = importlib.import_module(f"{old.__name__}.algorithms.fs_linear.iterated_swap")
    prob_old = importlib.import_module(f"{old.__name__}.models.fs_linear").FSLinearProblem
    from sparsekm.algorithms.fs_linear import iterated_swap as fast_new
    from sparsekm.models.fs_linear import FSLinearProblem as prob_new

    fast_old.warm_up()
    fast_new.warm_up()
    cases = [(key, p.X, p.y, B, p.C) for key, _, B, p in fits()]
    n_peer = len(cases)
    cases += list(other_fits())
    rows = []
    for i, (key, X, y, B, C) in enumerate(cases):
        runs: dict[str, list] = {"old": [], "new": []}
        order = ("old", "new") if i % 2 == 0 else ("new", "old")
        for _ in range(2):
            for label in order:
                fast, prob = (fast_old, prob_old) if label == "old" else (fast_new, prob_new)
                t = time.process_time()
                r = fast.iterated_search(prob(X, y, B=B, C=C))
                runs[label].append((time.process_time() - t, r.objective,
                                    r.extra["evaluations"]))
        row = {"fit": key, **{f"{lab}_cpu": min(c for c, _, _ in v) for lab, v in runs.items()},
               **{f"{lab}_obj": v[0][1] for lab, v in runs.items()},
               **{f"{lab}_decisions": v[0][2] for lab, v in runs.items()}}
        row["ratio"] = row["old_cpu"] / row["new_cpu"]
        row["obj_rel_diff"] = (row["new_obj"] - row["old_obj"]) / abs(row["old_obj"])
        rows.append(row)
        print(key, f"{row['old_cpu']:.3f} -> {row['new_cpu']:.3f} ({row['ratio']:.2f}x)",
              f"obj diff {row['obj_rel_diff']:+.1e}", flush=True)
    peer = rows[:n_peer]
    ratios = np.array([r["ratio"] for r in rows])
    lines = [f"# `fast` now against `fast` at commit {args.commit}, same process", "",
             "Produced by `benchmarks/bench_fs_linear_snap.py`. CPU: process seconds, the "
             "smaller of two runs each, the order alternating per fit; the machine was shared "
             f"(load average {os.getloadavg()[0]:.1f} at the end).", "",
             f"* {len(rows)} fits: CPU ratio old / new median {np.median(ratios):.2f} "
             f"(range {ratios.min():.2f}-{ratios.max():.2f}); total "
             f"{sum(r['old_cpu'] for r in rows):.1f} s -> {sum(r['new_cpu'] for r in rows):.1f} s.",
             f"* The {n_peer} peer fits: median ratio "
             f"{np.median([r['ratio'] for r in peer]):.2f}.",
             f"* Objectives of (2): equal on {sum(abs(r['obj_rel_diff']) <= 1e-12 for r in rows)} "
             f"of {len(rows)} fits; largest relative difference "
             f"{max(abs(r['obj_rel_diff']) for r in rows):.1e}.", "",
             "| fit | CPU s old | CPU s new | old / new | decisions old | decisions new | "
             "objective (new − old) / old |", "|---|---|---|---|---|---|---|"]
    lines += [f"| {r['fit']} | {r['old_cpu']:.3f} | {r['new_cpu']:.3f} | {r['ratio']:.2f} | "
              f"{r['old_decisions']} | {r['new_decisions']} | {r['obj_rel_diff']:+.1e} |"
              for r in rows]
    write_results(args.stem, lines, {"commit": args.commit, "rows": rows})


if __name__ == "__main__":
    main()
