"""Does every command keep its ``--time-limit`` (start-up included)? Wall time of real processes.

Each case is ``sparsekm solve|relax|path PROBLEM ... --time-limit T --json`` on an instance that the
method cannot finish in T seconds; the process's wall time (interpreter start, imports, data,
workers, the method and the JSON) is compared with T. The allowance a run may take past its
limit is what the CLI cannot cut short: the interpreter's start before sparsekm is imported
and the finishing of the payload. Run:
``python benchmarks/bench_time_limits.py [--limit 5] [--cold]`` (``--cold``: numba's cache
emptied, then set-up's warm-up, as after a fresh install); writes
``benchmarks/results/time_limits.{json,md}``.

``--set inputs`` runs the cases of the fresh-input catalogues instead (unscaled kernel SVMs,
spambase's smkl baselines, the large PSD relaxations, a wide svmlight file, smkl at C = 1e6)
and ``--src DIR --tag NAME`` runs them on another source tree (e.g. the commit before the
fixes, exported with ``git archive``): each tag writes
``benchmarks/results/time_limits_inputs_<tag>.json``, and the markdown
``time_limits_inputs.md`` sets the tags side by side. A run that does not end by
``KILL_AFTER`` times its limit (plus a minute) is killed and shown as such.
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


INPUT_CASES = [
    ("solve", "fs-kernel", "wine", ["--scale", "none", "--B", "2", "--method", "enumerate"]),
    ("solve", "fs-kernel", "wholesale", ["--scale", "none", "--B", "2", "--method",
                                         "enumerate"]),
    ("solve", "fs-kernel", "wine", ["--scale", "none", "--B", "2", "--method", "ls-star"]),
    ("solve", "fs-kernel", "wine", ["--scale", "none", "--B", "2", "--method", "bnb"]),
    ("solve", "smkl", "spambase", ["--method", "single"]),
    ("solve", "smkl", "spambase", ["--test-size", "0.6", "--method", "single"]),
    ("solve", "smkl", "spambase", ["--test-size", "0.6", "--method", "easymkl"]),
    ("solve", "smkl", "spambase", ["--test-size", "0.6", "--method", "cka"]),
    ("solve", "smkl", "spambase", ["--test-size", "0.6", "--method", "average"]),
    ("solve", "smkl", "spambase", ["--test-size", "0.6", "--method", "abr"]),
    ("solve", "smkl", "spambase", ["--test-size", "0.6", "--method", "exact"]),
    ("solve", "smkl", "spambase", ["--test-size", "0.6", "--method", "enumerate"]),
    ("solve", "smkl", "wine", ["--C", "1e6", "--lam", "0.01", "--method", "enumerate"]),
    ("solve", "smkl", "wine", ["--scale", "none", "--k0", "2", "--method", "abr"]),
    ("relax", "smkl", "ionosphere", ["--relaxation", "sdp-full"]),
    ("relax", "fs-linear", "sonar", ["--B", "10", "--relaxation", "shor-cop"]),
    ("solve", "fs-linear", "WIDE_SVMLIGHT", ["--B", "3", "--method", "fast"]),
]
KILL_AFTER = 6          # --set inputs: a run still going at KILL_AFTER x limit + 60 s is killed


def wide_svmlight(folder: Path) -> Path:
    """200 rows naming feature indices up to 1,349,942 (16 KB): the wide file of the
    catalogue, generated with a fixed seed."""
    import numpy as np

    path = folder / "wide.svm"
    rng = np.random.default_rng(0)
    with path.open("w") as fh:
        for i in range(200):
            y = 1 if i % 2 else -1
            feats = {int(j): rng.normal() for j in rng.choice(1_349_941, 5, replace=False) + 1}
            feats[7] = y + 0.3 * rng.normal()
            if i == 0:
                feats[1_349_942] = 1.0
            fh.write(f"{y} " + " ".join(f"{j}:{v:.4f}" for j, v in sorted(feats.items()))
                     + "\n")
    return path


def run_case(action: str, problem: str, data: str, args: list[str], limit: float,
             src: str | None = None, kill: float | None = None) -> dict:
    cmd = [*CLI, action, problem, "--data", data, *args, "--time-limit", str(limit), "--json"]
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    if src is not None:
        env["PYTHONPATH"] = src
    t0, c0 = time.perf_counter(), _children_cpu()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, env=env,
                           timeout=kill or 20 * limit + 120)
    except subprocess.TimeoutExpired:
        wall = time.perf_counter() - t0
        return {"command": " ".join([action, problem, "--data", Path(data).name, *args]),
                "limit": limit, "wall_s": round(wall, 2), "over_s": round(wall - limit, 2),
                "cpu_s": round(_children_cpu() - c0, 2), "exit": "killed"}
    wall = time.perf_counter() - t0
    out: dict = {"command": " ".join([action, problem, "--data", Path(data).name, *args]),
                 "limit": limit, "wall_s": round(wall, 2), "over_s": round(wall - limit, 2),
                 "cpu_s": round(_children_cpu() - c0, 2), "exit": r.returncode}
    try:
        payload = json.loads(r.stdout)
        out.update(status=payload.get("status"), termination=payload.get("termination"),
                   time_s=payload.get("time_s"), load_s=payload.get("load_s"))
    except ValueError:
        out["stderr"] = r.stderr.strip().splitlines()[-1:] if r.stderr else []
    return out


def _children_cpu() -> float:
    """CPU seconds of this process's finished children (user + system)."""
    t = os.times()
    return t.children_user + t.children_system


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
    ap.add_argument("--set", choices=("commands", "inputs"), default="commands")
    ap.add_argument("--src", help="run this source tree's sparsekm (PYTHONPATH)")
    ap.add_argument("--tag", default="after", help="name of this run (--set inputs)")
    args = ap.parse_args()
    if args.set == "inputs":
        inputs(args.limit, args.src, args.tag)
        return
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


