"""Run the documentation's worked examples and keep their real output.

Each example is a shell command (``sparsekm ...``, or ``python -c``/a here-document for the
Python front door); its output is written to ``docs/examples/<name>.txt`` as ``$ command``
followed by what it printed (JSON pretty-printed), and the guides include those files. The
examples on a user's own files (``own_*``) run in a fresh folder where
``docs/examples/own_data_files.py`` wrote them. Run
``make docs-examples`` (or ``python tools/docs_examples.py [name ...]``) after a change that
moves a number; the date and machine load of the run go in ``docs/examples/RUN.txt``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "examples"

EXAMPLES: dict[str, str] = {
    "fs_linear_fast": "sparsekm solve fs-linear --data breast_cancer_diagnostic --B 5 --C 1 "
                      "--method fast --json",
    "fs_linear_bnb": "sparsekm solve fs-linear --data wholesale --B 3 --C 10 --method bnb "
                     "--json",
    "fs_linear_relax": "sparsekm relax fs-linear --data wholesale --B 3 --C 10 "
                       "--relaxation dscop --json",
    "fs_linear_path": "sparsekm path fs-linear --data wholesale --B 1:4 --C 10 --bound",
    "fs_kernel_ls_star": "sparsekm solve fs-kernel --data cleveland --kernel poly --degree 2 "
                         "--B 4 --method ls-star --starts 3 --json",
    "fs_kernel_bnb": "sparsekm solve fs-kernel --data cleveland --kernel poly --degree 2 --B 3 "
                     "--method bnb --json",
    "fs_kernel_bnb_paper": "sparsekm solve fs-kernel --data breast_cancer_diagnostic "
                           "--train-rows 50 --kernel poly --degree 2 --sense paper --method bnb "
                           "--workers 2 --json",
    "smkl_exact": "sparsekm solve smkl --data ionosphere --kernels paper10 --k0 2 "
                  "--method exact --json",
    "smkl_relax": "sparsekm relax smkl --data ionosphere --kernels paper10 --k0 2 "
                  "--relaxation soc-basis --json",
    "sklr_smo2": "sparsekm solve sklr --data sonar --C 10 --lam 0.1 --method smo2 --json",
    "minmax_fs_fast": "sparsekm solve minmax-fs --data wine --C 10 --gamma0 0.5 --C2 0.5 "
                      "--method fast --json",
    "svm": "sparsekm solve svm --data sonar --kernel rbf --gamma 0.05 --C 10 --json",
    "user_mistake": "sparsekm solve fs-linear --data wholesale --B 3 --C 0",
    "python_tour": "python docs/examples/tour.py",
    "formulation": "python docs/examples/formulation.py",
    "demo": "sparsekm demo",
    "own_data_fast": "sparsekm solve fs-linear --data tumours.csv --label diagnosis --B 3 --C 1 "
                     "--test-size 0.2 --method fast --json",
    "own_data_bnb": "sparsekm solve fs-linear --data tumours.csv --label diagnosis --B 3 --C 1 "
                    "--test-size 0.2 --method bnb --time-limit 60 --json",
    "own_data_positive": "sparsekm solve fs-linear --data tumours.csv --label diagnosis --B 3 "
                         "--C 1 --test-size 0.2 --method bnb --time-limit 60 "
                         "--positive-class B --json",
    "own_data_svmlight": "sparsekm solve fs-linear --data tumours.svm --B 3 --C 1 "
                         "--test-size 0.2 --method bnb --time-limit 60 --json",
}
# examples on the user's own files: run in a fresh folder where this script wrote them
SETUP = {name: "docs/examples/own_data_files.py" for name in EXAMPLES if name.startswith("own_")}


def _shown(text: str) -> str:
    """JSON output pretty-printed (it is one object on stdout), anything else as printed."""
    try:
        return json.dumps(json.loads(text), indent=2) + "\n"
    except ValueError:
        return text


def run(name: str, command: str) -> float:
    """Run one example from the repository root and write its file; returns its seconds."""
    import tempfile

    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    with tempfile.TemporaryDirectory() as scratch:
        cwd = ROOT
        if name in SETUP:  # the user's own files, written into a fresh folder
            cwd = Path(scratch)
            subprocess.run([sys.executable, str(ROOT / SETUP[name])], cwd=cwd, env=env,
                           capture_output=True, check=True)
        t0 = time.perf_counter()
        proc = subprocess.run(command, shell=True, cwd=cwd, env=env, capture_output=True,
                              text=True, check=False)
        seconds = time.perf_counter() - t0
    shown = _shown(proc.stdout) + proc.stderr
    status = "" if proc.returncode == 0 else f"[exit {proc.returncode}]\n"
    (OUT / f"{name}.txt").write_text(f"$ {command}\n{shown}{status}")
    return seconds


def record_runs(out: Path, examples: dict[str, str], chosen: list[str],
                run_one: Callable[[str, str], float]) -> None:
    """Run ``chosen`` of ``examples`` by ``run_one`` and keep each one's wall time, date and
    machine load in ``out/RUN.txt`` (the other examples' lines stay)."""
    record = out / "RUN.txt"
    lines = dict(line.split(": ", 1) for line in record.read_text().splitlines()
                 if ": " in line) if record.exists() else {}
    for name in chosen:
        seconds = run_one(name, examples[name])
        stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        lines[name] = (f"{seconds:.1f} s wall, {stamp}, {os.cpu_count()} cores, load average "
                       f"{os.getloadavg()[0]:.1f}")
        print(f"{name}: {lines[name]}", flush=True)
    record.write_text("".join(f"{k}: {v}\n" for k, v in lines.items() if k in examples))


def unknown_names(chosen: list[str], examples: dict[str, str]) -> bool:
    """True (after saying so on stderr) when ``chosen`` names an example that does not exist."""
    unknown = [n for n in chosen if n not in examples]
    if unknown:
        print(f"unknown examples {unknown}; known: {list(examples)}", file=sys.stderr)
    return bool(unknown)


def main(names: list[str]) -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    chosen = names or list(EXAMPLES)
    if unknown_names(chosen, EXAMPLES):
        return 2
    record_runs(OUT, EXAMPLES, chosen, run)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
