"""The native solvers of kernel duals (:mod:`sparsekm.engines.smo`), as ``--solver`` names
them and ``sparsekm solvers`` lists them beside the modelling-layer backends: no model is
built, the arrays go straight to compiled code. Always available (no import here: listing
them does not load numba)."""

from __future__ import annotations

import importlib.metadata
from typing import Any

__all__ = ["NATIVE_SOLVERS", "native_rows"]

KERNEL_DUAL = "kernel-dual"

# name -> (display, distribution whose version is shown, what it solves)
NATIVE_SOLVERS: dict[str, tuple[str, str, str]] = {
    "libsvm": ("libsvm", "scikit-learn",
               "native: the SVM hinge dual on a precomputed kernel (scikit-learn's compiled "
               "libsvm), cold starts only"),
    "smo": ("sparsekm SMO", "sparsekm",
            "native: kernel duals (SVM hinge, paper A eq. (3); KLR logistic, paper C eq. (22)) "
            "by compiled SMO, second-order working set, shrinking, warm starts"),
}


def native_rows() -> list[dict[str, Any]]:
    """Rows of :func:`sparsekm.solvers.solver_table` for the native solvers."""
    rows = []
    for name, (display, dist, note) in NATIVE_SOLVERS.items():
        try:
            version, installed = importlib.metadata.version(dist), True
        except importlib.metadata.PackageNotFoundError:
            version, installed = "", False
        rows.append({"name": name, "display": display, "installed": installed,
                     "licensed": installed, "usable": installed, "version": version,
                     "classes": [KERNEL_DUAL], "frameworks": {"native": [KERNEL_DUAL]},
                     "commercial": False, "note": note})
    return rows
