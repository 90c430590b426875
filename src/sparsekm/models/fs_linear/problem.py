"""Paper D's problem FS-SVM (2): a linear SVM with at most B nonzero weights.

Bomze, D'Onofrio, Palagi, Peng (2024), "Feature selection in linear Support Vector Machines via
a hard cardinality constraint: a scalable conic decomposition approach":

    min_{w, b, xi}  1/2 ||w||^2 + C sum_i xi_i   s.t.  (w, b, xi) in Xi (3),  ||w||_0 <= B.

Notation follows the paper: ``w, b, xi`` the hyperplane and slacks, ``v`` (BigMP) marks selected
features, ``u = 1 - v`` (CoP) marks *zero* features, ``W`` the diagonal lifted variables,
``B`` the budget, ``C`` the penalty, ``M`` the big-M, ``K`` a feature subset.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from sparsekm import declare
from sparsekm.registry import register_problem
from sparsekm.specs import PENALTY

from ..problem import Problem
from ..svm import svm_objective

CARDINALITIES = ("eq", "le")


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
