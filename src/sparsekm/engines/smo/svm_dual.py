"""The SVM dual with a precomputed kernel, solved natively (the alpha-subproblem of paper A).

Paper A, eq. (3) -- and, for a fixed mask ``beta``, the alpha-subproblem of eq. (4):

    min_alpha  1/2 alpha' Q alpha - 1' alpha   s.t.  y' alpha = 0,  0 <= alpha <= C,
    Q = diag(y) K diag(y).

:func:`solve_svm_dual` returns the one :class:`~sparsekm.solvers.Result`: ``objective`` is the
dual value D(alpha) and ``bound`` the weak-duality bound -P(w(alpha), b*) <= D*
(:mod:`.certificate`), so every fast solve carries its own certificate.
"""

from __future__ import annotations

import math
import numbers
import time
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from sparsekm.data.checks import check_labels
from sparsekm.solvers.result import DEFAULT_GAP_TOL, Result, Termination, relative_gap

from .certificate import svm_duality
from .libsvm import fit_libsvm

__all__ = ["SVMDualOptions", "decision_function", "dual_objective", "load_engine",
           "primal_objective", "solve_svm_dual"]

BACKENDS = ("auto", "libsvm", "svc", "smo")


def _check_K(K: Any, check_finite: bool = True) -> np.ndarray:
    Ka = np.asarray(K, dtype=np.float64)
    if Ka.ndim != 2 or Ka.shape[0] != Ka.shape[1]:
        raise ValueError(
            f"K must be a square (m, m) kernel matrix of the training points, got shape "
            f"{Ka.shape}; build it with sparsekm.kernels.kernel_matrix(X)")
    if Ka.shape[0] < 2:
        raise ValueError("K must have at least 2 rows (one point of each class)")
    if check_finite and not np.all(np.isfinite(Ka)):
        raise ValueError("K contains NaN or infinite values; check the kernel parameters")
    return Ka


def _check_C(C: Any) -> float:
    if isinstance(C, bool) or not isinstance(C, numbers.Real):
        raise ValueError(f"C must be a positive number, got {C!r}")
    c = float(C)
    if not (np.isfinite(c) and c > 0):
        raise ValueError(f"C must be a positive finite number, got {C!r}")
    return c


def _check_alpha(alpha: Any, m: int) -> np.ndarray:
    a = np.asarray(alpha, dtype=np.float64)
    if a.shape != (m,):
        raise ValueError(f"alpha must have shape ({m},), got {a.shape}")
    return a


def dual_objective(K: Any, y: Any, alpha: Any) -> float:
    """Dual value ``1/2 a'Qa - 1'a`` with ``Q = diag(y) K diag(y)`` (Paper A, eq. (3))."""
    Ka = _check_K(K, check_finite=False)
    ya = check_labels(y, Ka.shape[0])
    a = _check_alpha(alpha, Ka.shape[0])
    v = a * ya
    return float(0.5 * (v @ (Ka @ v)) - a.sum())


def primal_objective(K: Any, y: Any, alpha: Any, b: float, C: float) -> float:
    """Primal value ``1/2 alpha' Q alpha + C sum_i max(0, 1 - y_i f(x_i))``.

    The soft-margin SVM objective of Paper A, eq. (2) (Paper D, eq. (1)) in kernel form, with
    ``w = sum_i alpha_i y_i phi(x_i)`` so that ``||w||^2 = alpha' Q alpha`` and
    ``f = K (alpha * y) + b``. At an optimum it equals ``-dual_objective`` (strong duality).
    """
    Ka = _check_K(K, check_finite=False)
    ya = check_labels(y, Ka.shape[0])
    a = _check_alpha(alpha, Ka.shape[0])
    c = _check_C(C)
    v = a * ya
    Kv = Ka @ v
    hinge = np.maximum(0.0, 1.0 - ya * (Kv + float(b)))
    return float(0.5 * (v @ Kv) + c * hinge.sum())


def decision_function(res: Result, K_test_train: Any) -> np.ndarray:
    """Decision values ``f = K_test_train @ (alpha * y) + b`` of a :func:`solve_svm_dual` result.

    ``K_test_train`` has shape (t, m) (kernel between test rows and the m training rows) or
    (m,) for one test point.
    """
    coef = res.values["dual_coef"]
    Kt = np.asarray(K_test_train, dtype=np.float64)
    if Kt.shape[-1] != coef.shape[0] or Kt.ndim not in (1, 2):
        raise ValueError(
            f"K_test_train must have shape (n_test, {coef.shape[0]}) -- kernel between test "
            f"rows and the {coef.shape[0]} training rows -- got {Kt.shape}")
    return Kt @ coef + res.values["b"]


