"""A grid's ``[run] imports`` file that this process imported already under its own name (a
notebook's ``import my_runners``, then ``run_experiment``) is not executed a second time: its
entries would be registered twice (the registry refuses that)."""

from __future__ import annotations

import importlib
import sys

from sparsekm.experiments.child import import_plugin

MODULE = """
import os

with open(os.environ["PLUGIN_TWICE_LOG"], "a") as fh:   # one line per execution
    fh.write("executed\\n")
"""


def test_a_file_imported_by_name_is_not_executed_again(tmp_path, monkeypatch) -> None:
    log = tmp_path / "log.txt"
    monkeypatch.setenv("PLUGIN_TWICE_LOG", str(log))
    (tmp_path / "plugin_twice.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        importlib.import_module("plugin_twice")              # the notebook's import
        import_plugin(str(tmp_path / "plugin_twice.py"))     # the grid's: not again
        import_plugin(str(tmp_path / "plugin_twice.py"))
        assert log.read_text().splitlines() == ["executed"]
        assert "sparsekm_plugin_plugin_twice" not in sys.modules
        (tmp_path / "other.py").write_text(MODULE)            # a file not imported yet runs
        import_plugin(str(tmp_path / "other.py"))
        assert log.read_text().splitlines() == ["executed", "executed"]
    finally:
        for name in ("plugin_twice", "sparsekm_plugin_other"):
            sys.modules.pop(name, None)
