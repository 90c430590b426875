"""The plain soft-margin SVM as a problem object (shared by every paper's subproblems)."""

from __future__ import annotations

from dataclasses import dataclass, field

from sparsekm.kernels import KernelSpec
from sparsekm.registry import register_problem

from ..problem import Problem, check_positive


@register_problem("svm", paper="D", title="Soft-margin SVM (paper D eq. (1), paper A eq. (3))")
@dataclass
class SVMProblem(Problem):
    """min 1/2||w||^2 + C sum xi over a kernel ``kernel`` (paper D (1); dual: paper A (3))."""

    C: float = 1.0
    kernel: KernelSpec = field(default_factory=lambda: KernelSpec("rbf"))

    def validate(self) -> None:
        self.C = check_positive("C", self.C)
        if isinstance(self.kernel, str):
            self.kernel = KernelSpec(self.kernel)