@dataclass(frozen=True)
class SVMDualOptions:
    """Solver options of :func:`solve_svm_dual` (checked on construction).

    tol : stopping tolerance on the maximal KKT violation m(a) - M(a) (libsvm's eps; the
        same quantity for every backend).
    max_iter : SMO iteration limit, ``-1`` for none; hitting it warns and ends with
        termination ``iteration_limit``.
    cache_size : libsvm's kernel cache in MB.
    check_input : check that ``K`` is finite and symmetric (O(m^2)); False in inner loops
        whose kernels are known to be valid.
    backend : ``"libsvm"`` (scikit-learn's compiled libsvm, called directly), ``"svc"``
        (through ``SVC``), ``"smo"`` (sparsekm's compiled SMO engine,
        :func:`~sparsekm.engines.smo.solve_kernel_dual`: second-order working set,
        shrinking) or ``"auto"``: libsvm for a cold start, the engine when ``alpha0`` is
        given (libsvm cannot warm start). Measured cold, same process, precomputed rbf
        kernels, m = 3000, C = 1 / 10 / 100 (``benchmarks/results/sklr_engine.md``): the
        engine takes 0.40-0.88x libsvm's time (medians by C; max 1.04x), 0.96-1.19x on
        m = 351-768; ``auto`` keeps libsvm cold so that callers whose results must stay
        bit-identical (paper A's plain path) do not change.
    gap_tol : the relative duality gap (D(alpha) + P) / |D(alpha)| the result must reach to
        count as optimal. A KKT tolerance is absolute, so at a large C the gap it leaves can be
        large (1.4 % on sonar at C = 1e5, tol 1e-6): when the gap is above ``gap_tol`` the
        solve goes on in the engine from the same alpha with a 100x tighter tol, up to
        ``refine`` times. None: no refinement (inner loops), the status still says which.
    refine : the largest number of such refinements.
    time_limit : seconds for the solve; the engine stops there and returns its point with the
        bound it certifies. libsvm cannot be stopped from outside: its iterations are capped at
        ``LIBSVM_RATE * time_limit / m`` (a solve that converges within that is unchanged;
        one libsvm solve ran 139 s under a 5 s limit on german's poly kernel before).
    """

    tol: float = 1e-6
    max_iter: int = -1
    cache_size: float = 200.0
    check_input: bool = True
    backend: str = "auto"
    gap_tol: float | None = None
    refine: int = 4
    time_limit: float | None = None

    def __post_init__(self) -> None:
        tol, max_iter = self.tol, self.max_iter
        if isinstance(tol, bool) or not isinstance(tol, numbers.Real) or not tol > 0:
            raise ValueError(f"tol must be a positive number, got {tol!r}")
        if (isinstance(max_iter, bool) or not isinstance(max_iter, numbers.Integral)
                or not (max_iter == -1 or max_iter >= 1)):
            raise ValueError(f"max_iter must be -1 (no limit) or a positive integer, got "
                             f"{max_iter!r}")
        if not (isinstance(self.cache_size, numbers.Real) and self.cache_size > 0):
            raise ValueError(f"cache_size must be a positive number of MB, got "
                             f"{self.cache_size!r}")
        if self.gap_tol is not None and not 0 <= self.gap_tol < 1:
            raise ValueError(f"gap_tol must be in [0, 1), got {self.gap_tol!r}")
        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got "
                             f"{self.backend!r}")


