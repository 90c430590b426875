"""The lower level of paper E: the SVM dual (12) at a fixed gamma, its value V(gamma), the
Danskin gradient dV/dgamma, its completion to a point of (20) and the KKT residual of (20).

V(gamma) = max { e'a - 1/2 a' G_gamma a : y'a = 0, 0 <= a <= C } and, at the optimal a,

    dV/dgamma_j = 1/2 sum_{i,l} a_i a_l y_i y_l K_il (x_ij - x_lj)^2          (Danskin),

summed over the support vectors only (:func:`sparsekm.kernels.anisotropic.pair_sq_diff_sum`).

The SVM KKT conditions give the (18)-variables at the optimum: nu = b (the intercept) and,
with r_i = y_i (sum_l K_il a_l y_l + b) - 1, lambda0 = max(r, 0), lambdaC = max(-r, 0), so
that (20b) holds exactly. With the multiplier of (20b) set to 0, the KKT conditions of (20) at
such a point reduce to (i) the SVM complementarity lambda0_i a_i = 0 = lambdaC_i (C - a_i) and
(ii) the bound-constrained stationarity of f(gamma) = C2 ||gamma||_p^p + (1 - C2) V(gamma) on
gamma >= 0: :func:`kkt_residual` measures both.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from sparsekm.engines.smo import SVMDualOptions, solve_svm_dual
from sparsekm.kernels import anisotropic_rbf_kernel
from sparsekm.kernels.anisotropic import pair_sq_diff_sum

__all__ = ["LowerLevel", "check_gamma", "kkt_residual", "lower_level", "penalty_gradient",
           "svm_dual"]


class WeightingProblem(Protocol):
    """What the lower level is solved on: a :class:`~.problem.MinMaxFSProblem` (X, y, C, C2,
    p, n, its objective)."""

    X: np.ndarray
    y: np.ndarray
    C: float
    C2: float
    p: float

    @property
    def n(self) -> int: ...

    def objective(self, gamma: np.ndarray, value: float) -> float: ...


SVM_TOL = 1e-8  # the SVM's KKT tolerance inside the value function (gradients need it tight)
ENGINES = ("libsvm", "smo")
# The engine of the lower level: "smo" = sparsekm's compiled SMO warm-started from the previous
# alpha (the first solve is cold libsvm). Measured against cold libsvm, fast route, one
# process (benchmarks/results/minmax_fs_engine.json): 0.70x breast, 0.58x diabetes, 1.02x
# lymphoma, 1.14x colorectal (m < 100), 0.73x in total (docs/guides/minmax_fs.md).
SVM_ENGINE = "smo"


def svm_dual(K: np.ndarray, y: np.ndarray, C: float, alpha0: np.ndarray | None = None,
             tol: float = SVM_TOL, engine: str = SVM_ENGINE) -> Any:
    """The SVM dual (12) on a precomputed kernel: the one place that picks the engine."""
    if engine not in ENGINES:
        raise ValueError(f"engine={engine!r}: choose one of {', '.join(ENGINES)}")
    if engine == "smo" and alpha0 is not None:
        return solve_svm_dual(K, y, C, alpha0=alpha0, options=SVMDualOptions(
            tol=tol, check_input=False, backend="smo"))
    return solve_svm_dual(K, y, C, options=SVMDualOptions(tol=tol, check_input=False,
                                                          backend="libsvm"))


def kernel(X: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    """K_gamma of (13) using only the features with gamma_j > 0 (the others add 0)."""
    active = gamma > 0
    if not active.any():
        return np.ones((X.shape[0], X.shape[0]))
    return anisotropic_rbf_kernel(X[:, active], weights=gamma[active])


@dataclass
class LowerLevel:
    """The SVM (12) solved at ``gamma`` and completed to a point of (20)."""

    gamma: np.ndarray
    alpha: np.ndarray
    b: float
    value: float                 # V(gamma) at alpha: e'a - 1/2 a'Ga (a lower bound on V)
    primal: float                # (18a) at the completed point = SVM primal value >= V
    grad: np.ndarray             # dV/dgamma (Danskin)
    lambda0: np.ndarray
    lambdaC: np.ndarray
    time_s: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def nu(self) -> float:
        """The multiplier of y'a = 0 in (18): the SVM intercept b."""
        return self.b

    def point(self) -> dict[str, Any]:
        """The variables of (20) by the paper's names."""
        return {"gamma": self.gamma, "alpha": self.alpha, "nu": self.b,
                "lambda0": self.lambda0, "lambdaC": self.lambdaC}


