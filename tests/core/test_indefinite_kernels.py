"""An indefinite kernel certifies nothing: every duality bound assumes a PSD kernel matrix.

Before, ``solve svm --kernel sigmoid`` and ``solve smkl --kernels sigmoid:...`` said
``optimal`` with gap 0, though the SVM dual was nonconvex (a feasible alpha beat the value).
Now the problem class says why no bound holds, the front doors withhold every bound, and the
status cannot be optimal; PSD kernels keep their certificates.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from cli_checks import run_json

from sparsekm.data import load_dataset
from sparsekm.kernels import KernelSpec, indefinite_reason, psd_by_construction
from sparsekm.kernels.psd import smallest_eigenvalue

CLI = [sys.executable, "-c", "from sparsekm.cli.app import main; main()"]


def _wine() -> np.ndarray:
    from sklearn.preprocessing import StandardScaler

    return StandardScaler().fit_transform(load_dataset("wine").X)


@pytest.mark.parametrize("spec,psd", [
    (KernelSpec("sigmoid", gamma=0.5, coef0=1.0), False),
    (KernelSpec("sigmoid", gamma=0.01, coef0=0.0), False),
    (KernelSpec("poly", gamma=0.1, degree=2, coef0=-1.0), False),
    (KernelSpec("poly", gamma=0.1, degree=3, coef0=1.0), True),
    (KernelSpec("rbf", gamma=0.1), True),
    (KernelSpec("laplacian", gamma=0.1), True),
])
def test_the_check_agrees_with_the_smallest_eigenvalue(spec, psd):
    """The Cholesky check says PSD exactly when the smallest eigenvalue is >= -round-off."""
    K = spec(_wine())
    lam = np.linalg.eigvalsh(K)[0]
    reason = indefinite_reason(spec, K)
    assert (reason is None) == psd and psd_by_construction(spec) == (spec.name != "sigmoid"
                                                                     and spec.coef0 >= 0)
    assert (lam < -1e-6 * np.abs(K).max()) == (not psd)
    if not psd:
        assert f"{smallest_eigenvalue(K):.3g}" in reason


def test_a_sigmoid_gram_matrix_that_is_psd_on_the_data_keeps_its_certificate():
    """Two orthogonal points: tanh(0.5 * 0 + 1) off the diagonal is below the diagonal's
    tanh(0.5 + 1), so this sigmoid Gram matrix is PSD and nothing is withheld."""
    X = np.eye(2)
    spec = KernelSpec("sigmoid", gamma=0.5, coef0=1.0)
    assert indefinite_reason(spec, spec(X)) is None


def test_cli_svm_sigmoid_is_not_certified():
    """Subprocess: one JSON object, status feasible, no bound, the reason in the message."""
    run = subprocess.run([*CLI, "solve", "svm", "--data", "wine", "--kernel", "sigmoid",
                          "--json"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["status"] == "feasible" and out["lower_bound"] is None
    assert "not positive semidefinite" in out["message"]


def test_smkl_exact_and_relaxation_with_sigmoid_kernels_certify_nothing():
    """Paper B's exact method on two sigmoid kernels: no bound, not optimal (it said optimal
    at 1782.47 where a feasible alpha shows at least 4593: the value at beta = e_2 is a local
    maximum of a nonconvex SVM). Relaxation (16) rests on (13)'s PSD block: no bound either;
    (14)'s certificate, a Lagrangian bound, holds whatever the kernels and is kept."""
    args = ["--kernels", "sigmoid:0.5:1,sigmoid:0.7:1", "--k0", "1"]
    out = run_json("solve", "smkl", "--data", "wine", *args, "--method", "exact")
    assert out["status"] != "optimal" and out["lower_bound"] is None
    assert "sigmoid:0.7:1 is not positive semidefinite" in out["message"]
    rows = ["--data", "ionosphere", "--rows", "40"]
    rel = run_json("relax", "smkl", *args, *rows, "--relaxation", "soc-basis")
    assert rel["lower_bound"] is None and "(16)-(18)" in rel["message"]
    lag = run_json("relax", "smkl", *args, *rows, "--relaxation", "sdp-full-cp")
    assert lag["lower_bound"] is not None


def test_psd_kernels_keep_their_certificate():
    """The same command on PSD kernels still certifies its optimum."""
    out = run_json("solve", "smkl", "--data", "wine", "--kernels", "rbf:0.5,linear", "--k0",
                   "1", "--method", "exact")
    assert out["status"] == "optimal" and out["lower_bound"] is not None


def test_sklr_sigmoid_is_not_certified():
    out = run_json("solve", "sklr", "--data", "wine", "--kernel", "sigmoid")
    assert out["status"] != "optimal" and out["lower_bound"] is None
