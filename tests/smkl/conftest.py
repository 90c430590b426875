"""Fixtures of the smkl tests."""

from __future__ import annotations

import pytest
from smkl_instances import small_problem

from sparsekm.models.smkl.problem import SMKLProblem


@pytest.fixture(scope="module")
def tiny() -> SMKLProblem:
    return small_problem()
