"""Shared test fixtures."""

from __future__ import annotations

import os

import numpy as np
import pytest

# Keep BLAS single-threaded so pytest-xdist workers do not oversubscribe the 2 cores.
os.environ.setdefault("OMP_NUM_THREADS", "1")


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(0)


@pytest.fixture(autouse=True)
def _isolated_solver_config(monkeypatch, tmp_path_factory):
    """Tests must not pick up a developer's sparsekm.toml or SPARSEKM_* variables."""
    for key in list(os.environ):
        if key.startswith("SPARSEKM_SOLVER") or key == "SPARSEKM_CONFIG":
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))
