"""Run the worked examples of ``docs/topics/export.md`` and keep their real output.

Each example is a shell command run in a scratch folder (default
``/tmp/sparsekm-export-examples``) that holds a copy of ``benchmarks/library`` (so
``library certify`` and ``confirm`` write their records into the copy, never into the
repository) and the reader scripts of ``docs/examples/export/`` (SCIP, HiGHS, MOSEK +
Clarabel, the sidecar excerpt). Its output goes to ``docs/examples/export/NAME.txt`` as
``$ command``, what it printed and ``[exit N]`` when it failed; the page includes those files.
The date and machine load of each run go in ``docs/examples/export/RUN.txt``. Run
``python tools/docs_export_examples.py [name ...]`` (all in order: later examples read the
files earlier ones wrote) after a change that moves a number.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from docs_examples import record_runs, unknown_names

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "examples" / "export"
SCRATCH = Path(os.environ.get("SPARSEKM_EXAMPLES", "/tmp/sparsekm-export-examples"))
D8 = "--data cleveland --B 5 --C 10 --test-size 0.2 --seed 0"     # D-T8-cleveland-B5
TINY = "--data cleveland --rows 60 --B 3 --C 1"                    # the round-trip tests'

EXAMPLES: dict[str, str] = {
    "export_bigm": f"sparsekm export fs-linear {D8} --form bigm --format mps "
                   "--out cleveland-bigm.mps",
    "sidecar": "python sidecar_excerpt.py cleveland-bigm.mps.json",
    "export_refused": f"sparsekm export fs-linear {TINY} --form shor-cop --format mps",
    "scip_bigm": "python scip_read.py cleveland-bigm.mps cleveland-bigm.sol",
    "highs_bigm": "python highs_read.py cleveland-bigm.mps 2,7,9,11,12",
    "relax_box": f"sparsekm relax fs-linear {D8} --relaxation box -o M=44.55366648867596",
    "relax_dscop": f"sparsekm relax fs-linear {TINY} --relaxation dscop",
    "dscop_lp": f"sparsekm export fs-linear {TINY} --form dscop --format lp --out dscop.lp "
                "&& python scip_read.py dscop.lp",
    "dscop_cbf": f"sparsekm export fs-linear {TINY} --form dscop --conic sdp --format cbf "
                 "--out dscop.cbf && head -n 20 dscop.cbf && python cbf_read.py dscop.cbf",
    "check_support": "echo '{\"support\": [2, 7, 9, 11, 12]}' > support.json && "
                     f"sparsekm check fs-linear support.json {D8}",
    "check_sol": f"sparsekm check fs-linear cleveland-bigm.sol {D8}",
    "check_malformed": "sed 's/^w(2) .*/w(2) abc/' cleveland-bigm.sol > malformed.sol && "
                       f"sparsekm check fs-linear malformed.sol {D8}",
    "check_infeasible": "(cat cleveland-bigm.sol; echo 'w(0) 0.5') > moved.sol && "
                        f"sparsekm check fs-linear moved.sol {D8}",
    "sol_head": "head -n 6 cleveland-bigm.sol",
    "library_status": "sparsekm library status --only 'D-T8-*'",
    "library_build": "sparsekm library build --only D-T8-cleveland-B5 --only 'B-T6-iris' "
                     "--out lib && ls lib/*",
    "library_certify": "sparsekm library certify --only B-T6-spambase --time-limit 45 && "
                       "python -c \"import json; runs = json.load(open('benchmarks/library/"
                       "records/B-T6-spambase.json'))['runs']; [print({k: r[k] for k in ("
                       "'kind', 'resumed', 'status', 'objective', 'bound', 'nodes', 'wall_s', "
                       "'cpu_s', 'time_limit')}) for r in runs]\"",
    "library_certify_stale": "sparsekm library certify --only D-T8-breast_cancer_diagnostic-B5"
                             " --time-limit 20",
    "library_confirm": "sparsekm library confirm --only D-T8-wholesale-B5",
}


def _scratch() -> None:
    """A fresh scratch folder with the library's copy and the reader scripts."""
    if SCRATCH.exists():
        shutil.rmtree(SCRATCH)
    shutil.copytree(ROOT / "benchmarks" / "library", SCRATCH / "benchmarks" / "library")
    for script in OUT.glob("*.py"):
        shutil.copy(script, SCRATCH / script.name)


def run(name: str, command: str) -> float:
    """Run one example in the scratch folder and write its file; returns its seconds."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "COLUMNS": "100"}
    t0 = time.perf_counter()
    proc = subprocess.run(command, shell=True, cwd=SCRATCH, env=env, capture_output=True,
                          text=True, check=False)
    seconds = time.perf_counter() - t0
    status = "" if proc.returncode == 0 else f"[exit {proc.returncode}]\n"
    (OUT / f"{name}.txt").write_text(f"$ {command}\n{proc.stdout}{proc.stderr}{status}")
    return seconds


def main(names: list[str]) -> int:
    chosen = names or list(EXAMPLES)
    if unknown_names(chosen, EXAMPLES):
        return 2
    if not names or not SCRATCH.exists():
        _scratch()
    record_runs(OUT, EXAMPLES, chosen, run)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
