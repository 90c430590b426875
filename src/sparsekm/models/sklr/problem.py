"""The sparse kernel logistic regression problem of paper C (problem name ``sklr``).

Data ``X``, ``y`` in {-1, +1}, a kernel (:class:`~sparsekm.kernels.KernelSpec`; paper C
Section 5.1 uses exp(-||x - z||^2 / (2 sigma^2)) with sigma = 1, i.e. rbf gamma = 0.5, on
features scaled to [0, 1]), the loss weight ``C``, the sparsity weight ``lam`` of the
regularised dual (18) / (22) and the auxiliary bound ``gamma_bound`` (gamma of Section 3.2:
the box [gamma, C - gamma] of (22c); 1e-5 in Section 5.1).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from sparsekm import declare
from sparsekm.declare import ParamError
from sparsekm.models.problem import Problem
from sparsekm.registry import register_problem
from sparsekm.specs import COEF0, DEGREE, GAMMA, KERNEL_NAMES, PENALTY

__all__ = ["PAPER_GAMMA", "SKLRProblem"]

PAPER_GAMMA = 0.5
"""rbf gamma of paper C's kernel exp(-||x - z||^2 / (2 sigma^2)) with sigma = 1."""


@register_problem("sklr", paper="C", title="Sparse kernel logistic regression (dual (22), SMO)",
                  method="smo2")
@dataclass
class SKLRProblem(Problem):
    """Paper C eq. (22): min 1/2 a'Qa + C sum G(a_i/C) - lam 1'a, y'a = 0, gamma <= a <= C-gamma.

    ``kernel`` is a kernel name (with ``gamma``, ``degree``, ``coef0``; rbf's gamma defaults to
    paper C's 0.5) or a :class:`KernelSpec` (then the other kernel fields are ignored); after
    validation it holds the :class:`KernelSpec`. ``lam = 0`` is plain KLR (Keerthi et al.'s
    dual (5)); None is Appendix C's choice lam = C / 10.
    """

    kernel: Any = declare.field("rbf", "Kernel: " + "|".join(KERNEL_NAMES) + " (or a "
                                "KernelSpec in Python).")
    gamma: float | None = declare.field(None, GAMMA, help="Kernel gamma (rbf: exp(-gamma "
                                        "||x - z||^2)); default paper C's sigma = 1, gamma = "
                                        "0.5, on features scaled to [0, 1].")
    degree: int = declare.field(3, DEGREE)
    coef0: float = declare.field(0.0, COEF0)
    C: float = declare.field(1.0, PENALTY, help="Weight C of the log-likelihood term of (22).")
    lam: float | None = declare.field(None, "Sparsity weight lambda of (18)/(22) (= rho, "
                                      "Observation 1); 0 is plain KLR; default C/10 "
                                      "(Appendix C).", ge=0, le=1e8)
    gamma_bound: float = declare.field(1e-5, "Auxiliary bound gamma of (22c) (Section 5.1: "
                                       "1e-5).", gt=0, lt=1)

    def validate(self) -> None:
        from sparsekm.kernels import KernelSpec

        if isinstance(self.kernel, str):
            if self.kernel not in KERNEL_NAMES:
                raise ParamError("kernel", self.kernel,
                                 f"choose one of {', '.join(KERNEL_NAMES)}")
            gamma = self.gamma
            if gamma is None and self.kernel == "rbf":
                gamma = PAPER_GAMMA
            self.kernel = KernelSpec(self.kernel, gamma=gamma, degree=self.degree,
                                     coef0=self.coef0)
        if not isinstance(self.kernel, KernelSpec):
            raise ParamError("kernel", self.kernel, "give a kernel name or a KernelSpec")
        if self.lam is None:
            self.lam = self.C / 10.0
        if not 2 * self.gamma_bound < self.C:
            raise ParamError("gamma_bound", self.gamma_bound,
                             f"must be < C/2 = {self.C / 2} (box [gamma, C - gamma] of eq. "
                             "(22c)); lower it or raise C")
        pos = int((self.y > 0).sum())
        small, big = min(pos, self.m - pos), max(pos, self.m - pos)
        if self.gamma_bound * big > small * (self.C - self.gamma_bound):
            raise ParamError("C", self.C, f"no feasible point: with {small} points in the "
                             f"minority class and {big} in the majority, C must exceed "
                             f"gamma_bound * (1 + {big}/{small}); raise C")

    def certificate_defect(self, result: Any = None) -> str | None:
        """Why no bound on (22) is certified: its kernel matrix is not PSD (the dual is then
        nonconvex; the linearised gap assumes convexity); None when it is PSD."""
        from sparsekm.kernels import indefinite_reason, psd_by_construction
        from sparsekm.kernels.psd import CHECK_MAX

        if psd_by_construction(self.kernel):
            return None
        big = self.m > CHECK_MAX
        reason = indefinite_reason(self.kernel, None if big else self.K)
        if reason is None:
            return None
        return (f"{reason}{f' (not checked on {self.m} rows)' if big else ''}: the dual (22) "
                "is nonconvex, so no bound is certified")

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
        """Kernel access for the SMO engine: the matrix, or rows on demand in an LRU cache. A
        matrix it computes is kept as :attr:`K` (the training predictions reuse it)."""
        from sparsekm.engines.smo import KernelSource

        if "K" in self.__dict__:
            return KernelSource.from_matrix(self.K)
        ks = KernelSource.from_data(self.X, self.kernel, cache_mb=cache_mb,
                                    precompute=precompute)
        if ks.precomputed:
            self.__dict__["K"] = ks.K
        return ks

    def loss(self) -> Any:
        """The engine's :class:`~sparsekm.engines.smo.Logistic` loss of (22)."""
        from sparsekm.engines.smo import Logistic

        return Logistic(self.C, self.lam, self.gamma_bound)