def lower_level(problem: WeightingProblem, gamma: Any, *, alpha0: np.ndarray | None = None,
                tol: float = SVM_TOL, K: np.ndarray | None = None,
                engine: str = SVM_ENGINE) -> LowerLevel:
    """Solve the SVM dual (12) at ``gamma``: value, Danskin gradient and (18)-variables."""
    t0 = time.perf_counter()
    g = check_gamma(gamma, problem.n, "gamma")
    X, y, C = problem.X, problem.y, problem.C
    if K is None:
        K = kernel(X, g)
    res = svm_dual(K, y, C, alpha0=alpha0, tol=tol, engine=engine)
    alpha = np.clip(np.asarray(res.alpha, dtype=float), 0.0, C)
    b = float(res.b)
    c = alpha * y
    Kc = K @ c
    quad = float(c @ Kc)
    r = y * (Kc + b) - 1.0
    lam0, lamC = np.maximum(r, 0.0), np.maximum(-r, 0.0)
    sv = np.flatnonzero(alpha > 0)
    cs = c[sv]
    grad = 0.5 * pair_sq_diff_sum(X[sv], np.outer(cs, cs) * K[np.ix_(sv, sv)])
    return LowerLevel(gamma=g, alpha=alpha, b=b, value=float(alpha.sum()) - 0.5 * quad,
                      primal=0.5 * quad + C * float(lamC.sum()), grad=grad, lambda0=lam0,
                      lambdaC=lamC, time_s=time.perf_counter() - t0,
                      extra={"iterations": res.extra.get("iterations"), "n_support": sv.size})


def penalty_gradient(gamma: np.ndarray, p: float) -> np.ndarray:
    """d/dgamma of sum_j gamma_j^p on gamma >= 0 (+inf at 0 when p < 1)."""
    if p == 1.0:
        return np.ones_like(gamma)
    with np.errstate(divide="ignore"):
        return p * np.power(gamma, p - 1.0)


def kkt_residual(problem: WeightingProblem, ll: LowerLevel) -> dict[str, float]:
    """KKT residual of (20) at the completed point of ``ll`` (multiplier of (20b) = 0).

    ``stationarity``: max_j of the projected gradient of f = C2||g||_p^p + (1 - C2) V on
    g >= 0 (|df/dg_j| where g_j > 0, max(0, -df/dg_j) where g_j = 0; for p < 1 a zero g_j is
    stationary). ``complementarity``: (1 - C2) max_i max(lambda0_i a_i, lambdaC_i (C - a_i)),
    the products of the bounds of lambda0, lambdaC with their multipliers. ``feasibility``:
    max |(20b)|. ``kkt_residual``: the largest of the three (same units as the objective).
    ``scaled_stationarity``: stationarity * max(gamma) / max(1, |f|), the first-order change
    of f, relative to f, from moving gamma by its own size (scale-free across data sets).
    """
    D = 1.0 - problem.C2
    g = ll.gamma
    with np.errstate(invalid="ignore"):
        df = problem.C2 * penalty_gradient(g, problem.p) + D * ll.grad
    proj = np.where(g > 0, np.abs(df), np.maximum(0.0, -df))
    proj = np.where(np.isnan(proj), 0.0, proj)
    stat = float(proj.max()) if proj.size else 0.0
    C = problem.C
    comp = D * float(np.max(np.maximum(ll.lambda0 * ll.alpha, ll.lambdaC * (C - ll.alpha))))
    K = kernel(problem.X, g)
    y = problem.y
    row = y * (K @ (ll.alpha * y)) - 1.0 + ll.b * y - ll.lambda0 + ll.lambdaC
    feas = float(np.abs(row).max())
    f = abs(problem.objective(g, ll.value))
    scaled = stat * float(g.max(initial=0.0)) / max(1.0, f)
    return {"kkt_residual": max(stat, comp, feas), "stationarity": stat,
            "complementarity": comp, "feasibility": feas, "scaled_stationarity": scaled}


def check_gamma(gamma: Any, n: int, name: str = "gamma0") -> np.ndarray:
    """A finite nonnegative weight vector of length n (a scalar is repeated)."""
    try:
        g = np.asarray(gamma, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name}={gamma!r} must be a number or {n} numbers >= 0") from None
    if g.ndim == 0:
        g = np.full(n, float(g))
    if g.shape != (n,):
        raise ValueError(f"{name} has shape {g.shape}; pass one weight per feature ({n}) or a "
                         "scalar")
    if not np.all(np.isfinite(g)):
        raise ValueError(f"{name} contains NaN or inf; kernel weights must be finite")
    if np.any(g < 0):
        raise ValueError(f"{name} has negative entries (min {g.min():.3g}); kernel weights "
                         "gamma_j of (13) must be >= 0")
    return g.copy()
