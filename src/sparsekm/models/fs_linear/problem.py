"""Paper D's problem FS-SVM (2): a linear SVM with at most B nonzero weights.

Bomze, D'Onofrio, Palagi, Peng (2024), "Feature selection in linear Support Vector Machines via
a hard cardinality constraint: a scalable conic decomposition approach":

    min_{w, b, xi}  1/2 ||w||^2 + C sum_i xi_i   s.t.  (w, b, xi) in Xi (3),  ||w||_0 <= B.

Notation follows the paper: ``w, b, xi`` the hyperplane and slacks, ``v`` (BigMP) marks selected
features, ``u = 1 - v`` (CoP) marks *zero* features, ``W`` the diagonal lifted variables,
``B`` the budget, ``C`` the penalty, ``M`` the big-M, ``K`` a feature subset.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from sparsekm import declare
from sparsekm.registry import register_problem
from sparsekm.specs import PENALTY

from ..problem import PointCheck, Problem, finite_point
from ..svm import svm_objective

CARDINALITIES = ("eq", "le")

VARIABLES = {
    "w": "w_j: weight of feature j (paper D (2))", "b": "b: intercept",
    "xi": "xi_i: slack of row i, Xi (3)",
    "v": "v_j = 1 iff feature j is selected (BigMP (6), SMP / BoxMP relaxed)",
    "z": "z_j = 1 iff feature j is selected (the branch and bound's selection)",
    "u": "u_j = 1 iff w_j = 0 (CoP (7), SR-DLMP (21), DSCoP (13) relaxed)",
    "W": "W_jj: the lifted w_j^2 (perspective / Shor)", "s": "s_j = 1 - u_j (Lemma 4.3)",
    "Zw": "Z_w: Shor matrix of (1, w) (SMP (10))", "Zv": "Z_v: Shor matrix of (1, v) (SMP (10))",
    "Z": "Z: Shor matrix of (1, w, u) (SCoP (11), SCoMP (12))",
}
# how a selection variable marks a selected feature
SELECTORS = {"v": lambda x: x > 0.5, "z": lambda x: x > 0.5, "u": lambda x: x < 0.5}


@register_problem("fs-linear", paper="D", title="Linear SVM with at most B features, FS-SVM (2)",
                  method="kernel-search", relaxation="dscop")
@dataclass
class FSLinearProblem(Problem):
    """FS-SVM (2) of paper D on (X, y): budget ``B``, penalty ``C``.

    ``cardinality="eq"`` writes the budget as e'v = B / e'u = n - B as in the paper (an optimum
    of (2) always exists with exactly B features, Remark 2.1); ``"le"`` writes <= B.

    The constraint is "at most B": a budget B >= n leaves every feature free, so B is stored as
    n and (2) is the plain SVM (1) (:attr:`unconstrained`; the methods return its certified
    optimum). Paper A's "exactly B" (:class:`~sparsekm.models.fs_kernel.FSKernelProblem`)
    still refuses B > n.
    """

    B: int = declare.field(5, "Budget: at most B selected features (B >= n: the plain SVM "
                           "(1)).", ge=1)
    C: float = declare.field(10.0, PENALTY)
    cardinality: str = declare.field("eq", "How the budget is written in the models: eq "
                                     "(e'v = B, as in the paper) or le (e'v <= B).",
                                     choices=CARDINALITIES)
    variables: ClassVar[dict[str, str]] = VARIABLES

    def validate(self) -> None:
        self.B = min(self.B, self.n)  # "at most B" with B >= n: every feature is allowed

    @property
    def unconstrained(self) -> bool:
        """True when B = n: the budget binds nothing and (2) is the SVM (1)."""
        return self.n <= self.B

    def objective(self, w: np.ndarray, b: float) -> float:
        """1/2 ||w||^2 + C sum_i max(0, 1 - y_i (w'x_i + b)), the objective of (2) at (w, b)."""
        return svm_objective(self.X, self.y, self.C, w, b)

    def subset(self, K: Iterable[int] | None) -> list[int]:
        """A sorted feature subset K of [0, n) (all features when None)."""
        if K is None:
            return list(range(self.n))
        Kl = sorted({int(j) for j in K})
        if not Kl:
            raise ValueError("feature subset K is empty")
        if Kl[0] < 0 or Kl[-1] >= self.n:
            raise ValueError(f"feature subset K has indices outside [0, {self.n - 1}]")
        return Kl

    def variable_sizes(self) -> dict[str, int]:
        n = self.n
        return {"w": n, "b": 0, "xi": self.m, "v": n, "z": n, "u": n, "W": n, "s": n,
                "Zw": -1, "Zv": -1, "Z": -1}

    def support_value(self, support: Sequence[int]) -> tuple[float, float]:
        """The SVM (1) on the columns ``support`` by the native interior point: (its value at
        the engine's point, the certified bound D(alpha)); no column: C min_b sum_i max(0,
        1 - y_i b), exactly."""
        from sparsekm.engines.linear_svm import best_intercept, solve_linear_svm

        S = sorted(int(j) for j in support)
        if not S:
            b = float(best_intercept(np.zeros(self.m), self.y))
            val = self.C * float(np.maximum(0.0, 1.0 - self.y * b).sum())
            return val, val
        fit = solve_linear_svm(self.X[:, S], self.y, self.C)
        return float(fit.primal), float(fit.dual)

    def check_point(self, values: Mapping[str, Any],
                    support: Sequence[int] | None = None) -> PointCheck:
        """FS-SVM (2): margins Xi (3) and xi >= 0 (when xi is given), ||w||_0 <= B, and a
        selection v / z (1 = selected) or u (1 = zero) when given: binary, its budget, and
        w_j = 0 where it drops j (``*_link``). The support is ``support`` if given, else the
        selection's, else the B largest |w_j| != 0."""
        from sparsekm.engines.linear_svm import best_intercept

        vals = finite_point({k: v for k, v in values.items() if v is not None})
        w, b = vals.get("w"), vals.get("b")
        marked, viol = self._selection(vals, w)
        if w is None and support is None and marked is None:
            raise ValueError("the point gives no w, no support and no selection (v, z or u)")
        out = PointCheck(viol)
        if w is not None:
            f = self.X @ w
            if b is None:
                b = float(best_intercept(f, self.y))
                out.details["b_note"] = "b not given: the b minimising the hinge sum for this w"
            out.objective = self.objective(w, b)
            out.details["b"] = b
            xi = vals.get("xi")
            if xi is not None:
                viol["margin"] = float(np.maximum(0.0, 1.0 - self.y * (f + b) - xi).max())
                viol["xi_nonneg"] = float(np.maximum(0.0, -xi).max())
                out.details["objective_with_file_xi"] = 0.5 * float(w @ w) + self.C * float(
                    xi.sum())
            viol["cardinality"] = _kth(np.abs(w), self.B + 1)
        if support is not None:
            S = sorted({int(j) for j in support})
        elif marked is not None:
            S = marked
        else:
            order = np.argsort(-np.abs(w), kind="stable")
            S = sorted(int(j) for j in order[:self.B] if abs(w[j]) > 0.0)
        viol["support_size"] = float(max(len(S) - self.B, 0))
        out.support = S
        out.support_objective, out.support_bound = self.support_value(S)
        if out.objective is None:
            out.objective = out.support_objective
            out.details["objective_note"] = "a support only: the objective is its SVM's"
        return out

    def _selection(self, vals: dict[str, Any], w: np.ndarray | None
                   ) -> tuple[list[int] | None, dict[str, float]]:
        """The support marked by v, z or u (the first given) and its violations: binary,
        budget (e'v = B or <= B; e'u = n - B or >= n - B) and link (w_j = 0 where off)."""
        n, B, eq = self.n, self.B, self.cardinality == "eq"
        for base, on in SELECTORS.items():
            x = vals.get(base)
            if x is None:
                continue
            x = np.broadcast_to(np.asarray(x, dtype=float), (n,))
            viol = {f"{base}_binary": float(np.abs(x - np.round(x)).max())}
            count = float(np.round(x).sum())
            diff = (n - B) - count if base == "u" else count - B
            viol[f"{base}_budget"] = abs(diff) if eq else max(diff, 0.0)
            sel = [j for j in range(n) if on(x[j])]
            if w is not None:
                off = np.setdiff1d(np.arange(n), sel)
                viol[f"{base}_link"] = float(np.abs(w[off]).max(initial=0.0))
            return sel, viol
        return None, {}


def _kth(values: np.ndarray, k: int) -> float:
    """The k-th largest of ``values`` (0 when there are fewer)."""
    if values.size < k or k <= 0:
        return 0.0
    return float(np.sort(values)[::-1][k - 1])
