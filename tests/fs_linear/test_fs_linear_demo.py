"""The demo's paper D section: `fast`'s incumbent, then `bnb`'s certified bound, with times."""

from __future__ import annotations

import re

import numpy as np
import pytest

import sparsekm.cli.demo.fs_linear as demo_d

LINE = re.compile(r"^  (?P<method>fast|bnb) .*objective = (?P<obj>\S+)  certified bound = "
                  r"(?P<bound>\S+)  gap = (?P<gap>\S+) %  (?P<status>\w+).*\((?P<s>[\d.]+) s\)$")


@pytest.fixture(scope="module")
def section() -> tuple[list[str], object]:
    """The quick section's lines (150 training rows) and the scaled data set."""
    from sparsekm.data import load_dataset
    from sparsekm.run.data import scale_fit_transform

    ds = scale_fit_transform("standard", load_dataset("breast_cancer_diagnostic"))
    return demo_d.demo_section(ds, quick=True), ds


def test_the_paper_d_section_reports_fast_then_a_bnb_bound(section) -> None:
    lines, _ = section
    rows = {m["method"]: m for m in map(LINE.match, lines) if m}
    assert list(rows) == ["fast", "bnb"], lines
    fast, bnb = ({k: float(v) if k not in ("method", "status") else v
                  for k, v in rows[name].groupdict().items()} for name in ("fast", "bnb"))
    for r in (fast, bnb):  # a bound on its side of the incumbent, and a time
        assert np.isfinite(r["bound"]) and r["bound"] <= r["obj"] * (1 + 1e-9) and r["s"] >= 0
    # bnb's root bound is the perspective relaxation's optimum: at least the perspective
    # value at any dual point `fast` met; its incumbent is no worse than the one it starts from
    assert bnb["bound"] >= fast["bound"] - 1e-9 * abs(fast["bound"])
    assert bnb["obj"] <= fast["obj"] * (1 + 1e-9)
    # the quick section certifies (gap within bnb's tolerance 1e-4), and says so
    assert bnb["status"] == "optimal" and bnb["gap"] <= 0.01
    assert any(line.startswith("  the certified optimum") for line in lines)


def test_the_certified_objective_is_the_svm_on_the_printed_support(section) -> None:
    """Independent check: libsvm's linear SVM on the printed support has the same value of
    FS-SVM (2) as `bnb`'s certified incumbent (to libsvm's tolerance)."""
    from sklearn.svm import SVC

    lines, ds = section
    bnb = next(m for m in map(LINE.match, lines) if m and m["method"] == "bnb")
    names = next(line for line in lines if "selected features:" in line).split(": ", 1)[1]
    cols = [ds.feature_names.index(n) for n in names.split(", ")]
    assert len(cols) == demo_d.B_DEMO
    from sparsekm.data import train_test_split

    train, _ = train_test_split(ds, test_size=0.2, seed=0)
    train = train.head(min(train.m, 150))
    X = train.X[:, cols]
    svc = SVC(kernel="linear", C=demo_d.C_DEMO, tol=1e-6).fit(X, train.y)
    w, b = svc.coef_.ravel(), float(svc.intercept_[0])
    value = 0.5 * w @ w + demo_d.C_DEMO * np.maximum(0, 1 - train.y * (X @ w + b)).sum()
    assert value == pytest.approx(float(bnb["obj"]), rel=1e-5)
