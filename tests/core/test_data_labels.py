"""How a file's classes become -1 / +1, and the JSON that says so (``labels``)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from sparsekm.cli.app import app
from sparsekm.data import as_dataset, load_csv

ROWS = [(1.0, 2.0, "M"), (1.5, 2.5, "B"), (0.3, 1.0, "M"), (0.9, 0.1, "B"), (2.0, 1.2, "M"),
        (0.1, 0.4, "B"), (1.1, 0.7, "B")]


@pytest.fixture
def csv_file(tmp_path):
    path = tmp_path / "tumours.csv"
    path.write_text("radius,texture,diagnosis\n" +
                    "".join(f"{a},{b},{c}\n" for a, b, c in ROWS))
    return path


def test_two_string_classes_map_the_alphabetically_larger_to_plus_one(csv_file) -> None:
    ds = load_csv(csv_file, label="diagnosis")
    assert ds.labels == {"M": 1, "B": -1} and list(ds.labels) == ["M", "B"]
    assert ds.y.tolist() == [1.0 if c == "M" else -1.0 for _, _, c in ROWS]
    other = load_csv(csv_file, label="diagnosis", positive_class="B")
    assert other.labels == {"B": 1, "M": -1}
    np.testing.assert_array_equal(other.y, -ds.y)
    # the mapping survives row subsets, feature subsets and splits
    assert ds.head(3).labels == ds.subset_features([1]).labels == ds.labels


def test_numbers_compare_numerically_and_one_vs_rest_lists_every_class() -> None:
    X = np.arange(12.0).reshape(6, 2)
    assert as_dataset(X, [2, 10, 2, 10, 2, 10]).labels == {"10": 1, "2": -1}  # not "10" < "2"
    three = as_dataset(X, ["a", "b", "c", "a", "b", "c"], positive_class="b")
    assert three.labels == {"b": 1, "a": -1, "c": -1}
    assert three.y.tolist() == [-1.0, 1.0, -1.0, -1.0, 1.0, -1.0]


def test_the_json_records_the_mapping(csv_file) -> None:
    cli = CliRunner()
    for extra, expected in (([], {"M": 1, "B": -1}), (["--positive-class", "B"],
                                                       {"B": 1, "M": -1})):
        res = cli.invoke(app, ["solve", "svm", "--data", str(csv_file), "--label", "diagnosis",
                               "--kernel", "linear", "--json", *extra])
        assert res.exit_code == 0, res.output
        assert json.loads(res.stdout)["labels"] == expected
