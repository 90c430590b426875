"""Paper D, Algorithm 4 iteration log (LB / UB / gap per SR-DLMP(K)) from the results store.

The run itself is an experiment config (``benchmarks/configs/paperD_exact_log.toml``, run by
``sparsekm bench`` like every other experiment); a table of one run's iterations is not a grid
report, so this script prints it from the stored payload (running the config first if needed).

    PYTHONPATH=src python benchmarks/bench_fs_linear_exact.py [CONFIG.toml]

Writes benchmarks/results/fs_linear_exact_<data>_B<B>.md.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from sparsekm.experiments import Store, load_config, run_experiment, runs_frame

HERE = Path(__file__).resolve().parent


def _cell(v: object) -> str:
    return f"{v:.6g}" if isinstance(v, float) else str(v)


def main(config: str) -> None:
    cfg = load_config(config)
    run_experiment(cfg, workers=0)
    runs = runs_frame(cfg)
    payloads = Store(cfg.store_path).load(list(runs["key"])).set_index("key")["payload"]
    for r in runs.itertuples():
        p = json.loads(payloads[r.key])
        log = p.get("iterations") or []
        cols = list(dict.fromkeys(k for row in log for k in row))
        gap = "-" if r.gap is None else f"{100 * r.gap:.2f} %"
        lines = [f"# Paper D, Algorithm 4 on {r.data} (m = {p['m']}, n = {p['n']}), "
                 f"B = {p['params']['B']}, C = {p['params']['C']:g}", "",
                 f"From `sparsekm bench run {Path(config).name}` (store "
                 f"`{cfg.store_path.name}`): status {r.status}, objective {r.objective:.6g}, "
                 f"lower bound {_cell(r.lower_bound)}, gap {gap}, {r.time_s:.0f} s, "
                 f"solver {r.solver}.", "",
                 "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        lines += ["| " + " | ".join(_cell(row.get(c, "-")) for c in cols) + " |" for row in log]
        out = HERE / "results" / f"fs_linear_exact_{r.data}_B{p['params']['B']}.md"
        out.write_text("\n".join(lines) + "\n")
        print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else str(HERE / "configs" / "paperD_exact_log.toml"))
