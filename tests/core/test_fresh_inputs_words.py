"""Fresh inputs of the kinds a new user tries, refused in the words of the front door used.

* ``export --out`` into a system folder (``/dev/stdout``, ``/dev/null.lp``: a sidecar landed
  in ``/dev``); a write that fails is one line naming ``--out``.
* ``export --out model.lp`` wrote an MPS file under the name ``.lp`` (Pyomo's warning leaked):
  the format follows ``--out``'s suffix unless ``--format`` says otherwise, and a contradiction
  is refused.
* CV folds: ``--cv-folds`` / ``--outer-folds`` on minmax-fs said ``k=5 ... or stratify=False``
  (Python's names on the CLI); smkl's ``--cv-folds`` above the smaller class let
  scikit-learn's own warning through ("n_splits=5").
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from cli_checks import refused, run_json

from sparsekm.data import DataError, kfold_splits

SMALL = ("--data", "haberman", "--rows", "40", "--B", "2", "--form", "cop")


@pytest.mark.parametrize("out", ["/dev/stdout", "/dev/null.lp", "/dev/fresh.mps",
                                 "/proc/self/fresh.lp"])
def test_export_into_a_system_folder_is_refused(out: str) -> None:
    before = set(Path("/dev").iterdir())
    line = refused("export", "fs-linear", *SMALL, "--out", out)
    assert line.startswith(f"error: --out {out}: is in /")
    assert "a system folder" in line
    assert set(Path("/dev").iterdir()) == before


def test_export_format_follows_the_out_suffix(tmp_path: Path) -> None:
    out = tmp_path / "fresh.lp"
    payload = run_json("export", "fs-linear", *SMALL, "--out", str(out))
    assert payload["format"] == "lp" and out.exists()
    text = out.read_text()
    assert "\nmin \nobj:" in text and "ROWS" not in text    # LP syntax, not MPS sections
    assert (tmp_path / "fresh.lp.json").exists()
    line = refused("export", "fs-linear", *SMALL, "--format", "mps", "--out",
                   str(tmp_path / "other.lp"))
    assert "--format mps" in line and "--format lp" in line
    assert not (tmp_path / "other.lp").exists()
    plain = run_json("export", "fs-linear", *SMALL, "--out", str(tmp_path / "plain.txt"))
    assert plain["format"] == "mps"


@pytest.fixture
def small_class(tmp_path: Path) -> Path:
    """30 rows, a class of 3."""
    rng = np.random.default_rng(11)
    rows = ["a,b,c,label"] + [",".join(f"{v:.3f}" for v in rng.normal(size=3))
                              + (",yes" if i < 3 else ",no") for i in range(30)]
    path = tmp_path / "small_class.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize("flag", ["--cv-folds", "--outer-folds"])
def test_minmax_fs_folds_in_flags(small_class: Path, flag: str) -> None:
    line = refused("solve", "minmax-fs", "--data", str(small_class), flag, "4",
                   "--time-limit", "10")
    assert line.startswith(f"error: {flag} 4: stratified 4-fold")
    assert f"give {flag} 3 or fewer" in line
    assert "stratify" not in line and "k=" not in line and "k <=" not in line
    line = refused("solve", "minmax-fs", "--data", str(small_class), flag, "31",
                   "--time-limit", "10")
    assert line.startswith(f"error: {flag} 31: 31 folds are not possible for 30 rows")


def test_smkl_cv_folds_above_the_smaller_class(small_class: Path) -> None:
    line = refused("solve", "smkl", "--data", str(small_class), "--positive-class", "yes",
                   "--k0", "1", "--cv-folds", "5", "--time-limit", "10")
    assert line.startswith("error: --cv-folds 5: give 2 to 3 folds")
    assert "n_splits" not in line


def test_python_folds_in_python_words() -> None:
    y = np.array([1] * 3 + [-1] * 20)
    with pytest.raises(DataError, match=r"^k=5: stratified 5-fold") as err:
        kfold_splits(y, k=5)
    assert "give k=3 or fewer or stratify=False" in str(err.value)
    assert "--" not in str(err.value)
    assert len(kfold_splits(y, k=3)) == 3


def test_path_solver_is_used_by_its_bounds_or_refused() -> None:
    flags = ("path", "fs-linear", "--data", "wholesale", "--rows", "40", "--B", "2,3")
    line = refused(*flags, "--solver", "scip")
    assert line.startswith("error: --solver scip: path fs-linear runs fast")
    assert "--bound" in line
    out = run_json(*flags, "--bound", "--solver", "scip")
    assert out["params"]["solver"] == "scip" and out["solvers"]["bound"] == "SCIP"
    plain = run_json(*flags, "--bound")
    for used, native in zip(out["entries"], plain["entries"], strict=True):
        assert used["perspective_bound"] == pytest.approx(native["perspective_bound"],
                                                          rel=1e-5)
        assert used["perspective_bound"] <= used["objective"] * (1 + 1e-9)


def test_oversubscribed_workers_in_each_front_doors_words() -> None:
    """More workers than cores: the CLI's warning names --workers, Python's workers=."""
    import os
    import subprocess
    import sys
    import warnings

    from sparsekm.parallel.pool import LocalPool, OversubscriptionWarning, usable_cores

    n = usable_cores() + 2
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        pool = LocalPool(n)
    close = getattr(pool, "close", None)
    if close is not None:
        close()
    texts = [str(w.message) for w in seen if issubclass(w.category, OversubscriptionWarning)]
    assert texts and texts[0].startswith(f"workers={n} > ") and "<<" not in texts[0]
    run = subprocess.run([sys.executable, "-c", "from sparsekm.cli.app import main; main()",
                          "solve", "fs-linear", "--data", "haberman", "--rows", "60", "--B", "2",
                          "--method", "bnb", "--workers", str(n), "--json"],
                         capture_output=True, text=True, timeout=300, env=dict(os.environ))
    assert run.returncode == 0, run.stderr
    line = next(ln for ln in run.stderr.splitlines() if "cores" in ln)
    assert line.startswith(f"warning: --workers {n} > ") and "workers=" not in line


def test_a_node_option_refusal_has_no_python_words() -> None:
    """An option no node bound declares: the message names the node bounds, not
    ``node_bound=...`` (Python's words, shown on the CLI too)."""
    from sparsekm.algorithms.fs_linear.bnb_rules import node_form
    from sparsekm.declare import ParamError

    with pytest.raises(ParamError) as err:
        node_form("perspective-active", {"nonsense": 1})
    assert "node bound perspective-active takes no option 'nonsense'" in str(err.value)
    assert "node_bound=" not in err.value.allowed
