"""The sparse MKL problem of paper B, eq. (4): data, kernel dictionary, k0, C, lambda."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sparsekm.models.problem import Problem, check_positive
from sparsekm.registry import register_problem

__all__ = ["SMKLProblem"]


@register_problem("smkl", paper="B", title="Sparse multiple kernel learning, eq. (4)")
@dataclass
class SMKLProblem(Problem):
    """min over beta in {beta >= 0, sum beta = 1, ||beta||_0 <= k0} of
    max over alpha of sum(alpha) - 1/2 (y o alpha)' K(beta) (y o alpha) + lam ||beta||^2,
    K(beta) = sum_i beta_i K_i, 0 <= alpha <= C, y'alpha = 0 (paper B, eq. (4)).

    Parameters
    ----------
    X, y : training rows and labels in {-1, +1}.
    kernels : kernel spec string / named dictionary / list (``sparsekm.kernels.dictionary``).
    k0 : at most k0 kernels (1 <= k0 <= q).
    C : SVM penalty > 0.
    lam : ridge weight lambda >= 0 on beta.
    normalize : None or "trace" (base kernels scaled to trace m).
    """

    kernels: Any = "paper10"
    k0: int = 2
    C: float = 10.0
    lam: float = 1.0
    normalize: str | None = None
    dictionary: Any = field(default=None, repr=False, compare=False)

    def validate(self) -> None:
        from sparsekm.kernels.dictionary import KernelDictionary

        self.C = check_positive("C", self.C)
        try:
            lam = float(self.lam)
        except (TypeError, ValueError):
            raise ValueError(f"lam={self.lam!r} must be a number >= 0") from None
        if not (lam >= 0 and math.isfinite(lam)):
            raise ValueError(f"lam={self.lam} must be a finite number >= 0 (the ridge weight "
                             "lambda of eq. (4))")
        self.lam = lam
        if self.dictionary is None:
            self.dictionary = KernelDictionary(self.kernels, normalize=self.normalize)
        q = self.dictionary.q
        k0 = self.k0
        if isinstance(k0, bool) or k0 is None or int(k0) != k0:
            raise ValueError(f"k0={k0!r} must be an integer")
        if k0 < 1:
            raise ValueError(f"k0={k0} < 1: the kernel combination needs at least one kernel "
                             "(k0 >= 1)")
        if k0 > q:
            raise ValueError(f"k0={k0} > q={q}: the dictionary has only {q} kernels; choose "
                             f"k0 <= {q} or add kernels")
        self.k0 = int(k0)
        if self.dictionary.K is None or self.dictionary.K.shape[1] != self.m:
            self.dictionary.fit(self.X)

    @property
    def q(self) -> int:
        """Number of base kernels."""
        return self.dictionary.q

    @property
    def K(self) -> np.ndarray:
        """The (q, m, m) stack of training kernels."""
        return self.dictionary.K

    @property
    def labels(self) -> list[str]:
        """Spec entry of each kernel, in order."""
        return self.dictionary.labels

    def params(self) -> dict[str, Any]:
        return {"kernels": self.labels, "k0": self.k0, "C": self.C, "lam": self.lam,
                "normalize": self.normalize}
