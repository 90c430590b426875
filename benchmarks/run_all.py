"""Run every experiment config and benchmark script of this folder (``make bench``).

Configs (``configs/*.toml``) run with ``sparsekm bench run``; their tables (markdown, CSV) and
figures are regenerated from the store into ``results/<name>.*``. Scripts (``bench_*.py``)
measure what a grid cannot (micro-benchmarks) and write their own results.

Usage: ``python benchmarks/run_all.py [--quick] [--workers N] [--report-only]
[name-substring ...]``
(``--quick``: the ``*_quick.toml`` configs instead of the paper-sized ones, and ``--quick``
for the scripts).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


def _sh(cmd: list[str]) -> int:
    print("$", " ".join(cmd), flush=True)
    return subprocess.call(cmd)


def run_config(cfg: Path, workers: str | None, run: bool = True) -> int:
    """Run the grid (unless ``run`` is False), then write its report (md, csv) and plots from
    the store (or from its committed run log when the store file is absent)."""
    from sparsekm.experiments import load_config

    name = load_config(cfg).name
    bench = [sys.executable, "-m", "sparsekm.cli.app", "bench"]
    rc = _sh(bench + ["run", str(cfg)] + (["--workers", workers] if workers else [])) \
        if run else 0
    for fmt, ext in (("markdown", "md"), ("csv", "csv")):
        rc |= _sh(bench + ["report", str(cfg), "--format", fmt, "-o",
                           str(RESULTS / f"{name}.{ext}")])
    rc |= _sh(bench + ["plot", str(cfg), "--out", str(RESULTS / "figures")])
    return rc


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--workers", default=None)
    ap.add_argument("--report-only", action="store_true",
                    help="write the reports and figures from the stores, run nothing")
    ap.add_argument("filters", nargs="*")
    a = ap.parse_args()
    configs = sorted(p for p in (HERE / "configs").glob("*.toml")
                     if p.stem.endswith("_quick") == a.quick
                     or (a.quick and not (p.parent / f"{p.stem}_quick.toml").exists()
                         and not p.stem.endswith("_quick")))
    scripts = sorted(HERE.glob("bench_*.py"))
    failed = []
    for item in configs + ([] if a.report_only else scripts):
        if a.filters and not any(f in item.name for f in a.filters):
            continue
        t0 = time.perf_counter()
        print(f"== {item.name}", flush=True)
        if item.suffix == ".toml":
            rc = run_config(item, a.workers, run=not a.report_only)
        else:
            rc = _sh([sys.executable, str(item)] + (["--quick"] if a.quick and
                                                     item.name == "bench_fs_kernel.py" else []))
        print(f"== {item.name}: exit {rc} in {time.perf_counter() - t0:.1f} s", flush=True)
        if rc:
            failed.append(item.name)
    if failed:
        print("failed:", ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
