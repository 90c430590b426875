"""ABR's defaults against the certified optimum, in one process (not CI;
docs/guides/smkl.md, finding 3).

For each setting (training rows, C, lam, k0) and data set: `exact` (certified optimum), then
`abr` as the paper prints Algorithm 1 (one random start, no local search, epsilon 1e-2), with
its defaults and two alternatives (2 ranked starts, 3 random starts), each objective as percent
above exact's certified bound and its CPU time (``time.process_time``).

Why a script and not a grid: the variants are compared by CPU time in the same process (the
machine is shared; wall times of separate runs are not comparable); the grid version of the
headline comparison is ``configs/paperB_abr_defaults.toml``.

    python benchmarks/bench_smkl_abr_defaults.py [--settings "0 10 1 2;0.2 100 100 2"]

Appends one JSON line per (setting, data set) to benchmarks/results/smkl_abr_defaults.jsonl.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

from sparsekm.cli.common import RunOptions, prepare

from sparsekm import registry
from sparsekm.models.smkl.problem import SMKLProblem
from sparsekm.solvers import SolverPlan

OUT = Path(__file__).parent / "results" / "smkl_abr_defaults.jsonl"
DATA = ("iris", "wine", "breast_cancer_diagnostic", "ionosphere", "heart", "haberman",
        "parkinsons", "sonar", "banknote", "mammographic")
SETTINGS = ("0 10 1 2", "0.2 10 1 2", "0.2 100 100 2", "0.2 50 0.01 2", "0 10 1 3",
            "0.2 5 1 4", "0.2 5 0.01 1")   # test_size C lam k0
VARIANTS = {"paper": {"init": "random", "starts": 1, "faces": False, "tol": 1e-2},
            "rank2": {"starts": 2}, "rank3": {}, "rand3": {"init": "random", "starts": 3}}


def measure(name: str, ts: float, C: float, lam: float, k0: int) -> dict:
    split = prepare(RunOptions(data=name, test_size=ts))
    p = SMKLProblem(split.train.X, split.train.y, "paper10", k0, C, lam)
    t = time.process_time()
    ex = registry.get("smkl", "method", "exact")(p, SolverPlan(time_limit=300))
    out = {"data": name, "m": p.m, "ts": ts, "C": C, "lam": lam, "k0": k0,
           "exact": ex.objective, "status": ex.status.value, "t_exact": time.process_time() - t}
    for label, kw in VARIANTS.items():
        t = time.process_time()
        r = registry.get("smkl", "method", "abr")(p, **kw)
        out[label] = [100 * (r.objective - ex.bound) / abs(ex.bound), time.process_time() - t]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--settings", default=";".join(SETTINGS))
    ap.add_argument("--data", default=",".join(DATA))
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    for setting in args.settings.split(";"):
        ts, C, lam, k0 = setting.split()
        for name in args.data.split(","):
            row = measure(name, float(ts), float(C), float(lam), int(k0))
            with OUT.open("a") as fh:
                fh.write(json.dumps(row) + "\n")
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
