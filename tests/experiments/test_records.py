"""The committed run log: a store rebuilt from it on a fresh machine, nothing run twice."""

from __future__ import annotations

import textwrap

from sparsekm.experiments.config import check_runners, loads_config
from sparsekm.experiments.execute import run_experiment, status
from sparsekm.experiments.store import Store


def test_a_lost_store_is_rebuilt_from_its_log_and_nothing_runs_twice(tmp_path) -> None:
    cfg = check_runners(loads_config(textwrap.dedent("""
        name = "log"
        store = "s.duckdb"
        [grid]
        problem = "svm"
        data = ["wine"]
        seed = [0, 1]
        [grid.params]
        C = [1.0, 10.0]
        test_size = [0.3]
    """), base_dir=tmp_path))
    first = run_experiment(cfg, workers=0, progress=False)
    assert first["ran"] == 4 and first["done"] == 4
    store = Store(tmp_path / "s.duckdb")
    before = store.load().set_index("key")[["objective", "status"]].sort_index()
    assert store.records_path.name == "s.records.jsonl.gz" and store.records_path.is_file()
    (tmp_path / "s.duckdb").unlink()                     # a fresh clone: no store file
    assert status(cfg) == {"total": 4, "done": 4, "failed": 0, "pending": 0}
    assert store.load()["objective"].notna().all()       # the report reads the log
    again = run_experiment(cfg, workers=0, progress=False)
    assert again["ran"] == 0 and again["done"] == 4      # rebuilt, nothing rerun
    after = Store(tmp_path / "s.duckdb").load().set_index("key")[["objective", "status"]]
    assert after.sort_index().equals(before)
