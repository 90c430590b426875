"""Tests for sparsekm.data: bundled data sets, loaders, label mapping, errors, scaling, splits."""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
from importlib import resources

import numpy as np
import pandas as pd
import pytest

from sparsekm.data import (
    DataError,
    Dataset,
    Scaler,
    as_dataset,
    dataset_info,
    kfold_splits,
    list_datasets,
    load_csv,
    load_dataset,
    train_test_split,
)

DATA_DIR = resources.files("sparsekm.data").joinpath("datasets")


def _manifest_rows() -> dict[str, dict[str, object]]:
    """Parse the table of the bundled MANIFEST.md (independent of the registry code)."""
    rows = {}
    for line in DATA_DIR.joinpath("MANIFEST.md").read_text(encoding="utf-8").splitlines():
        if not line.startswith("| ") or line.startswith("| name"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows[cells[0]] = {
            "file": cells[1].strip("`"),
            "m": int(cells[2]),
            "n": int(cells[3]),
            "pos_pct": float(cells[4].split("/")[0]),
            "citation": cells[6],
        }
    return rows


MANIFEST = _manifest_rows()
NAN_DATASETS = {"heart": 6, "breast_cancer_prognostic": 4, "mammographic": 162}


# ----------------------------------------------------------------------------- bundled data


def test_manifest_registry_and_files_agree():
    assert len(MANIFEST) == 30
    assert list_datasets() == sorted(MANIFEST)
    files = sorted(p.name for p in DATA_DIR.iterdir() if p.name.endswith((".csv", ".csv.gz")))
    assert files == sorted(row["file"] for row in MANIFEST.values())
    # files above ~300 KB are gzipped
    for p in DATA_DIR.iterdir():
        if p.name.endswith(".csv"):
            assert len(p.read_bytes()) < 300_000, p.name


def test_sha256sums_match_bundled_files():
    lines = DATA_DIR.joinpath("SHA256SUMS").read_text().split("\n")
    sums = dict(reversed(line.split("  ")) for line in lines if line)
    assert sorted(sums) == sorted(row["file"] for row in MANIFEST.values())
    for fname, digest in sums.items():
        assert hashlib.sha256(DATA_DIR.joinpath(fname).read_bytes()).hexdigest() == digest, fname


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_bundled_dataset_matches_manifest(name):
    row = MANIFEST[name]
    ds = load_dataset(name, missing="zero")  # keeps every stored row
    assert (ds.m, ds.n) == (row["m"], row["n"])
    assert 100 * np.mean(ds.y == 1) == pytest.approx(row["pos_pct"], abs=0.051)
    assert ds.X.dtype == np.float64 and ds.X.flags.c_contiguous
    assert ds.y.dtype == np.float64 and set(np.unique(ds.y)) == {-1.0, 1.0}
    assert np.isfinite(ds.X).all()
    assert ds.name == name and ds.citation == row["citation"]
    # feature names are the file's own column names
    with DATA_DIR.joinpath(row["file"]).open("rb") as fh:
        header = pd.read_csv(
            fh, nrows=0, compression="gzip" if row["file"].endswith(".gz") else None
        ).columns
    assert ds.feature_names == [c for c in header if c not in ("label", "label_raw")]
    assert (ds.label_raw is not None) == ("label_raw" in header)
    info = dataset_info(name)
    assert set(info) == {
        "name", "m", "n", "positive_fraction", "citation", "source", "file", "missing", "notes"
    }
    assert (info["m"], info["n"], info["file"]) == (row["m"], row["n"], row["file"])
    assert info["positive_fraction"] == pytest.approx(np.mean(ds.y == 1))
    assert info["missing"] == NAN_DATASETS.get(name, 0)
    assert info["source"] and info["notes"]


def test_feature_names_of_known_files():
    assert load_dataset("diabetes").feature_names[:2] == ["pregnancies", "plasma_glucose"]
    assert load_dataset("breast_cancer_diagnostic").feature_names[0] == "mean radius"
    assert load_dataset("breast_cancer_diagnostic").X[0, 0] == pytest.approx(17.99)


@pytest.mark.parametrize(
    ("name", "m_drop"), [("heart", 297), ("breast_cancer_prognostic", 194), ("mammographic", 830)]
)
def test_missing_modes_on_bundled_data(name, m_drop):
    full = dataset_info(name)["m"]
    dropped = load_dataset(name)  # default: missing="drop"
    zeroed = load_dataset(name, missing="zero")
    assert dropped.m == m_drop and zeroed.m == full
    # zero mode adds exactly the NaN cells as zeros
    n_missing = dataset_info(name)["missing"]
    assert np.sum(zeroed.X == 0) - np.sum(dropped.X == 0) >= n_missing
    with pytest.raises(DataError, match=r"missing='drop'"):
        load_dataset(name, missing="error")


def test_heart_drop_equals_cleveland():
    heart, cleveland = load_dataset("heart"), load_dataset("cleveland")
    assert heart.m == 297 and load_dataset("heart", missing="zero").m == 303
    np.testing.assert_array_equal(heart.X, cleveland.X)
    np.testing.assert_array_equal(heart.y, cleveland.y)
    np.testing.assert_array_equal(heart.label_raw, cleveland.label_raw)


def test_drop_constant_ionosphere():
    full = load_dataset("ionosphere")
    reduced = load_dataset("ionosphere", drop_constant=True)
    assert (full.n, reduced.n) == (34, 33)
    assert "a2" in full.feature_names and "a2" not in reduced.feature_names
    assert reduced.feature_names == [f for f in full.feature_names if f != "a2"]
    np.testing.assert_array_equal(reduced.X, np.delete(full.X, 1, axis=1))


def test_label_raw_consistent_with_label():
    iris = load_dataset("iris")
    np.testing.assert_array_equal(iris.y == 1, iris.label_raw == "setosa")
    cleveland = load_dataset("cleveland")
    np.testing.assert_array_equal(cleveland.y == 1, cleveland.label_raw.astype(float) > 0)


def test_unknown_dataset_name():
    with pytest.raises(DataError, match="did you mean 'ionosphere'") as err:
        load_dataset("ionosphera")
    assert "wine" in str(err.value) and "available" in str(err.value)
    with pytest.raises(DataError, match="unknown dataset"):
        dataset_info("nope")


def test_bad_missing_mode():
    with pytest.raises(DataError, match="one of"):
        load_dataset("iris", missing="mean")


def test_data_package_does_not_read_shared_folder():
    src = resources.files("sparsekm.data")
    for module in ("loading.py", "registry.py", "validation.py"):
        assert "/work/shared" not in src.joinpath(module).read_text()


# ----------------------------------------------------------------------------- as_dataset


def test_as_dataset_dataframe_keeps_names_and_series_labels():
    df = pd.DataFrame({"age": [30, 40, 50, 60], "bmi": [20.5, 22.0, 30.1, 25.0]})
    ds = as_dataset(df, pd.Series(["B", "M", "M", "B"], index=[9, 8, 7, 6]), name="toy")
    assert ds.feature_names == ["age", "bmi"] and ds.name == "toy"
    np.testing.assert_array_equal(ds.y, [-1, 1, 1, -1])  # positional, "M" sorts last
    np.testing.assert_array_equal(ds.X[:, 1], [20.5, 22.0, 30.1, 25.0])
    renamed = as_dataset(df, [0, 1, 0, 1], feature_names=["a", "b"])
    assert renamed.feature_names == ["a", "b"]
    arr = as_dataset(np.asfortranarray(np.arange(6.0).reshape(3, 2)), [1, 2, 1])
    assert arr.feature_names == ["x0", "x1"] and arr.X.flags.c_contiguous


@pytest.mark.parametrize(
    ("labels", "positive_class", "expected"),
    [
        ([-1, 1, 1, -1], None, [-1, 1, 1, -1]),
        ([0, 1, 1, 0], None, [-1, 1, 1, -1]),
        ([1, 2, 2, 1], None, [-1, 1, 1, -1]),
        ([2.0, 4.0, 4.0, 2.0], None, [-1, 1, 1, -1]),
        (["B", "M", "M", "B"], None, [-1, 1, 1, -1]),
        (["B", "M", "M", "B"], "B", [1, -1, -1, 1]),
        ([1, 0, 0, 1], 0, [-1, 1, 1, -1]),
        ([False, True, True, False], None, [-1, 1, 1, -1]),
        (["a", "b", "c", "a"], "a", [1, -1, -1, 1]),  # one-vs-rest
        ([1, 2, 3, 3], 3, [-1, -1, 1, 1]),
    ],
)
def test_label_mapping(labels, positive_class, expected):
    ds = as_dataset(np.arange(8.0).reshape(4, 2), labels, positive_class=positive_class)
    np.testing.assert_array_equal(ds.y, expected)
    assert ds.y.dtype == np.float64


def test_as_dataset_missing_modes():
    X = np.array([[1.0, np.nan], [2.0, 3.0], [np.nan, 4.0], [5.0, 6.0]])
    y = [0, 1, 1, 0]
    dropped = as_dataset(X, y, missing="drop")
    np.testing.assert_array_equal(dropped.X, [[2.0, 3.0], [5.0, 6.0]])
    np.testing.assert_array_equal(dropped.y, [1, -1])
    zeroed = as_dataset(X, y, missing="zero")
    np.testing.assert_array_equal(zeroed.X, [[1.0, 0.0], [2.0, 3.0], [0.0, 4.0], [5.0, 6.0]])
    assert np.isnan(X).sum() == 2  # the input is not modified


def test_missing_drop_can_remove_a_class():
    X = np.array([[1.0, np.nan], [2.0, 3.0], [np.nan, 4.0], [5.0, 6.0]])
    with pytest.raises(DataError, match="fewer than two classes"):
        as_dataset(X, [0, 1, 0, 1], missing="drop")


# ----------------------------------------------------------------------------- refusals


def test_error_nan_and_inf_names_count_and_columns():
    df = pd.DataFrame({"a": [1.0, np.nan, 3.0], "b": [np.inf, np.nan, 1.0], "c": [1.0, 2, 3]})
    with pytest.raises(DataError, match=r"3 NaN/inf values \(columns: a, b\).*missing='drop'"):
        as_dataset(df, [0, 1, 1])
    with pytest.raises(DataError, match=r"1 inf values \(columns: b\)"):
        as_dataset(df, [0, 1, 1], missing="zero")


def test_error_one_class():
    with pytest.raises(DataError, match="fewer than two classes"):
        as_dataset(np.ones((3, 2)), [1, 1, 1])


def test_error_many_classes_without_positive_class():
    with pytest.raises(DataError, match=r"3 classes.*positive_class"):
        as_dataset(np.ones((3, 2)), ["x", "y", "z"])


def test_error_positive_class_not_present():
    with pytest.raises(DataError, match="does not occur"):
        as_dataset(np.ones((3, 2)), [0, 1, 1], positive_class=5)


def test_error_non_numeric_columns_named():
    df = pd.DataFrame({"num": [1.0, 2.0], "city": ["Rome", "Oslo"], "kind": ["a", "b"]})
    with pytest.raises(DataError, match=r"non-numeric feature columns: city, kind.*one-hot"):
        as_dataset(df, [0, 1])
    # object columns holding numbers are fine
    ok = as_dataset(pd.DataFrame({"v": pd.Series([1, 2], dtype=object)}), [0, 1])
    np.testing.assert_array_equal(ok.X[:, 0], [1.0, 2.0])


@pytest.mark.parametrize("X", [np.zeros((0, 3)), np.zeros((3, 0))])
def test_error_empty(X):
    with pytest.raises(DataError, match="empty data"):
        as_dataset(X, [0, 1, 1][: X.shape[0]])


def test_error_shape_mismatch_and_dims():
    with pytest.raises(DataError, match=r"X has 3 rows but y has 2 labels"):
        as_dataset(np.ones((3, 2)), [0, 1])
    with pytest.raises(DataError, match="reshape"):
        as_dataset(np.ones(3), [0, 1, 1])
    with pytest.raises(DataError, match="one name per column"):
        as_dataset(np.ones((2, 2)), [0, 1], feature_names=["a"])


def test_error_missing_labels():
    with pytest.raises(DataError, match="2 missing labels"):
        as_dataset(np.ones((4, 1)), [0, None, 1, np.nan])


# ----------------------------------------------------------------------------- load_csv


def test_load_csv_roundtrip_with_label_raw_and_drop_columns(tmp_path):
    df = pd.DataFrame(
        {
            "id": ["r1", "r2", "r3", "r4"],
            "f1": [1.0, 2.0, 3.0, 4.0],
            "f2": [0.5, 0.25, 0.0, -1.0],
            "label_raw": ["cat", "dog", "cow", "dog"],
            "diagnosis": ["M", "B", "B", "M"],
        }
    )
    path = tmp_path / "toy.csv.gz"
    df.to_csv(path, index=False)
    ds = load_csv(path, label="diagnosis", drop_columns=["id"])
    assert ds.name == "toy" and ds.feature_names == ["f1", "f2"]
    np.testing.assert_array_equal(ds.y, [1, -1, -1, 1])
    np.testing.assert_array_equal(ds.label_raw, ["cat", "dog", "cow", "dog"])
    ovr = load_csv(path, label="label_raw", positive_class="dog", drop_columns=["id", "diagnosis"])
    np.testing.assert_array_equal(ovr.y, [-1, 1, -1, 1])
    assert ovr.label_raw is None


def test_load_csv_errors(tmp_path):
    path = tmp_path / "bad.csv"
    pd.DataFrame({"id": ["a", "b"], "x": [1.0, np.nan], "target": [0, 1]}).to_csv(
        path, index=False
    )
    with pytest.raises(DataError, match=r"no label column 'label'.*id, x, target.*label="):
        load_csv(path)
    with pytest.raises(DataError, match=r"non-numeric feature columns: id.*drop_columns"):
        load_csv(path, label="target")
    with pytest.raises(DataError, match=r"1 NaN/inf values \(columns: x\)"):
        load_csv(path, label="target", drop_columns=["id"])
    with pytest.raises(DataError, match="not found"):
        load_csv(path, label="target", drop_columns=["nope"])
    with pytest.raises(DataError, match="fewer than two classes"):
        load_csv(path, label="target", drop_columns=["id"], missing="drop")
    zeroed = load_csv(path, label="target", drop_columns=["id"], missing="zero")
    np.testing.assert_array_equal(zeroed.X[:, 0], [1.0, 0.0])
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(DataError, match="empty"):
        load_csv(empty)
    header_only = tmp_path / "header.csv"
    header_only.write_text("x,label\n")
    with pytest.raises(DataError, match="empty data"):
        load_csv(header_only)


def _toy_frame(rng: np.random.Generator) -> pd.DataFrame:
    """Features with decimals, zeros (absent in svmlight) and a negative column; labels 1/2."""
    X = rng.normal(size=(12, 4)).round(4)
    X[::3, 1] = 0.0
    df = pd.DataFrame(X, columns=["x1", "x2", "x3", "x4"])
    df["label"] = np.where(np.arange(12) % 3 == 0, 2, 1)
    return df


def test_svmlight_and_delimited_files_load_like_the_csv(tmp_path, rng):
    from sklearn.datasets import dump_svmlight_file

    df = _toy_frame(rng)
    df.to_csv(tmp_path / "toy.csv", index=False)
    ref = load_csv(tmp_path / "toy.csv")
    files = {"semicolon.csv": {"sep": ";"}, "comma_decimal.csv": {"sep": ";", "decimal": ","},
             "tabs.tsv": {"sep": "\t"}, "semicolon.txt": {"sep": ";"}}
    for name, kw in files.items():
        df.to_csv(tmp_path / name, index=False, **kw)
    X, y = df.drop(columns="label").to_numpy(), df["label"].to_numpy()
    for name in ("toy.svm", "toy.libsvm", "toy.t", "toy.svmlight", "sniffed.txt"):
        dump_svmlight_file(X, y, str(tmp_path / name), zero_based=False)
        files[name] = {}
    with gzip.open(tmp_path / "toy.svm.gz", "wb") as fh:
        fh.write((tmp_path / "toy.svm").read_bytes())
    files["toy.svm.gz"] = {}
    assert ";" in (tmp_path / "comma_decimal.csv").read_text().splitlines()[1]
    assert (tmp_path / "sniffed.txt").read_text().startswith("2 1:")  # label index:value
    for name in files:
        ds = load_csv(tmp_path / name)
        np.testing.assert_array_equal(ds.X, ref.X, err_msg=name)
        np.testing.assert_array_equal(ds.y, ref.y, err_msg=name)
        assert ds.feature_names == ["x1", "x2", "x3", "x4"], name
    assert load_csv(tmp_path / "toy.svm.gz").name == "toy"
    # --positive-class as the CLI passes it (a string) matches the file's integer label
    one = load_csv(tmp_path / "toy.svm", positive_class="1")
    np.testing.assert_array_equal(one.y, -ref.y)
    assert load_csv(tmp_path / "toy.svm", drop_columns=["x2"]).feature_names == ["x1", "x3", "x4"]


def test_svmlight_zero_based_and_multiclass(tmp_path):
    (tmp_path / "z.svm").write_text("0 0:1.5 2:-1\n1 1:2\n2 0:3 # a comment\n")
    with pytest.raises(DataError, match="3 classes"):
        load_csv(tmp_path / "z.svm")
    ds = load_csv(tmp_path / "z.svm", positive_class=2)
    assert ds.feature_names == ["x0", "x1", "x2"]
    np.testing.assert_array_equal(ds.X, [[1.5, 0, -1], [0, 2, 0], [3, 0, 0]])
    np.testing.assert_array_equal(ds.y, [-1, -1, 1])


def test_a_directory_as_data_is_refused_naming_it(tmp_path):
    from sparsekm.data import DataFileError
    from sparsekm.declare import ParamError

    folder = tmp_path / "runs"
    folder.mkdir()
    for given in (folder, f"{folder}/", str(folder)):
        with pytest.raises(DataFileError, match="is a directory; give a CSV or svmlight file"
                           ) as err:
            load_csv(given)
        assert isinstance(err.value, ParamError) and err.value.name == "data"
        assert err.value.value == str(given)
        assert err.value.render(f"--data {given}") == \
            f"--data {given}: is a directory; give a CSV or svmlight file"
    # the CLI sends a name that is not a file to load_dataset: refused the same way
    with pytest.raises(DataFileError, match="is a directory"):
        load_dataset(f"{folder}/")
    with pytest.raises(DataFileError, match="no such file"):
        load_dataset(str(tmp_path / "missing.svm"))
    (tmp_path / "toy.csv").touch()
    with pytest.raises(DataFileError, match="toy.csv is a file, not a folder"):
        load_csv(tmp_path / "toy.csv" / "x.csv")


def test_duplicate_column_names_are_refused_naming_them(tmp_path):
    from sparsekm.data import DataFileError

    path = tmp_path / "dup.csv"
    path.write_text("a,b,a,c,c,label\n1,2,3,4,5,0\n4,5,6,7,8,1\n")
    with pytest.raises(DataFileError) as err:
        load_csv(path)
    msg = str(err.value)
    assert "duplicate column names 'a', 'c'" in msg and "rename the columns" in msg
    assert "\n" not in msg
    semi = tmp_path / "dup_semicolon.csv"
    semi.write_text("a;b;a;label\n1;2;3;0\n4;5;6;1\n")
    with pytest.raises(DataFileError, match="duplicate column names 'a'"):
        load_csv(semi)


def test_svmlight_refusals_are_one_line(tmp_path):
    from sparsekm.data import DataFileError

    bad = tmp_path / "bad.svm"
    bad.write_text("1 1:2 3:x\n-1 2:1\n")
    with pytest.raises(DataFileError, match="not a well-formed svmlight") as err:
        load_csv(bad)
    assert "\n" not in str(err.value)
    good = tmp_path / "good.svm"
    good.write_text("1 1:2\n-1 2:1\n")
    with pytest.raises(DataFileError, match="svmlight file .*: give no label column") as err:
        load_csv(good, label="target")
    assert err.value.name == "label"


def test_cli_refuses_a_directory_in_one_line(tmp_path):
    from typer.testing import CliRunner

    from sparsekm.cli.app import app

    folder = tmp_path / "data_dir"
    folder.mkdir()
    for given in (str(folder), f"{folder}/"):
        res = CliRunner().invoke(app, ["solve", "svm", "--data", given, "--json"])
        assert res.exit_code == 2, res.output
        assert res.stdout == ""
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and "is a directory; give a CSV or svmlight file" in lines[0]
        assert given in lines[0]


# ----------------------------------------------------------------------------- Dataset


def _toy(m: int = 6) -> Dataset:
    X = np.arange(3.0 * m).reshape(m, 3)
    y = np.where(np.arange(m) % 2 == 0, 1.0, -1.0)
    return Dataset(X=X, y=y, feature_names=["a", "b", "c"], name="toy",
                   label_raw=np.arange(m))


def test_dataset_subsets_and_head():
    ds = _toy()
    assert (ds.m, ds.n) == (6, 3)
    sub = ds.subset_rows([4, 1])
    np.testing.assert_array_equal(sub.X, ds.X[[4, 1]])
    np.testing.assert_array_equal(sub.y, [1, -1])
    np.testing.assert_array_equal(sub.label_raw, [4, 1])
    mask = ds.subset_rows(ds.y > 0)
    assert mask.m == 3 and (mask.y == 1).all()
    cols = ds.subset_features([2, 0])
    assert cols.feature_names == ["c", "a"]
    np.testing.assert_array_equal(cols.X, ds.X[:, [2, 0]])
    by_name = ds.subset_features(["b"])
    assert by_name.feature_names == ["b"] and by_name.X.flags.c_contiguous
    assert ds.head(2).m == 2 and ds.head(100).m == 6
    np.testing.assert_array_equal(ds.head(2).X, ds.X[:2])
    with pytest.raises(DataError, match="unknown feature names"):
        ds.subset_features(["zz"])
    with pytest.raises(DataError, match="out of range"):
        ds.subset_rows([6])
    with pytest.raises(dataclasses.FrozenInstanceError):
        ds.name = "other"


def test_dataset_refuses_bad_labels_and_shapes():
    with pytest.raises(DataError, match="as_dataset"):
        Dataset(X=np.ones((2, 1)), y=np.array([0.0, 1.0]), feature_names=["a"], name="d")
    with pytest.raises(DataError, match="2 rows"):
        Dataset(X=np.ones((2, 1)), y=np.array([1.0]), feature_names=["a"], name="d")
    with pytest.raises(DataError, match="feature names"):
        Dataset(X=np.ones((2, 2)), y=np.array([1.0, -1.0]), feature_names=["a"], name="d")


# ----------------------------------------------------------------------------- Scaler

X_TRAIN = np.array([[0.0, 10.0], [2.0, 10.0], [4.0, 10.0]])
X_TEST = np.array([[6.0, 20.0], [1.0, 10.0]])


def test_scaler_standard_uses_train_statistics_only():
    sc = Scaler("standard").fit(X_TRAIN)
    std0 = np.sqrt(8.0 / 3.0)
    np.testing.assert_allclose(sc.transform(X_TRAIN)[:, 0], [-2 / std0, 0.0, 2 / std0])
    np.testing.assert_allclose(sc.transform(X_TEST), [[4 / std0, 10.0], [-1 / std0, 0.0]])
    np.testing.assert_allclose(sc.inverse_transform(sc.transform(X_TEST)), X_TEST)


def test_scaler_minmax01_and_constant_column():
    sc = Scaler("minmax01")
    np.testing.assert_allclose(sc.fit_transform(X_TRAIN), [[0, 0], [0.5, 0], [1, 0]])
    np.testing.assert_allclose(sc.transform(X_TEST), [[1.5, 10.0], [0.25, 0.0]])
    assert not np.isnan(sc.transform(X_TEST)).any()


def test_scaler_minmax11_maps_train_to_unit_interval():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(20, 4)) * [1, 5, 100, 0.01] + [0, -3, 50, 7]
    Z = Scaler("minmax11").fit_transform(X)
    np.testing.assert_allclose(Z.min(axis=0), -1.0)
    np.testing.assert_allclose(Z.max(axis=0), 1.0)
    sc = Scaler("minmax11").fit(X_TRAIN)
    np.testing.assert_allclose(sc.transform(X_TEST), [[2.0, 10.0], [-0.5, 0.0]])


