"""A change to ``fast``'s compiled swap engine tried against the engine of this
checkout, in one process (the same-process baseline of the developers' guide).

The trial is a patch of ``src/sparsekm/algorithms/fs_linear/swap_engine.py`` (kept under
``results/trials/``); it is applied to a copy loaded as its own module, and ``fast``'s
iterated search (its defaults) runs with each engine in turn, the order alternating per fit,
on the 45 fits of ``bench_fs_linear_peers.py`` (colorectal, lymphoma, dlbcl; 5 folds; B = 5,
10, 20; C = 1): process CPU seconds, SVM decisions and the objective of (2) per fit.

    PYTHONPATH=src .venv/bin/python benchmarks/bench_fs_linear_swap_trial.py PATCH OUT.json
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
ENGINE = HERE.parent / "src" / "sparsekm" / "algorithms" / "fs_linear" / "swap_engine.py"

from bench_fs_linear_peers import fits  # noqa: E402


def _patched(patch: Path) -> object:
    """The engine with ``patch`` applied, loaded as the module ``swap_engine_trial``."""
    out = Path(tempfile.mkdtemp()) / "swap_engine_trial.py"
    subprocess.run(["patch", "-s", "-o", str(out), str(ENGINE), str(patch)], check=True)
    spec = importlib.util.spec_from_file_location("swap_engine_trial", out)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(patch: Path, out: Path) -> None:
    import sparsekm.algorithms.fs_linear.swap as swap
    from sparsekm.algorithms.fs_linear.iterated_swap import iterated_search, warm_up
    from sparsekm.solvers import SolverPlan

    engines = {"base": swap.scan_exchanges, "trial": _patched(patch).scan_exchanges}
    for scan in engines.values():
        swap.scan_exchanges = scan
        warm_up()
    rows = {}
    for key, k, B, p in fits():
        row = {}
        for label in ("base", "trial")[::1 if (k + B) % 2 else -1]:
            swap.scan_exchanges = engines[label]
            t = time.process_time()
            r = iterated_search(p, SolverPlan())
            row[label] = dict(obj=r.objective, cpu=time.process_time() - t,
                              evals=r.extra["evaluations"])
        rows[key] = row
        print(key, row, flush=True)
    col = {key: np.array([[r[e][key] for e in ("base", "trial")] for r in rows.values()])
           for key in ("cpu", "evals", "obj")}
    summary = dict(
        patch=str(patch), fits=len(rows),
        cpu_base_over_trial_median=float(np.median(col["cpu"][:, 0] / col["cpu"][:, 1])),
        cpu_s=col["cpu"].sum(0).tolist(),
        evaluations_trial_over_base_median=float(np.median(col["evals"][:, 1]
                                                           / col["evals"][:, 0])),
        objective_trial_over_base_geomean=float(np.exp(np.mean(np.log(col["obj"][:, 1]
                                                                      / col["obj"][:, 0])))))
    print(summary)
    out.write_text(json.dumps(dict(summary=summary, rows=rows), indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
