"""Paper E as grid runs: the NO-FS method, the CV's tie rules, multistart, and the Section 4.2
protocol behind ``sparsekm solve minmax-fs --outer-folds K``."""

from __future__ import annotations

import json

import numpy as np
import pytest
from minmax_fs_data import make_instance

from sparsekm import registry
from sparsekm.algorithms.minmax_fs.algorithm1 import Start, algorithm1, start_gammas
from sparsekm.algorithms.minmax_fs.cv import TIES, cv_start
from sparsekm.algorithms.minmax_fs.outer_folds import pooled, run_protocol
from sparsekm.models.minmax_fs import MinMaxFSProblem, lower_level

GRIDS = ((0.1, 1.0, 10.0), (0.01, 0.1, 1.0))


def test_nofs_returns_the_start_and_its_svm():
    X, y = make_instance(m=30, n=3, seed=1)
    pb = MinMaxFSProblem(X, y, C=2.0, C2=0.5)
    res = registry.get("minmax-fs", "method", "nofs")(pb, gamma0=0.3)
    np.testing.assert_allclose(res.gamma, 0.3)
    ll = lower_level(pb, np.full(3, 0.3))
    assert res.objective == pytest.approx(pb.objective(ll.gamma, ll.value), rel=1e-9)
    assert res.status.value != "optimal"          # a baseline, not a solved (14)


@pytest.mark.parametrize("tie", TIES)
def test_cv_tie_rules_pick_among_equal_accuracies(tie):
    """On separable blobs many pairs tie; each rule picks its documented corner of the ties."""
    X, y = make_instance(m=40, n=2, seed=0, informative=2)
    X[:, :2] += 3 * y[:, None]                    # far apart: every sensible pair is perfect
    cv = cv_start(X, y, folds=4, seed=0, C_grid=GRIDS[0], gamma_grid=GRIDS[1], tie=tie)
    ties = np.argwhere(cv.table >= cv.table.max() - 1e-12)
    assert len(ties) > 1
    a, b = GRIDS[0].index(cv.C), GRIDS[1].index(cv.gamma)
    if tie == "largest-C":
        assert a == ties[:, 0].max() and b == ties[ties[:, 0] == a, 1].min()
    elif tie == "smallest-C":
        assert a == ties[:, 0].min() and b == ties[ties[:, 0] == a, 1].min()
    else:
        assert b == ties[:, 1].min() and a == ties[ties[:, 1] == b, 0].min()
    with pytest.raises(ValueError, match="tie="):
        cv_start(X, y, tie="median")


def test_multistart_keeps_the_first_start_and_never_loses():
    X, y = make_instance(m=40, n=4, seed=3, informative=2)
    one = algorithm1(X, y, start=Start(C=5.0, gamma0=0.3), C2=0.3)
    three = algorithm1(X, y, start=Start(C=5.0, gamma0=0.3, starts=3), C2=0.3)
    assert three.extra["start_values"][0] == pytest.approx(one.objective, rel=1e-9)
    assert three.objective == min(three.extra["start_values"])
    assert [float(g) for g in start_gammas(0.3, 3)] == pytest.approx([0.3, 0.03, 3.0])


def test_outer_folds_run_pools_the_protocol(tmp_path):
    """The CLI's --outer-folds payload equals the protocol's folds summed by hand, and the
    nofs method's pooled accuracy is the NO-FS accuracy of the same folds."""
    from typer.testing import CliRunner

    from sparsekm.cli.app import app

    X, y = make_instance(m=45, n=3, seed=5, informative=1)
    path = tmp_path / "e.csv"
    cols = ",".join(f"x{j}" for j in range(3))
    path.write_text(f"{cols},label\n" + "\n".join(
        ",".join(f"{v:.6f}" for v in row) + f",{int(t)}" for row, t in zip(X, y)))
    args = ["solve", "minmax-fs", "--data", str(path), "--C", "1", "--gamma0", "0.1",
            "--outer-folds", "3", "--C2", "0.4", "--json"]
    out = {}
    for method in ("fast", "nofs"):
        r = CliRunner().invoke(app, args + ["--method", method])
        assert r.exit_code == 0, r.output
        out[method] = json.loads(r.stdout)
    folds = run_protocol(X, y, C2_grid=(0.4,), options={"outer": 3, "curves": False,
                                                        "grids": ((1.0,), (0.1,))})
    ref = pooled(folds, "fast", 0.4)
    assert out["fast"]["test_accuracy"] == pytest.approx(
        sum(f["runs"][0]["test_correct"] for f in folds) / 45)
    assert out["fast"]["test_accuracy"] == pytest.approx(ref["test_accuracy"])
    assert out["fast"]["objective"] == pytest.approx(ref["objective"], rel=1e-6)
    assert out["nofs"]["test_accuracy"] == pytest.approx(out["fast"]["nofs_test_accuracy"])
    bad = CliRunner().invoke(app, args + ["--test-size", "0.2"])
    assert bad.exit_code == 2 and "--outer-folds" in bad.output
