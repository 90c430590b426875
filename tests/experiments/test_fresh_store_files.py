"""Fresh store files a new user points ``store`` at: an SQLite database (DuckDB tried to attach
it and fetch its ``sqlite_scanner`` extension over the network, then said "make it readable
and writable"), an image, an empty file. Each is refused in one line naming the file before
DuckDB opens it, and left byte for byte as it was."""

from __future__ import annotations

import sqlite3

import pytest

from sparsekm.experiments.store import Store, StoreError


def _sqlite(path) -> None:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE runs (key TEXT, status TEXT, payload TEXT)")
    con.commit()
    con.close()


@pytest.mark.parametrize(("kind", "words"), [
    ("sqlite", "an SQLite database"), ("png", "it starts with b'\\x89PNG"),
    ("empty", "an empty file")])
def test_a_foreign_store_file_is_refused_before_duckdb_opens_it(tmp_path, monkeypatch, kind,
                                                                words):
    import duckdb

    path = tmp_path / "results.duckdb"
    if kind == "sqlite":
        _sqlite(path)
    elif kind == "png":
        path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    else:
        path.write_bytes(b"")
    before = path.read_bytes()
    opened = []
    real = duckdb.connect
    monkeypatch.setattr(duckdb, "connect", lambda *a, **k: opened.append(a) or real(*a, **k))
    for write in (False, True):
        with pytest.raises(StoreError) as err, Store(path).connect(write=write):
            pass
        line = str(err.value)
        assert "results.duckdb is not a DuckDB database" in line and words in line
        assert "set another `store`" in line and "\n" not in line
    assert path.read_bytes() == before
    assert kind == "empty" or not opened          # never handed to DuckDB


def test_a_duckdb_store_still_opens(tmp_path):
    path = tmp_path / "results.duckdb"
    with Store(path).connect(write=True) as con:
        con.execute("SELECT 1")
    assert path.read_bytes()[8:12] == b"DUCK"
    with Store(path).connect() as con:
        assert con.execute("SELECT count(*) FROM runs").fetchone() == (0,)
