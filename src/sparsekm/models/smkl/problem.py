"""The sparse MKL problem of paper B, eq. (4): data, kernel dictionary, k0, C, lambda."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from sparsekm import declare
from sparsekm.declare import ParamError
from sparsekm.models.problem import PointCheck, Problem, finite_point
from sparsekm.registry import register_problem
from sparsekm.specs import PENALTY

__all__ = ["SMKLProblem"]


@register_problem("smkl", paper="B", title="Sparse multiple kernel learning, eq. (4)",
                  method="abr", relaxation="sdp-full-cp")
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

    kernels: Any = declare.field("paper10", "Kernel dictionary: linear, poly:G:C0:D, rbf:G, "
                                 "laplacian:G, sigmoid:G:C0, comma-separated, or paper10 / "
                                 "paper50 (paper B's).")
    k0: int = declare.field(2, "At most k0 kernels (1 <= k0 <= the dictionary's size).", ge=1)
    C: float = declare.field(10.0, PENALTY)
    lam: float = declare.field(1.0, "Ridge weight lambda >= 0 on beta (eq. (4)).", ge=0,
                               le=1e8)
    normalize: str | None = declare.field(None, "Base kernels: none, or trace (scaled to "
                                          "trace m).", choices=("trace",))
    dictionary: Any = field(default=None, repr=False, compare=False)
    variables: ClassVar[dict[str, str]] = {
        "eta": "eta: intercept", "theta": "theta: epigraph of 1/2 a'K(beta)a (13)",
        "sigma": "sigma_i: hinge slack of row i", "gamma": "gamma_i: (13)'s margin vector",
        "beta": "beta_k: weight of kernel k", "omega": "omega_k >= beta_k^2 / z_k",
        "z": "z_k = 1 iff kernel k is used", "tau": "tau_j: (15)'s eigen-blocks"}
    fit_deadline: Any = field(default=None, repr=False, compare=False)   # the kernels' build

    def validate(self) -> None:
        from sparsekm.kernels.dictionary import KernelDictionary

        if self.dictionary is None:
            try:
                self.dictionary = KernelDictionary(self.kernels, normalize=self.normalize)
            except ValueError as exc:
                raise ParamError("kernels", self.kernels, str(exc)) from None
        q = self.dictionary.q
        if self.k0 > q:
            raise ParamError("k0", self.k0, f"at most q = {q}, the dictionary's kernels; "
                             f"choose k0 <= {q} or add kernels")
        if self.dictionary.K is None or self.dictionary.K.shape[1] != self.m:
            from sparsekm.kernels.dictionary import DictionaryTooLarge

            try:
                self.dictionary.fit(self.X, self.fit_deadline)
            except DictionaryTooLarge as exc:
                name = "time_limit" if "time left" in str(exc) else "kernels"
                value = getattr(self.fit_deadline, "limit", None) if name == "time_limit" \
                    else self.kernels
                raise ParamError(name, value, f"{exc}; raise it, or use fewer rows or "
                                 "kernels") from None

    def certificate_defect(self, result: Any = None) -> str | None:
        """Why ``result``'s value of (4) is not certified: its combined kernel K(beta) is not
        PSD, so the SVM inside (4) is a nonconvex maximisation and the value found (a local
        one) may lie below G(beta) (the lower bounds, weak duality at feasible alphas, hold
        whatever the kernels). Checked only when the support holds a kernel that is not PSD
        by construction (paper10's two sigmoids, paper50's twelve)."""
        from sparsekm.kernels import indefinite_reason, psd_by_construction

        beta = None if result is None else result.values.get("beta")
        if beta is None:
            return None
        beta = np.asarray(beta, dtype=float)
        support = np.flatnonzero(beta > 0)
        D = self.dictionary
        if all(psd_by_construction(D.kernels[i]) for i in support):
            return None
        label = "+".join(f"{beta[i]:.3g}*{D.labels[i]}" for i in support)
        reason = indefinite_reason(D.kernels[support[0]], D.combine(beta), label)
        if reason is None:
            return None
        return (f"{reason}: the SVM inside (4) is nonconvex at the returned beta, so its value "
                "is a local one and no bound is certified; drop such kernels (--kernels) for "
                "a certificate")

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

    def variable_sizes(self) -> dict[str, int]:
        return {"beta": self.q, "z": self.q, "omega": self.q, "eta": 0, "theta": 0,
                "sigma": self.m, "gamma": self.m, "tau": -1}

    def check_point(self, values: Mapping[str, Any],
                    support: Sequence[int] | None = None) -> PointCheck:
        """(4) of paper B: beta >= 0, sum beta = 1, at most k0 kernels; the value of (4) at
        beta (one SVM dual on K(beta)), with its certified upper value in ``details``."""
        from .objective import evaluate

        vals = finite_point({k: v for k, v in values.items() if v is not None})
        beta = vals.get("beta")
        if beta is None:
            raise ValueError("the point gives no beta (one weight per kernel)")
        x = np.broadcast_to(beta, (self.q,))
        kth = float(np.sort(x)[::-1][self.k0]) if x.size > self.k0 else 0.0
        viol = {"beta_nonneg": float(np.maximum(-x, 0).max()),
                "simplex": abs(float(x.sum()) - 1), "cardinality": kth}
        ev = evaluate(self, np.clip(x, 0.0, None))
        S = [int(i) for i in np.flatnonzero(x > 0)]
        return PointCheck(viol, objective=ev.value, support=S,
                          details={"objective_upper": ev.upper,
                                   "support_kernels": [self.labels[i] for i in S]})
