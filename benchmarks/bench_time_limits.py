"""Does every command keep its ``--time-limit`` (start-up included)? Wall time of real processes.

Each case is ``sparsekm solve|relax|path PROBLEM ... --time-limit T --json`` on an instance that the
method cannot finish in T seconds; the process's wall time (interpreter start, imports, data,
workers, the method and the JSON) is compared with T. The allowance a run may take past its
limit is what the CLI cannot cut short: the interpreter's start before sparsekm is imported
and the finishing of the payload. Run:
``python benchmarks/bench_time_limits.py [--limit 5] [--cold]`` (``--cold``: numba's cache
emptied, then set-up's warm-up, as after a fresh install); writes
``benchmarks/results/time_limits.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

OUT = Path(__file__).parent / "results"
CLI = [sys.executable, "-c", "from sparsekm.cli.app import main; main()"]

CASES = [
    ("solve", "fs-linear", "colorectal", ["--B", "20", "--method", "bnb"]),
    ("solve", "fs-linear", "colorectal", ["--B", "20", "--method", "bnb", "--workers", "8"]),
    ("solve", "fs-linear", "colorectal", ["--B", "10", "--method", "kernel-search"]),
    ("solve", "fs-linear", "colorectal", ["--B", "10", "--method", "local-search"]),
    ("solve", "fs-linear", "colorectal", ["--B", "10", "--method", "cop"]),
    ("solve", "fs-linear", "colorectal", ["--B", "10", "--method", "bigm"]),
    ("solve", "fs-linear", "arrhythmia", ["--B", "10", "--method", "exact"]),
    ("solve", "fs-linear", "arrhythmia", ["--B", "10", "--method", "heuristic"]),
    ("solve", "fs-linear", "madelon", ["--B", "20", "--method", "fast"]),
    ("solve", "fs-linear", "ionosphere", ["--B", "4", "--method", "enumerate"]),
    ("relax", "fs-linear", "madelon", ["--B", "20", "--relaxation", "shor-cop"]),
    ("relax", "fs-linear", "madelon", ["--B", "20", "--relaxation", "dscop"]),
    ("solve", "fs-kernel", "german", ["--method", "ls-star", "--starts", "4"]),
    ("solve", "fs-kernel", "german", ["--method", "decsub", "--sense", "paper"]),
    ("solve", "fs-kernel", "german", ["--method", "bnb", "--kernel", "poly", "--B", "8"]),
    ("solve", "fs-kernel", "ionosphere", ["--method", "enumerate", "--B", "3", "--workers",
                                          "2"]),
    ("solve", "fs-kernel", "cleveland", ["--method", "minlp", "--sense", "paper", "--B", "6"]),
    ("solve", "fs-kernel", "german", ["--method", "rfe2"]),
    ("solve", "smkl", "spambase", ["--test-size", "0.6", "--method", "abr"]),
    ("solve", "smkl", "ionosphere", ["--method", "exact", "--k0", "3"]),
    ("solve", "smkl", "ionosphere", ["--method", "enumerate", "--k0", "3"]),
    ("relax", "smkl", "ionosphere", ["--relaxation", "sdp-3x3"]),
    ("solve", "sklr", "magic", ["--test-size", "0.6", "--method", "smo1", "--C", "100"]),
    ("solve", "minmax-fs", "spambase", ["--test-size", "0.6", "--method", "fast"]),
    ("solve", "minmax-fs", "sonar", ["--method", "ipopt", "--gamma0", "0.1"]),
    ("solve", "svm", "magic", ["--test-size", "0.2", "--C", "1000"]),
    ("path", "fs-linear", "colorectal", ["--B", "1:20", "--C", "0.1,1"]),
    ("solve", "fs-kernel", "madelon", ["--method", "ls-star", "--B", "10"]),
    ("solve", "smkl", "ionosphere", ["--cv-folds", "5"]),
    ("relax", "smkl", "spambase", ["--test-size", "0.6", "--relaxation", "sdp-full-cp"]),
    ("solve", "sklr", "magic", ["--test-size", "0.6", "--method", "smo2", "--C", "100"]),
    ("solve", "minmax-fs", "spambase", ["--test-size", "0.6", "--method", "ipopt"]),
    ("solve", "fs-linear", "madelon", ["--B", "20", "--method", "local-search"]),
    ("solve", "fs-linear", "madelon", ["--B", "20", "--method", "exact"]),
    ("relax", "fs-linear", "madelon", ["--B", "20", "--relaxation", "box"]),
    ("solve", "fs-kernel", "madelon", ["--method", "rfe1", "--B", "10"]),
    ("solve", "smkl", "spambase", ["--test-size", "0.6", "--method", "easymkl"]),
    ("solve", "minmax-fs", "madelon", ["--method", "fast"]),
    ("solve", "fs-linear", "madelon", ["--B", "20", "--method", "heuristic"]),
    ("solve", "fs-kernel", "madelon", ["--method", "decsub", "--sense", "paper", "--B", "10"]),
]


def run_case(action: str, problem: str, data: str, args: list[str], limit: float) -> dict:
    cmd = [*CLI, action, problem, "--data", data, *args, "--time-limit", str(limit), "--json"]
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=20 * limit + 120)
    wall = time.perf_counter() - t0
    out: dict = {"command": " ".join([action, problem, "--data", data, *args]),
                 "limit": limit, "wall_s": round(wall, 2), "over_s": round(wall - limit, 2),
                 "exit": r.returncode}
    try:
        payload = json.loads(r.stdout)
        out.update(status=payload.get("status"), termination=payload.get("termination"),
                   time_s=payload.get("time_s"), load_s=payload.get("load_s"))
    except ValueError:
        out["stderr"] = r.stderr.strip().splitlines()[-1:] if r.stderr else []
    return out


def startup(repeat: int = 3) -> float:
    """Seconds from the interpreter's start to sparsekm imported (not covered by a limit)."""
    code = "import time; t = time.perf_counter(); import sparsekm; print(sparsekm.IMPORTED_AT)"
    best = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
        best.append(time.perf_counter() - t0)
    return min(best)


