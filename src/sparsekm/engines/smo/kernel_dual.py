"""One SMO solver for every kernel dual of the family (paper C, Section 4; paper A eq. (3)).

    min_a  f(a) = 1/2 a'Qa + p'a + sum_i phi_i(a_i)   s.t.  y'a = 0,  lo <= a <= hi,

``Q = (yy') * K``. :class:`Hinge` is the SVM dual (paper A eq. (3): ``phi = 0``, ``p = -1``,
box [0, C]); :class:`Logistic` the sparse KLR dual (paper C eq. (22): ``phi(a) = C G(a/C)``,
``p = -lam``, box [gamma, C - gamma] with the auxiliary bound gamma of Section 3.2).
:func:`solve_kernel_dual` runs the compiled loop of :mod:`.engine` and returns the one
:class:`~sparsekm.solvers.Result`, with a certified lower bound from the linearised duality gap
(:func:`~.certificate.linearized_bound`).
"""

from __future__ import annotations

import math
import numbers
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from sparsekm.data.checks import check_labels
from sparsekm.solvers.result import Result, Termination

from .certificate import linearized_bound
from .engine import FIRST_ORDER, HINGE, LOGISTIC, SECOND_ORDER, objective, smo_solve, workspace
from .kernel_source import KernelSource

__all__ = ["Hinge", "Logistic", "SMOOptions", "dual_gradient", "kkt_intercept", "solve_kernel_dual"]

WSS = {"second-order": SECOND_ORDER, "first-order": FIRST_ORDER}


def _positive(name: str, v: Any) -> Any:
    a = np.asarray(v, dtype=np.float64)
    if not (np.all(np.isfinite(a)) and np.all(a > 0)):
        raise ValueError(f"{name} must be a positive finite number (or array), got {v!r}")
    return float(a) if a.ndim == 0 else a


