"""The plain soft-margin SVM as a problem object (shared by every paper's subproblems)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sparsekm import declare
from sparsekm.kernels import KernelSpec
from sparsekm.registry import register_problem
from sparsekm.specs import COEF0, DEGREE, GAMMA, KERNEL_NAMES, PENALTY

from ..problem import Problem


@register_problem("svm", paper="D", title="Soft-margin SVM (paper D eq. (1), paper A eq. (3))")
@dataclass
class SVMProblem(Problem):
    """min 1/2||w||^2 + C sum xi over a kernel (paper D (1); dual: paper A (3)).

    ``kernel``, ``gamma`` (None: 1/n), ``degree`` and ``coef0`` describe the kernel;
    :attr:`spec` is the validated :class:`KernelSpec`.
    """

    kernel: str = declare.field("rbf", "Kernel.", choices=KERNEL_NAMES)
    gamma: float | None = declare.field(None, GAMMA, help="Kernel gamma (default 1/n).")
    degree: int = declare.field(3, DEGREE)
    coef0: float = declare.field(0.0, COEF0)
    C: float = declare.field(1.0, PENALTY)
    spec: KernelSpec = field(init=False, repr=False)

    def validate(self) -> None:
        self.spec = KernelSpec(self.kernel, gamma=self.gamma, degree=self.degree,
                               coef0=self.coef0)

    def certificate_defect(self, result: Any = None, K: Any = None) -> str | None:
        """Why the SVM's duality bound is not certified: its kernel matrix (``K``, computed
        when not given) is not PSD, so the dual is nonconvex; None when it is PSD."""
        from sparsekm.kernels import indefinite_reason, psd_by_construction

        if psd_by_construction(self.spec):
            return None
        reason = indefinite_reason(self.spec, self.spec(self.X) if K is None else K)
        return None if reason is None else (
            f"{reason}: the SVM dual is nonconvex, so no bound is certified and the objective "
            "is the value at a local solution")
