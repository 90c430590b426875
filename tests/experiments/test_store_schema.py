"""The store keeps each run's ``sense`` and ``upper_bound`` (a maximisation's certified bound),
migrates a store written without them, and reports and plots ``upper_bound`` when a config
asks for it; every plot kind draws from a store (synthetic rows: no runs)."""

from __future__ import annotations

import json

import duckdb
import numpy as np
import pandas as pd
import pytest

from sparsekm.experiments import Store, load_config
from sparsekm.experiments.grid import expand
from sparsekm.experiments.plots import KINDS, plot
from sparsekm.experiments.store import COLUMNS, SCHEMA_VERSION, make_record
from sparsekm.experiments.tables import report, report_frame, runs_frame

OLD_COLUMNS = [(c, t) for c, t in COLUMNS if c not in ("sense", "upper_bound")]

GRID = """
name = "synthetic"
store = "synthetic.duckdb"
[grid]
problem = "svm"
data = ["wine", "iris", "sonar"]
seed = [0, 1, 2, 3]
[grid.params]
C = [1.0, 2.0, 3.0]
kernel = ["linear"]
[run]
preload = []
[report]
rows = ["data"]
columns = ["C"]
values = ["objective", "upper_bound", "gap"]
sense = "max"
"""


def _row(key: str, payload: dict, **extra) -> dict:
    return {"key": key, "experiment": "old", "version": "0", "problem": "svm", "action": "solve",
            "data": "wine", "method": None, "seed": 0, "config": "{}",
            "status": payload.get("status"), "objective": payload.get("objective"),
            "payload": json.dumps(payload), **extra}


def test_make_record_keeps_sense_and_the_bound_on_its_side() -> None:
    spec = {"key": "k", "experiment": "e", "version": "v", "problem": "fs-kernel",
            "action": "solve", "labels": {"data": "wine", "seed": 0}, "opts": {}, "params": {}}
    up = make_record(spec, {"payload": {"status": "optimal", "sense": "max", "objective": 2.0,
                                        "upper_bound": 2.5, "gap": 0.2}})
    assert (up["sense"], up["upper_bound"], up["lower_bound"]) == ("max", 2.5, None)
    down = make_record(spec, {"payload": {"status": "optimal", "sense": "min", "objective": 2.0,
                                          "lower_bound": 1.5}})
    assert (down["sense"], down["upper_bound"], down["lower_bound"]) == ("min", None, 1.5)
    failed = make_record(spec, {"status": "error", "message": "boom"})
    assert failed.get("sense") is None and failed.get("upper_bound") is None


def test_a_schema_1_store_is_read_then_migrated(tmp_path) -> None:
    path = tmp_path / "old.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE meta (k VARCHAR PRIMARY KEY, v VARCHAR)")
    con.execute("INSERT INTO meta VALUES ('schema_version', '1')")
    con.execute("CREATE TABLE runs (" + ", ".join(f"{c} {t}" for c, t in OLD_COLUMNS) + ")")
    old = _row("a", {"status": "optimal", "sense": "max", "objective": 3.0, "upper_bound": 3.5})
    before = _row("b", {"status": "optimal", "objective": 1.0, "lower_bound": 0.5})
    for r in (old, before):
        names = list(r)
        con.execute(f"INSERT INTO runs ({', '.join(names)}) VALUES "
                    f"({', '.join('?' for _ in names)})", [r[n] for n in names])
    con.close()

    store = Store(path)
    df = store.load().set_index("key")  # read-only: the columns come from the payloads
    assert df.loc["a", "sense"] == "max" and df.loc["a", "upper_bound"] == 3.5
    assert pd.isna(df.loc["b", "sense"]) and pd.isna(df.loc["b", "upper_bound"])
    new = _row("c", {"status": "optimal", "sense": "max", "objective": 5.0, "upper_bound": 6.0},
               sense="max", upper_bound=6.0)
    store.write([new])  # the first write migrates: columns added, old rows filled in
    with store.connect() as con:
        cols = [r[0] for r in con.execute("SELECT column_name FROM information_schema.columns "
                                          "WHERE table_name = 'runs'").fetchall()]
        assert cols == [c for c, _ in COLUMNS]  # the layout of a new store
        assert con.execute("SELECT v FROM meta").fetchone()[0] == str(SCHEMA_VERSION)
        got = dict((k, (s, u)) for k, s, u in con.execute(
            "SELECT key, sense, upper_bound FROM runs").fetchall())
    assert got == {"a": ("max", 3.5), "b": (None, None), "c": ("max", 6.0)}
    store.write([new])  # an up-to-date store: no migration again
    assert len(store.load()) == 3


def test_a_store_of_an_unknown_schema_is_refused(tmp_path) -> None:
    path = tmp_path / "future.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE meta (k VARCHAR PRIMARY KEY, v VARCHAR)")
    con.execute("INSERT INTO meta VALUES ('schema_version', '99')")
    con.close()
    with pytest.raises(ValueError, match="schema 99"):
        Store(path).write([_row("a", {"status": "optimal"})])


def _synthetic_store(cfg) -> None:
    """A row per run of the grid, without running: objectives, bounds, starts, accuracies."""
    rng = np.random.default_rng(7)
    rows = []
    for i, s in enumerate(expand(cfg)):
        obj = 10.0 + s.labels["C"] + rng.normal()
        ok = i % 9 != 4
        payload = {"status": "optimal" if ok else "error", "sense": "max",
                   "start_times_s": list(rng.random(3))}
        rows.append({"key": s.key, "experiment": cfg.name, "version": s.version,
                     "problem": "svm", "action": "solve", "data": s.labels["data"],
                     "method": None, "seed": s.labels["seed"], "config": "{}",
                     "status": payload["status"], "sense": "max",
                     "objective": obj if ok else None, "upper_bound": obj + 0.5 if ok else None,
                     "gap": 0.5 / obj if ok else None, "time_s": float(1 + rng.random()),
                     "n_selected": int(rng.integers(2, 6)), "selected": [0, 1],
                     "start_objectives": list(obj - rng.random(4)) if ok else None,
                     "test_accuracy": float(rng.random()), "payload": json.dumps(payload)})
    Store(cfg.store_path).write(rows)


def test_upper_bound_is_reported_and_every_kind_draws(write_config, tmp_path) -> None:
    cfg = load_config(write_config(GRID))
    _synthetic_store(cfg)
    runs = runs_frame(cfg)
    cols = list(runs.columns)
    assert cols[cols.index("lower_bound") + 1] == "upper_bound"
    assert runs["upper_bound"].notna().sum() == runs["objective"].notna().sum() > 0
    tab = report_frame(cfg)
    for data in ("wine", "iris", "sonar"):
        for c in (1.0, 2.0, 3.0):
            mine = runs[(runs["data"] == data) & (runs["C"] == c) & runs["objective"].notna()]
            best = mine.loc[mine["objective"].idxmax()]  # sense = "max": the best is the largest
            assert tab.loc[data, (str(c), "upper_bound")] == pytest.approx(best["upper_bound"])
    assert "| 1.0 upper bound |" in report(cfg, "markdown")
    files = plot(cfg, tmp_path / "figs", kinds=KINDS)
    assert {f.name for f in files} == {f"synthetic_{k}.{e}" for k in KINDS
                                       for e in ("png", "svg")}
    assert all(f.stat().st_size > 1000 for f in files)