def test_scaler_none_and_dataset_input():
    np.testing.assert_array_equal(Scaler("none").fit_transform(X_TEST), X_TEST)
    ds = as_dataset(X_TRAIN, [0, 1, 1])
    out = Scaler("minmax11").fit_transform(ds)
    assert isinstance(out, Dataset) and out.feature_names == ds.feature_names
    np.testing.assert_allclose(out.X[:, 0], [-1.0, 0.0, 1.0])


def test_scaler_on_split_uses_train_rows():
    train, test = train_test_split(load_dataset("wine"), test_size=0.3, seed=3)
    sc = Scaler("standard").fit(train)
    np.testing.assert_allclose(sc.transform(train).X.mean(axis=0), 0.0, atol=1e-12)
    mu, sd = train.X.mean(axis=0), train.X.std(axis=0)
    np.testing.assert_allclose(sc.transform(test).X, (test.X - mu) / sd)
    assert np.abs(sc.transform(test).X.mean(axis=0)).max() > 1e-3  # not refitted on test


def test_scaler_errors():
    with pytest.raises(DataError, match="unknown scaling method"):
        Scaler("zscore")
    with pytest.raises(DataError, match="not fitted"):
        Scaler().transform(X_TEST)
    with pytest.raises(DataError, match="fitted on 2 features"):
        Scaler().fit(X_TRAIN).transform(np.ones((1, 3)))
    with pytest.raises(DataError, match="NaN/inf"):
        Scaler().fit(np.array([[np.nan], [1.0]]))


