"""The SVM primal, paper D eq. (1) (= paper A eq. (2)): the building block of paper D's models.

* :func:`margin_block` -- w (on a feature subset K), b, xi >= 0 and the margin constraints
  Xi (3) of paper D, added to a Pyomo model (BigMP, CoP, SR-DLMP and the SVM share it).
* :func:`svm_primal_model` -- the SVM (1) as a Pyomo QP; with ``l1 > 0`` the elastic-net SVM
  baseline of paper D, Section 5.4 (EN-SVM: (1) + l1 ||w||_1).
* :func:`svm_qp` -- the same QP on a fixed support as a :class:`~sparsekm.solvers.ConicQP`
  (solved through the solver layer by :func:`sparsekm.algorithms.svm.solve_svm`: the hot
  subproblem of paper D's algorithms).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from sparsekm.declare import Annotated, Spec
from sparsekm.registry import register
from sparsekm.solvers import ConicQP

__all__ = ["margin_block", "svm_objective", "svm_primal_model", "svm_qp"]

L1 = Spec("Weight of the l1 term sum_j |w_j| of EN-SVM (paper D Section 5.4); 0: the SVM "
          "(1).", ge=0, le=1e8)


def svm_objective(X: np.ndarray, y: np.ndarray, C: float, w: np.ndarray, b: float) -> float:
    """The objective 1/2 ||w||^2 + C sum_i max(0, 1 - y_i (w'x_i + b)) of (1)/(2) at (w, b)."""
    xi = np.maximum(0.0, 1.0 - y * (X @ w + b))
    return float(0.5 * w @ w + C * xi.sum())


def margin_block(model: Any, X: np.ndarray, y: np.ndarray, K: Sequence[int]) -> None:
    """Add index sets I, K, variables w (on K), b, xi >= 0 and the margin constraints Xi (3)."""
    import pyomo.environ as pyo

    m = X.shape[0]
    model.I = pyo.RangeSet(0, m - 1)
    model.K = pyo.Set(initialize=list(K), ordered=True)
    model.w = pyo.Var(model.K)
    model.b = pyo.Var()
    model.xi = pyo.Var(model.I, within=pyo.NonNegativeReals)
    XK = X[:, list(K)]
    Kl = list(K)

    def margin(mdl: Any, i: int) -> Any:
        row = XK[i]
        nz = np.flatnonzero(row)
        return float(y[i]) * (pyo.quicksum(float(row[t]) * mdl.w[Kl[t]] for t in nz)
                              + mdl.b) >= 1 - mdl.xi[i]

    model.margin = pyo.Constraint(model.I, rule=margin)


@register("svm", "formulation", "primal", paper="D", ref="eq. (1)", problem_class="QP")
def svm_primal_model(X: Any, y: Any, C: float, *,
                     l1: Annotated[float, L1] = 0.0) -> Any:
    """Pyomo model of the SVM (1), or of EN-SVM (paper D, Section 5.4) when ``l1 > 0``.

    min 1/2||w||^2 + C sum xi (+ l1 sum t), (w, b, xi) in Xi (3), -t <= w <= t.
    """
    import pyomo.environ as pyo

    from sparsekm.data.checks import check_xy

    X, y = check_xy(X, y)
    K = list(range(X.shape[1]))
    mdl = pyo.ConcreteModel(name="EN-SVM" if l1 > 0 else "SVM (1)")
    margin_block(mdl, X, y, K)
    reg = 0
    if l1 > 0:
        mdl.t = pyo.Var(mdl.K, within=pyo.NonNegativeReals)
        mdl.abs_hi = pyo.Constraint(mdl.K, rule=lambda md, j: md.w[j] <= md.t[j])
        mdl.abs_lo = pyo.Constraint(mdl.K, rule=lambda md, j: -md.t[j] <= md.w[j])
        reg = l1 * pyo.quicksum(mdl.t[j] for j in mdl.K)
    mdl.obj = pyo.Objective(expr=0.5 * pyo.quicksum(mdl.w[j] ** 2 for j in mdl.K)
                            + C * pyo.quicksum(mdl.xi[i] for i in mdl.I) + reg)
    return mdl


def svm_qp(X: np.ndarray, y: np.ndarray, C: float, features: Sequence[int] | None = None,
           l1: float = 0.0) -> ConicQP:
    """The SVM (1) (EN-SVM with ``l1 > 0``) on ``features`` as a :class:`ConicQP`.

    Variables x = [w_F (k), b, xi (m), t (k if l1)], rows: the margins y_i(w'x_i + b) >= 1 - xi_i,
    xi >= 0, and -t <= w <= t for EN-SVM.
    """
    import scipy.sparse as sp

    m, n = X.shape
    F = np.arange(n) if features is None else np.asarray(sorted(set(features)), dtype=int)
    k, nt = F.size, (F.size if l1 > 0 else 0)
    P = sp.diags(np.r_[np.ones(k), np.zeros(1 + m + nt)], format="csc")
    q = np.r_[np.zeros(k + 1), C * np.ones(m), l1 * np.ones(nt)]
    yx = sp.csr_matrix(-(y[:, None] * X[:, F]))
    rows = [sp.hstack([yx, sp.csr_matrix(-y[:, None]), -sp.eye(m), sp.csr_matrix((m, nt))]),
            sp.hstack([sp.csr_matrix((m, k + 1)), -sp.eye(m), sp.csr_matrix((m, nt))])]
    rhs = [-np.ones(m), np.zeros(m)]
    if nt:
        rows += [sp.hstack([sp.eye(k), sp.csr_matrix((k, 1 + m)), -sp.eye(k)]),
                 sp.hstack([-sp.eye(k), sp.csr_matrix((k, 1 + m)), -sp.eye(k)])]
        rhs += [np.zeros(k), np.zeros(k)]
    A = sp.vstack(rows, format="csc")
    return ConicQP(P, q, A, np.concatenate(rhs), [("nonneg", A.shape[0])],
                   names={"w": slice(0, k), "b": slice(k, k + 1)}, name="SVM (1)")