def inputs(limit: float, src: str | None, tag: str) -> None:
    """The fresh-input cases, on ``src`` (None: this checkout), as ``tag``; then the side by
    side markdown of every tag written so far."""
    import tempfile

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        wide = str(wide_svmlight(Path(tmp)))
        for action, problem, data, extra in INPUT_CASES:
            data = wide if data == "WIDE_SVMLIGHT" else data
            row = run_case(action, problem, data, extra, limit, src, KILL_AFTER * limit + 60)
            rows.append(row)
            print(json.dumps(row), flush=True)
    load = os.getloadavg()
    OUT.mkdir(exist_ok=True)
    doc = {"tag": tag, "src": src or "this checkout", "limit": limit,
           "load_average": [round(x, 2) for x in load], "cases": rows}
    (OUT / f"time_limits_inputs_{tag}.json").write_text(json.dumps(doc, indent=1))
    tags = {p.stem.removeprefix("time_limits_inputs_"): json.loads(p.read_text())
            for p in sorted(OUT.glob("time_limits_inputs_*.json"))}
    order = sorted(tags, key=lambda t: (t != "before", t))
    lines = [f"# Time limits on the fresh-input cases (`--time-limit {limit:g}`)", "",
             "Wall seconds of each process (interpreter start to exit) and its CPU seconds, "
             "against its limit; `killed`: still running at "
             f"{KILL_AFTER} x the limit + 60 s. Tags: "
             + "; ".join(f"`{t}` = {tags[t]['src']} (load {tags[t]['load_average'][0]})"
                         for t in order)
             + ". Written by `benchmarks/bench_time_limits.py --set inputs`.", "",
             "| command | " + " | ".join(f"{t} wall s (cpu) | {t} exit" for t in order) + " |",
             "|---|" + "---|---|" * len(order)]
    for i, (action, problem, data, extra) in enumerate(INPUT_CASES):
        cells = []
        for t in order:
            r = tags[t]["cases"][i]
            cells += [f"{r['wall_s']} ({r.get('cpu_s')})", str(r["exit"])]
        name = "wide.svm (200 rows, index 1349942)" if data == "WIDE_SVMLIGHT" else data
        lines.append(f"| `{action} {problem} --data {name} {' '.join(extra)}` | "
                     + " | ".join(cells) + " |")
    (OUT / "time_limits_inputs.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
