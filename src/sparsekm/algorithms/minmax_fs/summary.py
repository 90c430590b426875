"""Tables and curves of paper E's Section 5 from the per-fold results of the protocol.

* :func:`frontier` -- Figure 1: for each C2, the pooled test accuracy over the outer folds and
  the mean ||gamma||_1 (and number of selected features, time).
* :func:`table2` -- Table 2: the best pooled accuracy over C2 (the paper's choice, which picks
  C2 on the test folds) beside NO-FS, and the C2 that reaches it.
* :func:`curve` -- Figure 2: pooled accuracy of the top-F features at one C2.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["curve", "frontier", "table2"]


def _runs(folds: list[dict], method: str) -> list[dict]:
    return [r for f in folds for r in f["runs"] if r["method"] == method]


def frontier(folds: list[dict], method: str = "fast") -> list[dict[str, Any]]:
    """One row per C2: pooled accuracy, mean ||gamma||_1, selected, objective, time."""
    total = sum(f["n_test"] for f in folds)
    rows = []
    for C2 in sorted({r["C2"] for r in _runs(folds, method)}):
        rs = [r for r in _runs(folds, method) if r["C2"] == C2]
        rows.append({
            "C2": C2, "accuracy": sum(r["test_correct"] for r in rs) / total,
            "norm1": float(np.mean([r["norm1"] for r in rs])),
            "n_selected": float(np.mean([r["n_selected"] for r in rs])),
            "objective": float(np.mean([r["objective"] for r in rs])),
            "start_objective": float(np.mean([r["start_objective"] for r in rs])),
            "kkt_max": float(max(r["kkt"]["kkt_residual"] for r in rs)),
            "time_s": float(np.mean([r["time_s"] for r in rs])), "folds": len(rs)})
    return rows


def table2(folds: list[dict], method: str = "fast") -> dict[str, Any]:
    """Best pooled MM-FS accuracy over C2 (ties: every C2 listed), NO-FS accuracy."""
    rows = frontier(folds, method)
    total = sum(f["n_test"] for f in folds)
    best = max(r["accuracy"] for r in rows)
    return {"mmfs": best, "C2": [r["C2"] for r in rows if r["accuracy"] >= best - 1e-12],
            "nofs": sum(f["nofs_correct"] for f in folds) / total, "n_test": total,
            "folds": len(folds)}


def curve(folds: list[dict], C2: float, method: str = "fast") -> tuple[list[int], list[float]]:
    """(F values, pooled test accuracy with the top-F features) at ``C2``."""
    total = sum(f["n_test"] for f in folds)
    Fs = folds[0]["F"]
    rs = [r for r in _runs(folds, method) if r["C2"] == C2 and "curve" in r]
    acc = [sum(r["curve"][k] for r in rs) / total for k in range(len(Fs))]
    return Fs, acc