@dataclass(frozen=True)
class Hinge:
    """SVM dual (paper A eq. (3)): 1/2 a'Qa - 1'a, 0 <= a <= C (C scalar or per sample)."""

    C: float | np.ndarray = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "C", _positive("C", self.C))

    kind = HINGE
    name = "hinge"
    rho = 1.0  # the margin: -p

    def box(self, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(lo, hi, entropy scale) as arrays of length m."""
        c = np.broadcast_to(np.asarray(self.C, dtype=np.float64), (m,)).copy()
        return np.zeros(m), c, c.copy()


@dataclass(frozen=True)
class Logistic:
    """Sparse KLR dual (paper C eq. (22)): 1/2 a'Qa + sum C G(a/C) - lam 1'a.

    ``gamma`` is the auxiliary bound of Section 3.2 (box [gamma, C - gamma], Section 5.1:
    1e-5); ``lam = 0`` is plain KLR (Keerthi et al.'s dual (5)).
    """

    C: float | np.ndarray = 1.0
    lam: float = 0.0
    gamma: float = 1e-5

    kind = LOGISTIC
    name = "logistic"

    def __post_init__(self) -> None:
        object.__setattr__(self, "C", _positive("C", self.C))
        if not (isinstance(self.lam, numbers.Real) and math.isfinite(self.lam)):
            raise ValueError(f"lam must be a finite number, got {self.lam!r}")
        g = _positive("gamma", self.gamma)
        if not np.all(2 * g < np.asarray(self.C)):
            raise ValueError(f"the auxiliary bound gamma={self.gamma} must be < C/2 (box "
                             f"[gamma, C - gamma]); lower gamma or raise C={self.C}")

    @property
    def rho(self) -> float:
        """Observation 1: rho = lam at the optimum."""
        return float(self.lam)

    def box(self, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        c = np.broadcast_to(np.asarray(self.C, dtype=np.float64), (m,)).copy()
        return np.full(m, float(self.gamma)), c - self.gamma, c


@dataclass(frozen=True)
class SMOOptions:
    """Options of :func:`solve_kernel_dual` (defaults: paper C Section 5.1).

    wss : ``"second-order"`` (paper C eqs. (31)-(35)) or ``"first-order"`` (maximal violating
        pair, eq. (32); Keerthi et al.'s KLR-1ord).
    tol : stop when m(a) - M(a) <= tol (KKT conditions (27); 1e-5). libsvm's ``tol`` (eps)
        is the same quantity.
    max_iter : iteration cap (10,000 in Section 5.1; -1 for none).
    time_limit : seconds; on expiry the current point is returned with its bound.
    decide : ``(lo, hi)``: stop as soon as the certified interval [bound, objective] on the
        optimal value lies below ``lo`` or above ``hi`` (``extra["decided"]`` says which).
    check_every : iterations between time / decide checks.
    tau : curvature floor for non-positive-definite pairs (libsvm's TAU).
    shrinking : drop bounded variables that cannot join a violating pair from the working
        set every ``min(m, shrink_every)`` iterations, and rebuild the gradient before the
        stop (Fan, Chen & Lin 2005; libsvm's ``-h 1``; :mod:`.shrinking`).
    shrink_every : iterations between shrinking steps (libsvm: 1000).
    """

    wss: str = "second-order"
    tol: float = 1e-5
    max_iter: int = 10_000
    time_limit: float | None = None
    decide: tuple[float, float] | None = None
    check_every: int = 1000
    tau: float = 1e-12
    shrinking: bool = True
    shrink_every: int = 100

    def __post_init__(self) -> None:
        if self.wss not in WSS:
            raise ValueError(f"wss={self.wss!r}: choose 'second-order' or 'first-order'")
        _positive("tol", self.tol)
        if (isinstance(self.max_iter, bool) or not isinstance(self.max_iter, numbers.Integral)
                or not (self.max_iter == -1 or self.max_iter >= 0)):
            raise ValueError(f"max_iter must be -1 (no limit) or an integer >= 0, "
                             f"got {self.max_iter!r}")
        if self.time_limit is not None:
            _positive("time_limit", self.time_limit)
        if (isinstance(self.shrink_every, bool) or not isinstance(self.shrink_every,
                                                                  numbers.Integral)
                or self.shrink_every < 1):
            raise ValueError(f"shrink_every must be an integer >= 1, got {self.shrink_every!r}")
        if self.decide is not None:
            lo, hi = self.decide
            if not lo <= hi:
                raise ValueError(f"decide=(lo, hi) needs lo <= hi, got {self.decide!r}")


Loss = Hinge | Logistic


def dual_gradient(kernel: KernelSource, y: np.ndarray, alpha: np.ndarray, loss: Loss,
                  ) -> np.ndarray:
    """G = Qa + p + phi'(a): the gradient the engine maintains (O(m^2) once)."""
    lo, hi, c = loss.box(y.shape[0])
    v = alpha * y
    g = y * kernel.matvec(v) if np.any(v) else np.zeros_like(alpha)
    if loss.kind == LOGISTIC:
        g += np.log(alpha) - np.log(c - alpha) - loss.lam
    else:
        g -= 1.0
    return g


def _initial_point(y: np.ndarray, lo: np.ndarray, hi: np.ndarray, S: float) -> np.ndarray:
    """Uniform within each class with both class sums equal to S clipped to the feasible range.

    S = 1 gives Keerthi et al.'s start a_i = 1 / m_class (paper C Section 5.1) whenever it is
    inside the box; S = 0 the all-lower-bound start of the hinge.
    """
    pos = y > 0
    s_lo = max(lo[pos].sum(), lo[~pos].sum())
    s_hi = min(hi[pos].sum(), hi[~pos].sum())
    if s_lo > s_hi:
        raise ValueError("the box admits no point with y'a = 0: raise C (need C - gamma >= "
                         "gamma * n_majority / n_minority)")
    S = min(max(S, s_lo), s_hi)
    a = np.empty_like(lo)
    for mask in (pos, ~pos):
        width = (hi[mask] - lo[mask]).sum()
        theta = 0.0 if width == 0 else (S - lo[mask].sum()) / width
        a[mask] = lo[mask] + theta * (hi[mask] - lo[mask])
    return np.clip(a, lo, hi)


def _feasible(alpha0: Any, y: np.ndarray, lo: np.ndarray, hi: np.ndarray
              ) -> tuple[np.ndarray, bool]:
    """alpha0 as a feasible point; True when it had to be repaired (clipped / rebalanced).

    Repair: clip to the box, then shrink the heavier class toward its lower bounds until
    y'a = 0 (a warm start from another C or another auxiliary bound stays close).
    """
    a = np.array(alpha0, dtype=np.float64)
    if a.shape != y.shape or not np.all(np.isfinite(a)):
        raise ValueError(f"alpha0 must be a finite array of shape {y.shape}, got {a.shape}")
    scale = max(1.0, float(np.max(hi)))
    clipped = np.clip(a, lo, hi)
    repaired = bool(np.any(np.abs(clipped - a) > 1e-12 * scale))
    a = clipped
    r = float(y @ a)
    if abs(r) > 1e-12 * max(1.0, float(a.sum())):
        heavy = y > 0 if r > 0 else y < 0
        room = float((a[heavy] - lo[heavy]).sum())
        if room < abs(r):
            raise ValueError("alpha0 cannot be made feasible (y'alpha0 = "
                             f"{r:.3g}); pass a point with y'alpha0 = 0 inside the box")
        a[heavy] = lo[heavy] + (a[heavy] - lo[heavy]) * (1.0 - abs(r) / room)
        repaired = True
    return a, repaired


def kkt_intercept(alpha: np.ndarray, grad: np.ndarray, y: np.ndarray, lo: np.ndarray,
               hi: np.ndarray) -> float:
    """b of the decision function sum_j a_j y_j k(x_j, x) + b (libsvm's rule, b = -rho there).

    The KKT multiplier of y'a = 0 (eqs. (24)-(25)): the mean of -y G over free variables, or
    the midpoint of [M(a), m(a)] when none is free.
    """
    v = -y * grad
    free = (alpha > lo) & (alpha < hi)
    if np.any(free):
        return float(v[free].mean())
    up = ((y > 0) & (alpha < hi)) | ((y < 0) & (alpha > lo))
    low = ((y < 0) & (alpha < hi)) | ((y > 0) & (alpha > lo))
    top = v[up].max() if np.any(up) else v[low].min()
    bot = v[low].min() if np.any(low) else v[up].max()
    return float(0.5 * (top + bot))


def _rho(alpha: np.ndarray, grad: np.ndarray, y: np.ndarray, lo: np.ndarray, hi: np.ndarray,
         p: np.ndarray) -> float | None:
    """rho of paper C eq. (20) by least squares over the free variables (Observation 1).

    (20) reads rho + y_i b' = (Qa)_i + phi'(a_i) = G_i - p_i for every free i (b' = -b is the
    paper's intercept); with two unknowns the least-squares fit averages each class. None when
    a class has no free variable.
    """
    free = (alpha > lo) & (alpha < hi)
    r = grad - p
    pos, neg = free & (y > 0), free & (y < 0)
    if not (np.any(pos) and np.any(neg)):
        return None
    return float(0.5 * (r[pos].mean() + r[neg].mean()))


def _check_kernel(kernel: Any) -> KernelSource:
    if isinstance(kernel, KernelSource):
        return kernel
    return KernelSource.from_matrix(kernel)


def solve_kernel_dual(kernel: Any, y: Any, loss: Loss | None = None, *, alpha0: Any = None,
                      grad0: Any = None, options: SMOOptions | None = None) -> Result:
    """Solve a kernel dual of the family by SMO (paper C, SMO Algorithm).

    Parameters
    ----------
    kernel : (m, m) kernel matrix or a :class:`KernelSource` (rows on demand, LRU cache).
    y : (m,) labels in {-1, +1}.
    loss : :class:`Hinge` (default ``Hinge(1.0)``) or :class:`Logistic`.
    alpha0 : warm start; any point is clipped to the box and y'a = 0 restored (shrinking the
        heavier class), so the previous solution after a kernel change is a valid start.
        Default: 0 for the hinge, a_i = 1 / m_class for the logistic (Section 5.1).
    grad0 : the gradient ``G = Qa + p + phi'(a)`` at ``alpha0`` for *this* kernel, when the
        caller has it (saves the O(m^2) product); ignored when alpha0 needed a repair.
    options : :class:`SMOOptions` (working-set rule, tol, max_iter, time limit, decide).

    Returns
    -------
    Result
        ``objective`` = f(a) (minimised), ``bound`` = certified lower bound on min f;
        ``values``: ``alpha``, ``b`` (decision ``K(., X) @ dual_coef + b``), ``rho`` (eq. (20)
        least squares; lam at the optimum, 1 for the hinge), ``dual_coef`` (a * y),
        ``support`` (indices with a above its lower bound), ``grad`` (pass it back as
        ``grad0``); ``extra``: ``iterations``, ``kkt_violation`` (m(a) - M(a)), ``decided``
        ("below" / "above" / None), ``wss``, ``rows_computed``, ``rows_requested``.
    """
    t0 = time.perf_counter()
    ks = _check_kernel(kernel)
    ya = check_labels(y, ks.m)
    loss = Hinge() if loss is None else loss
    if not isinstance(loss, Hinge | Logistic):
        raise ValueError(f"loss must be Hinge(C) or Logistic(C, lam), got {loss!r}")
    opts = options or SMOOptions()
    m = ks.m
    lo, hi, c = loss.box(m)
    p = np.full(m, -loss.rho)
    if alpha0 is None:
        alpha = _initial_point(ya, lo, hi, 0.0 if loss.kind == HINGE else 1.0)
        repaired = True
    else:
        alpha, repaired = _feasible(alpha0, ya, lo, hi)
    if grad0 is not None and not repaired:
        grad = np.array(grad0, dtype=np.float64)
        if grad.shape != (m,) or not np.all(np.isfinite(grad)):
            raise ValueError(f"grad0 must be a finite array of shape ({m},)")
    else:
        grad = dual_gradient(ks, ya, alpha, loss)
    curv = ks.diag + (c / (alpha * (c - alpha)) if loss.kind == LOGISTIC else 0.0)
    st = (alpha, grad, ya, p, lo, hi, c, ks.diag, curv)
    result = _run(ks, st, loss, opts, t0)
    return result


def _run(ks: KernelSource, st: tuple, loss: Loss, opts: SMOOptions, t0: float) -> Result:
    """The chunked loop: engine iterations, then time-limit and decide checks between chunks."""
    alpha, grad, y, p, lo, hi, c, _, _ = st
    cap = math.inf if opts.max_iter == -1 else opts.max_iter
    chunked = opts.time_limit is not None or opts.decide is not None
    args = ks.numba_args()
    ws = workspace(y.shape[0], opts.shrink_every if opts.shrinking else 0)
    out = np.zeros(3)
    total, decided, term = 0, None, Termination.ITERATION_LIMIT
    while True:
        n = cap - total
        if chunked:
            n = min(n, opts.check_every)
        run_opts = np.array([loss.kind, WSS[opts.wss], opts.tol,
                             float(min(n, 2**62)), opts.tau])
        smo_solve(args, st, run_opts, out, ws)
        total += int(out[0])
        if out[1]:
            term = Termination.CONVERGED
            break
        if total >= cap:
            break
        if opts.time_limit is not None and time.perf_counter() - t0 >= opts.time_limit:
            term = Termination.TIME_LIMIT
            break
        if opts.decide is not None:
            f = objective(st, loss.kind)
            h, _ = linearized_bound(alpha, grad, y, lo, hi)
            if f < opts.decide[0]:
                decided = "below"
            elif f + h > opts.decide[1]:
                decided = "above"
            if decided:
                term = Termination.CONVERGED
                break
    f = float(objective(st, loss.kind))
    h, _ = linearized_bound(alpha, grad, y, lo, hi)
    support = np.flatnonzero(alpha > lo)
    res = Result(
        objective=f, bound=f + h, termination=term,
        time_s=time.perf_counter() - t0, solver="sparsekm-smo", method=f"smo-{loss.name}",
        values={"alpha": alpha, "b": kkt_intercept(alpha, grad, y, lo, hi),
                "rho": _rho(alpha, grad, y, lo, hi, p), "dual_coef": alpha * y,
                "support": support, "grad": grad},
        extra={"iterations": total, "kkt_violation": float(out[2]), "decided": decided,
               "wss": opts.wss, "tol": opts.tol, "shrinks": int(ws[3][5]),
               "reactivations": int(ws[3][6]), **ks.stats},
        message=f"decided: the optimum is {decided} the threshold" if decided else "")
    return res
