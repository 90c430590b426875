"""Fixtures of the experiment tests: configs written to a temporary folder, one Dask cluster."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

PLUGIN = Path(__file__).with_name("plugin_runners.py")


@pytest.fixture
def write_config(tmp_path: Path) -> Callable[..., Path]:
    """``write_config(text, name="grid.toml")``: the TOML file (``PLUGIN`` in it is replaced by
    the test runners' path)."""

    def write(text: str, name: str = "grid.toml") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text).replace("PLUGIN", str(PLUGIN)))
        return path

    return write


@pytest.fixture(scope="session")
def dask_client() -> Iterator[object]:
    """One 2-worker LocalCluster for the whole session (starting one costs seconds)."""
    from sparsekm.experiments.execute import dask_client as make_client

    with make_client(workers=2) as client:
        yield client