# ----------------------------------------------------------------------------- splits


def _indexed(m: int = 100, n_pos: int = 30) -> Dataset:
    """Data whose first column is the row number, so rows can be traced through splits."""
    y = np.r_[np.ones(n_pos), -np.ones(m - n_pos)]
    return Dataset(X=np.c_[np.arange(m), np.zeros(m)], y=y, feature_names=["row", "z"])


def test_train_test_split_stratified_disjoint_reproducible():
    ds = _indexed()
    train, test = train_test_split(ds, test_size=0.3, seed=0)
    rows_tr, rows_te = train.X[:, 0].astype(int), test.X[:, 0].astype(int)
    assert (train.m, test.m) == (70, 30)
    assert set(rows_tr).isdisjoint(rows_te)
    assert sorted(np.r_[rows_tr, rows_te]) == list(range(100))
    assert (np.sum(train.y == 1), np.sum(test.y == 1)) == (21, 9)  # 30 % in both
    np.testing.assert_array_equal(train.y, ds.y[rows_tr])
    again, _ = train_test_split(ds, test_size=0.3, seed=0)
    np.testing.assert_array_equal(again.X, train.X)
    other, _ = train_test_split(ds, test_size=0.3, seed=1)
    assert not np.array_equal(other.X, train.X)
    _, small = train_test_split(ds, test_size=10, seed=0, stratify=False)
    assert small.m == 10