def solve_svm_dual(K: Any, y: Any, C: float, *, alpha0: Any = None, grad0: Any = None,
                   options: SVMDualOptions | None = None) -> Result:
    """Solve the SVM dual (Paper A, eq. (3)) for a precomputed kernel matrix.

    Parameters
    ----------
    K : (m, m) symmetric PSD kernel matrix of the training points (e.g. ``MaskedKernel.K``).
    y : (m,) labels in {-1, +1}; both classes must be present.
    C : box constraint ``0 <= alpha <= C``.
    alpha0 : warm start (e.g. the alpha of the previous kernel); clipped to [0, C] and
        rebalanced to y'a = 0 if needed. Needs backend ``"smo"`` or ``"auto"``.
    grad0 : the gradient ``y * (K @ (alpha0 * y)) - 1`` for *this* K when the caller has it.
    options : :class:`SVMDualOptions` (tol, max_iter, cache_size, check_input, backend).

    Returns
    -------
    Result
        ``values``: ``alpha``, ``b``, ``dual_coef`` (alpha * y), ``support`` (indices with
        alpha > 0); ``objective`` the dual value D(alpha) (<= 0), ``bound`` the certified
        lower bound -P(w(alpha), b*) on it; ``extra``: ``iterations``, ``solve_s`` (the
        backend's solve with its refinement rounds and certificate, without the input checks
        and loading; ``time_s`` encloses it) and ``load_s``
        (loading the backend's compiled code, once per process: importing scikit-learn's
        libsvm, or numba's cached machine code of the engine; 0 afterwards).
    """
    t0 = time.perf_counter()
    opts = options if options is not None else SVMDualOptions()
    if not isinstance(opts, SVMDualOptions):
        raise ValueError(f"options must be an SVMDualOptions, got {type(opts).__name__}")
    backend, tol, max_iter = opts.backend, opts.tol, opts.max_iter
    if alpha0 is not None and backend in ("libsvm", "svc"):
        raise ValueError(f"backend={backend!r} cannot warm start (libsvm starts from 0); drop "
                         "alpha0 or use backend='smo' / 'auto'")
    Ka = _check_K(K, check_finite=opts.check_input)
    m = Ka.shape[0]
    ya = check_labels(y, m)
    c = _check_C(C)
    if opts.check_input:
        asym = float(np.max(np.abs(Ka - Ka.T)))
        scale = max(1.0, float(np.max(np.abs(np.diagonal(Ka)))))
        if asym > 1e-8 * scale:
            raise ValueError(f"K is not symmetric (max |K - K'| = {asym:.3g}); pass "
                             "sparsekm.kernels.symmetrize(K)")
    Kc = np.ascontiguousarray(Ka)
    use_smo = backend == "smo" or (backend == "auto" and alpha0 is not None)
    load_s = _load("smo" if use_smo else "libsvm")
    t1 = time.perf_counter()
    if use_smo:
        alpha, b, converged, n_iter, solver = _fit_smo(Kc, ya, c, opts, (alpha0, grad0))
    else:
        alpha, b, converged, n_iter, solver, load_s = _fit_checked(Kc, ya, c, opts, t0, load_s)
    if not converged and opts.time_limit is None:
        from sklearn.exceptions import ConvergenceWarning

        warnings.warn(f"{solver} stopped at max_iter={max_iter} before reaching tol={tol}; "
                      "raise max_iter", ConvergenceWarning, stacklevel=2)
    objective, primal, g = _values(Kc, ya, alpha, c)
    rounds, sub_tol = 0, float(tol)
    while (opts.gap_tol is not None and rounds < opts.refine and sub_tol > 1e-15
           and (relative_gap(objective, -primal) or 0.0) > opts.gap_tol
           and not _expired(opts, t0)):
        rounds, sub_tol = rounds + 1, sub_tol / 100.0
        load_s += _load("smo")
        left = None if opts.time_limit is None else opts.time_limit - (time.perf_counter() - t0)
        alpha, b, converged, more, _ = _fit_smo(
            Kc, ya, c, SVMDualOptions(tol=sub_tol, max_iter=max_iter, time_limit=left),
            (alpha, None))
        n_iter += more
        objective, primal, g = _values(Kc, ya, alpha, c)
    now = time.perf_counter()   # one clock reading: time_s encloses solve_s by construction
    return Result(
        objective=objective, bound=-primal,
        termination=Termination.CONVERGED if converged else Termination.TIME_LIMIT
        if _expired(opts, t0) else Termination.ITERATION_LIMIT,
        gap_tol=DEFAULT_GAP_TOL if opts.gap_tol is None else opts.gap_tol,
        time_s=now - t0, solver=solver, method="svm-dual",
        values={"alpha": alpha, "b": b, "dual_coef": alpha * ya,
                "support": np.flatnonzero(alpha > 0), "grad": ya * g - 1.0},
        extra={"iterations": n_iter, "solve_s": now - t1, "load_s": load_s,
               "refinements": rounds, "refined_by": "sparsekm-smo" if rounds else None})


LIBSVM_RATE = 1e8   # m x iterations per second: 2.4e8 - 4.3e8 measured (m = 1000 - 3000)
HANDOFF_WORK = 2e9  # m x engine iterations after a failed libsvm solve without any limit