def cold_start() -> float:
    """Delete the numba cache of the sparsekm package, then run set-up's warm-up in a fresh
    process (what a fresh install does); its wall seconds."""
    import sparsekm

    root = Path(sparsekm.__file__).parent
    for f in [*root.rglob("*.nbi"), *root.rglob("*.nbc")]:
        f.unlink()
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "from sparsekm.registry import warm_up_all; "
                    "warm_up_all()"], check=True, capture_output=True)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=float, default=5.0)
    ap.add_argument("--cold", action="store_true",
                    help="empty numba's cache first, then run set-up's warm-up (as a fresh "
                         "install: `make install` calls sparsekm.registry.warm_up_all)")
    args = ap.parse_args()
    cache = "as found"
    if args.cold:
        cache = f"emptied, then set-up's warm-up ({cold_start():.0f} s)"
    rows = []
    for case in CASES:
        row = run_case(*case, args.limit)
        rows.append(row)
        print(json.dumps(row), flush=True)
    boot = startup()
    load = os.getloadavg()
    doc = {"limit": args.limit, "interpreter_start_s": round(boot, 3), "numba_cache": cache,
           "load_average": [round(x, 2) for x in load], "cases": rows}
    OUT.mkdir(exist_ok=True)
    (OUT / "time_limits.json").write_text(json.dumps(doc, indent=1))
    lines = [f"# Time limits kept, start-up included (`--time-limit {args.limit:g}`)", "",
             f"Wall time of each process (interpreter start to exit) against its limit; "
             f"load average {load[0]:.1f} on this 2-core machine; the bare interpreter "
             f"start plus `import sparsekm` takes {boot:.2f} s; numba's cache: {cache}. "
             "Written by `benchmarks/bench_time_limits.py`.", "",
             "| command | wall s | over s | status | termination | exit |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| `{r['command']}` | {r['wall_s']} | {r['over_s']} | "
                     f"{r.get('status')} | {r.get('termination')} | {r['exit']} |")
    worst = max(r["over_s"] for r in rows)
    lines += ["", f"Largest overrun: {worst:.2f} s."]
    (OUT / "time_limits.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