def test_kfold_splits_stratified_cover_reproducible():
    ds = _indexed()
    folds = kfold_splits(ds, k=5, seed=0)
    assert len(folds) == 5
    seen = np.concatenate([te for _, te in folds])
    assert sorted(seen) == list(range(100))  # every row tested exactly once
    for tr, te in folds:
        assert len(te) == 20 and np.sum(ds.y[te] == 1) == 6
        np.testing.assert_array_equal(np.sort(np.r_[tr, te]), np.arange(100))
    same = kfold_splits(ds, k=5, seed=0)
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(folds, same, strict=True))
    other = kfold_splits(ds, k=5, seed=1)
    assert not all(np.array_equal(a[1], b[1]) for a, b in zip(folds, other, strict=True))
    plain = kfold_splits(ds.y, k=4, seed=0, stratify=False)
    assert sorted(np.concatenate([te for _, te in plain])) == list(range(100))


def test_split_errors():
    ds = _indexed(10, 3)
    with pytest.raises(DataError,
                       match=r"smallest class has 3; give k=3 or fewer or stratify=False"):
        kfold_splits(ds, k=5)
    assert len(kfold_splits(ds, k=5, stratify=False)) == 5
    with pytest.raises(DataError, match="k=11: 11 folds are not possible for 10 rows; give an "
                                        "integer from 2 to 10"):
        kfold_splits(ds, k=11, stratify=False)
    with pytest.raises(DataError, match=r"test_size=1.5 must lie in \(0, 1\)"):
        train_test_split(ds, test_size=1.5)
