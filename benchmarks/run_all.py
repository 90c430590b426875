"""Run every benchmark script in this folder (``make bench``); each writes benchmarks/results/.

Usage: ``python benchmarks/run_all.py [name-substring ...]``.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(filters: list[str]) -> int:
    scripts = sorted(p for p in HERE.glob("bench_*.py")
                     if not filters or any(f in p.name for f in filters))
    failed = []
    for script in scripts:
        t0 = time.perf_counter()
        print(f"== {script.name}", flush=True)
        rc = subprocess.call([sys.executable, str(script)])
        print(f"== {script.name}: exit {rc} in {time.perf_counter() - t0:.1f} s", flush=True)
        if rc:
            failed.append(script.name)
    if failed:
        print("failed:", ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
