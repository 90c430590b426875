"""CoP (7) with and without its linking rows |w_j| <= M s_j, read from an LP file by SCIP at
its default feasibility tolerance (1e-6), against bnb's certified optimum; and what the model
record and the links cost when a model is built.

Usage (from the repository root; about 3 min on the shared 2-core machine):

    flock /work/wt/bench.lock .venv/bin/python benchmarks/bench_cop_links.py

Both variants are the same model in the same process: "without" deactivates the two linking
blocks before writing. Per instance and form: SCIP's status, its value's relative error to
bnb's objective, the largest |w_j| of a feature SCIP dropped (u_j = 1), wall and CPU of the
solve. Then, per data set, the seconds (wall, CPU) of cop_model's build, of its link bound
and of the record's snapshot inside it. Writes benchmarks/results/cop_links.md and .json.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import sys  # noqa: E402

import numpy as np  # noqa: E402
from results_io import write_results  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "fs_linear"))
from fs_linear_instances import issue_instance  # noqa: E402

from sparsekm.algorithms import solve  # noqa: E402
from sparsekm.data import Scaler, load_dataset  # noqa: E402
from sparsekm.models.fs_linear import FSLinearProblem, cop_model, link_bound  # noqa: E402
from sparsekm.models.record import snapshot  # noqa: E402
from sparsekm.solvers import SolverPlan  # noqa: E402
from sparsekm.solvers.files import write_model  # noqa: E402
from sparsekm.solvers.files.independent import read_with_scip  # noqa: E402


def dataset(name: str, rows: int | None, B: int, C: float) -> FSLinearProblem:
    ds = load_dataset(name)
    X, y = (ds.X, ds.y) if rows is None else (ds.X[:rows], ds.y[:rows])
    return FSLinearProblem(Scaler("standard").fit(X).transform(X), y, B=B, C=C)


INSTANCES = {"instance 50x18 B=4 C=10": issue_instance,   # tests/fs_linear/fs_linear_instances.py
             "cleveland[:60] B=3 C=1": lambda: dataset("cleveland", 60, 3, 1.0),
             "ionosphere B=4 C=1": lambda: dataset("ionosphere", None, 4, 1.0)}


def scip_on(p: FSLinearProblem, form: str, links: bool, folder: Path) -> dict:
    m = cop_model(p, form=form)
    if not links:
        m.link_hi.deactivate()
        m.link_lo.deactivate()
    path = folder / f"{form}-{links}.lp"
    write_model(m, path, "lp")
    res = read_with_scip(path, feastol=1e-6)
    u = {int(k[2:-1]): v for k, v in res.values.items() if k.startswith("u(")}
    w = {int(k[2:-1]): v for k, v in res.values.items() if k.startswith("w(")}
    dropped = max((abs(w.get(j, 0.0)) for j, uj in u.items() if uj > 0.5), default=0.0)
    return {"status": res.status, "objective": res.objective, "dropped_w": dropped,
            "wall_s": res.time_s, "cpu_s": res.cpu_s}


def _best_of_3(fn) -> dict:
    best = (np.inf, np.inf)
    for _ in range(3):
        t, c = time.perf_counter(), time.process_time()
        fn()
        best = min(best, (time.perf_counter() - t, time.process_time() - c))
    return {"wall_s": best[0], "cpu_s": best[1]}


def build_costs(name: str) -> dict:
    p = dataset(name, None, 10, 1.0)
    model = cop_model(p, form="perspective")          # numba and Pyomo loaded
    return {"cop_model": _best_of_3(lambda: cop_model(p, form="perspective")),
            "link_bound": _best_of_3(lambda: link_bound(p)),
            "snapshot": _best_of_3(lambda: snapshot(model))}


def main() -> None:
    rows, lines = [], ["# CoP (7) with and without its linking rows: SCIP on the LP file",
                       "",
                       "SCIP at its default feasibility tolerance (1e-6) reads the LP file; "
                       "error = (SCIP's value - bnb's certified optimum) / optimum.", "",
                       "| instance | form | links | SCIP status | relative error | max "
                       "dropped abs(w_j) | wall s | CPU s |", "|---|---|---|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        for name, make in INSTANCES.items():
            p = make()
            ref = solve(p, "bnb", SolverPlan(time_limit=600))
            assert ref.status.value == "optimal", (name, ref.status)
            for form in ("perspective", "bilinear"):
                for links in (False, True):
                    got = scip_on(p, form, links, Path(tmp))
                    err = (got["objective"] - ref.objective) / ref.objective
                    rows.append({"instance": name, "form": form, "links": links,
                                 "optimum": ref.objective, "relative_error": err, **got})
                    lines.append(f"| {name} | {form} | {'yes' if links else 'no'} | "
                                 f"{got['status']} | {err:.2e} | {got['dropped_w']:.1e} | "
                                 f"{got['wall_s']:.2f} | {got['cpu_s']:.2f} |")
    lines += ["", "## Building CoP (7), B = 10, perspective form (best of 3)", "",
              "| data | cop_model wall s | CPU s | link bound wall s | CPU s | record snapshot "
              "wall s | CPU s |", "|---|---|---|---|---|---|---|"]
    costs = {}
    for data in ("colorectal", "madelon"):
        c = costs[data] = build_costs(data)
        lines.append(f"| {data} | {c['cop_model']['wall_s']:.2f} | {c['cop_model']['cpu_s']:.2f}"
                     f" | {c['link_bound']['wall_s']:.3f} | {c['link_bound']['cpu_s']:.3f} | "
                     f"{c['snapshot']['wall_s']:.3f} | {c['snapshot']['cpu_s']:.3f} |")
    lines += ["", f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
              f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}."]
    write_results("cop_links", lines, {"rows": rows, "build": costs})


if __name__ == "__main__":
    main()
