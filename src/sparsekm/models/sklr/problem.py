"""The sparse kernel logistic regression problem of paper C (problem name ``sklr``).

Data ``X``, ``y`` in {-1, +1}, a kernel (:class:`~sparsekm.kernels.KernelSpec`; paper C
Section 5.1 uses exp(-||x - z||^2 / (2 sigma^2)) with sigma = 1, i.e. rbf gamma = 0.5, on
features scaled to [0, 1]), the loss weight ``C``, the sparsity weight ``lam`` of the
regularised dual (18) / (22) and the auxiliary bound ``gamma_bound`` (gamma of Section 3.2:
the box [gamma, C - gamma] of (22c); 1e-5 in Section 5.1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from sparsekm.models.problem import Problem, check_positive
from sparsekm.registry import register_problem

__all__ = ["PAPER_GAMMA", "SKLRProblem"]

PAPER_GAMMA = 0.5
"""rbf gamma of paper C's kernel exp(-||x - z||^2 / (2 sigma^2)) with sigma = 1."""


@register_problem("sklr", paper="C", title="Sparse kernel logistic regression (dual (22), SMO)")
@dataclass
class SKLRProblem(Problem):
    """Paper C eq. (22): min 1/2 a'Qa + C sum G(a_i/C) - lam 1'a, y'a = 0, gamma <= a <= C-gamma.

    ``kernel`` is a :class:`KernelSpec` or a kernel name (then ``KernelSpec(name,
    gamma=PAPER_GAMMA)`` for rbf). ``lam = 0`` is plain KLR (Keerthi et al.'s dual (5)).
    """

    kernel: Any = "rbf"
    C: float = 1.0
    lam: float = 0.0
    gamma_bound: float = 1e-5

    def validate(self) -> None:
        from sparsekm.kernels import KernelSpec

        if isinstance(self.kernel, str):
            name = self.kernel
            self.kernel = KernelSpec(name, gamma=PAPER_GAMMA if name in ("rbf", "gaussian")
                                     else None)
        if not isinstance(self.kernel, KernelSpec):
            raise ValueError(f"kernel must be a KernelSpec or a kernel name, got {self.kernel!r}")
        self.C = check_positive("C", self.C)
        if isinstance(self.lam, bool) or not math.isfinite(float(self.lam)) or self.lam < 0:
            raise ValueError(f"lam={self.lam!r} (CLI: --lam) must be a finite number >= 0: the "
                             "sparsity weight lambda of (18)/(22) (0 = plain KLR)")
        self.lam = float(self.lam)
        self.gamma_bound = check_positive("gamma_bound", self.gamma_bound)
        if not 2 * self.gamma_bound < self.C:
            raise ValueError(f"gamma_bound={self.gamma_bound} must be < C/2 = {self.C / 2} "
                             "(box [gamma, C - gamma] of eq. (22c)); lower it or raise C")
        pos = int((self.y > 0).sum())
        small, big = min(pos, self.m - pos), max(pos, self.m - pos)
        if self.gamma_bound * big > small * (self.C - self.gamma_bound):
            raise ValueError(f"no feasible point: with {small} points in the minority class "
                             f"and {big} in the majority, C={self.C} must exceed "
                             f"gamma_bound * (1 + {big}/{small}); raise C")

    @property
    def lower(self) -> float:
        """The auxiliary lower bound 0-bar = gamma (a point at it counts as not selected)."""
        return self.gamma_bound

    @property
    def upper(self) -> float:
        """The auxiliary upper bound C-bar = C - gamma."""
        return self.C - self.gamma_bound

    @cached_property
    def K(self) -> np.ndarray:
        """The (m, m) kernel matrix (computed once; use :meth:`kernel_source` for large m)."""
        return self.kernel(self.X)

    def kernel_source(self, cache_mb: float = 1024.0, precompute: str | bool = "auto") -> Any:
        """Kernel access for the SMO engine: the matrix, or rows on demand in an LRU cache."""
        from sparsekm.solvers.smo import KernelSource

        if "K" in self.__dict__:
            return KernelSource.from_matrix(self.K)
        return KernelSource.from_data(self.X, self.kernel, cache_mb=cache_mb,
                                      precompute=precompute)

    def loss(self) -> Any:
        """The engine's :class:`~sparsekm.solvers.smo.Logistic` loss of (22)."""
        from sparsekm.solvers.smo import Logistic

        return Logistic(self.C, self.lam, self.gamma_bound)