def _fit_checked(K: np.ndarray, y: np.ndarray, C: float, opts: SVMDualOptions, t0: float,
                 load_s: float) -> tuple[np.ndarray, float, bool, int, str, float]:
    """libsvm, its answer checked in float64: (alpha, b, converged, iterations, solver, load_s).

    libsvm keeps its kernel columns in single precision (``Qfloat``), so on a badly scaled
    kernel its own stop rule is met at a point it misjudges: on unscaled wine (poly, entries
    up to 8e10) it "converged" after 24.6 million iterations at a dual value of +53247, worse
    than alpha = 0 (value 0). Its stop rule ``m(a) - M(a) <= tol`` bounds the duality gap by
    ``m C tol`` when its arithmetic holds; a larger gap, or a stop at the iteration cap that
    the time limit set (the time left, not the problem, decided where it stopped), hands the
    solve to the engine (double precision, stopped by the clock) from the better of libsvm's
    point and alpha = 0; without a time limit or an iteration limit, for at most
    ``HANDOFF_WORK / m`` iterations. A solve that libsvm finishes correctly is unchanged.
    """
    m, tol = K.shape[0], float(opts.tol)
    cap = _libsvm_iterations(opts, m)
    alpha, b, converged, n_iter = fit_libsvm(K, y, C, tol, cap, float(opts.cache_size),
                                             opts.backend)
    objective, primal, _ = _values(K, y, alpha, C)
    broken = converged and objective + primal > m * C * tol + 1e-9 * max(1.0, abs(objective))
    capped_by_time = not converged and cap != opts.max_iter
    if not (broken or capped_by_time) or opts.backend in ("libsvm", "svc") or _expired(opts, t0):
        return alpha, b, converged, n_iter, "libsvm", load_s
    load_s += _load("smo")
    start = alpha if objective < 0.0 else np.zeros(m)
    left = None if opts.time_limit is None else opts.time_limit - (time.perf_counter() - t0)
    cap = opts.max_iter if opts.max_iter != -1 or left is not None else \
        max(1000, int(HANDOFF_WORK / m))
    sub = SVMDualOptions(tol=tol, max_iter=cap, time_limit=left)
    alpha, b, converged, more, solver = _fit_smo(K, y, C, sub, (start, None))
    return alpha, b, converged, n_iter + more, f"libsvm+{solver}", load_s


def _libsvm_iterations(opts: SVMDualOptions, m: int) -> int:
    """libsvm's iteration limit: ``max_iter``, capped by the time limit (at least 1000)."""
    cap = opts.max_iter
    if opts.time_limit is not None and math.isfinite(opts.time_limit):
        budget = max(1000, min(int(opts.time_limit * LIBSVM_RATE / max(m, 1)), 2**31 - 1))
        cap = budget if cap == -1 else min(cap, budget)
    return int(cap)


def _expired(opts: SVMDualOptions, t0: float) -> bool:
    return opts.time_limit is not None and time.perf_counter() - t0 >= opts.time_limit


def _values(K: np.ndarray, y: np.ndarray, alpha: np.ndarray, C: float
            ) -> tuple[float, float, np.ndarray]:
    """(dual value D(alpha), primal value P(w(alpha), b*), K (alpha * y)): -P is a certified
    bound on D*."""
    v = alpha * y
    g = K @ v
    primal, _, _ = svm_duality(K, y, alpha, C, g=g)
    return float(0.5 * (v @ g) - alpha.sum()), float(primal), g


_LOADED: set[str] = set()


def load_engine() -> float:
    """Load (on a cold numba cache: compile) the SMO engine's hinge case; the seconds taken.
    A method's ``warm_up`` calls it so that the compilation is not charged to a solve and
    its time limit (``fast`` on madelon reaches it through the full SVM's dual)."""
    return _load("smo")


def _load(backend: str) -> float:
    """Load a backend's compiled code once per process (seconds taken; 0 when loaded).

    Measured in a fresh process on the loaded 2-core machine: importing scikit-learn's libsvm
    1-3 s, loading the engine's numba cache about 1 s; neither is part of a solve.
    """
    if backend in _LOADED:
        return 0.0
    t0 = time.perf_counter()
    if backend == "smo":
        from .kernel_dual import Hinge, solve_kernel_dual

        solve_kernel_dual(np.eye(2), np.array([1.0, -1.0]), Hinge(1.0))
    else:
        from sklearn.svm import _libsvm  # noqa: F401
    _LOADED.add(backend)
    return time.perf_counter() - t0


def _fit_smo(K: np.ndarray, y: np.ndarray, C: float, opts: SVMDualOptions,
             start: tuple[Any, Any]) -> tuple[np.ndarray, float, bool, int, str]:
    """The hinge case of the SMO engine from ``start = (alpha0, grad0)``; (alpha, b,
    converged, iterations, solver)."""
    from .kernel_dual import Hinge, SMOOptions, solve_kernel_dual

    limit = None if opts.time_limit is None else max(float(opts.time_limit), 1e-3)
    res = solve_kernel_dual(K, y, Hinge(C), alpha0=start[0], grad0=start[1],
                            options=SMOOptions(tol=float(opts.tol), max_iter=int(opts.max_iter),
                                               time_limit=limit))
    converged = res.termination is Termination.CONVERGED
    return res.alpha, float(res.b), converged, int(res.extra["iterations"]), res.solver
