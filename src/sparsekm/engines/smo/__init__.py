"""Native solvers for kernel duals: one compiled SMO engine (paper C) and libsvm.

The family: ``min_a 1/2 a'Qa + p'a + sum_i phi(a_i)``, ``Q = (yy') * K``, ``y'a = 0``, box
bounds, with ``phi`` linear (hinge: the SVM dual, paper A eq. (3)) or the entropy
``C G(a / C) - lam a`` (logistic: paper C eq. (22)).

Public API (small on purpose):

``solve_kernel_dual(kernel, y, loss, *, alpha0=None, grad0=None, options=None) -> Result``
    SMO with paper C's second-order working set (eqs. (31)-(35)) or the first-order maximal
    violating pair; ``loss`` is ``Hinge(C)`` or ``Logistic(C, lam, gamma=1e-5)``;
    ``options = SMOOptions(wss, tol=1e-5, max_iter=10_000, time_limit, decide)``. Warm start
    from any ``alpha0`` (clipped and rebalanced to be feasible) and, when the caller has it,
    ``grad0`` (the gradient ``res.grad`` of the previous solve is valid only for the same
    kernel). ``decide=(lo, hi)`` stops as soon as the certified interval [bound, objective]
    on the optimal value lies below ``lo`` or above ``hi`` (``res.extra["decided"]``).
``KernelSource.from_matrix(K)`` / ``KernelSource.from_data(X, spec, cache_mb)``
    a precomputed kernel, or rows computed on demand in a bounded LRU cache.
``solve_svm_dual(K, y, C, *, alpha0=None, grad0=None, options=SVMDualOptions(...))``
    the SVM dual with its weak-duality certificate; ``SVMDualOptions(tol, max_iter,
    cache_size, check_input, backend)``: libsvm for cold starts under ``"auto"``, this engine
    for warm starts (``backend="smo"`` forces it, cold too); ``extra["solve_s"]`` times the
    backend alone.
``fit_libsvm(K, y, C, tol, max_iter, cache_size)``
    libsvm's SMO on a precomputed kernel (scikit-learn's compiled entry point), no
    certificate: (alpha, b, converged, iterations).
``svm_duality``, ``linearized_bound``
    certified lower bounds from any feasible point.

Compiled building blocks, for numba callers that run many small solves themselves (paper A's
local search): ``smo_run`` / ``smo_decide`` (:mod:`.decide`: stop when a certified interval
decides a comparison; ``BELOW`` / ``ABOVE``), ``lin_bound``, ``get_row`` (a kernel row from
the tuple ``ks`` of :mod:`.rows`), the kinds ``HINGE`` / ``LOGISTIC`` / ``FIRST_ORDER`` /
``SECOND_ORDER`` and the masked-kernel rows of :mod:`.masked_rows` (``MASKED_POLY``,
``MASKED_RBF``, ``ipow``, ``masked_diag``, ``masked_matrix``, ``masked_row``,
``masked_segment``, ``masked_upper``, ``upper_segment``, ``stack_columns``) with ``upper_decide`` /
``upper_gradient`` (:mod:`.upper_decide`: SMO on a dense block's upper triangle).
Algorithms import these names from ``sparsekm.engines.smo`` only.

Every solve returns the one :class:`~sparsekm.solvers.Result` with ``objective`` (the dual
value, minimised), a certified ``bound``, ``values`` alpha, b, rho, dual_coef, support and
``extra`` iterations, kkt_violation.
"""

from .certificate import feasible_alpha, linearized_bound, optimal_intercept, svm_duality
from .decide import ABOVE, BELOW, UNDECIDED, lin_bound, smo_decide
from .engine import FIRST_ORDER, HINGE, LOGISTIC, SECOND_ORDER, get_row, smo_run
from .kernel_dual import (
    Hinge,
    Logistic,
    SMOOptions,
    dual_gradient,
    kkt_intercept,
    solve_kernel_dual,
)
from .kernel_source import KernelSource
from .libsvm import fit_libsvm
from .masked_rows import (
    MASKED_POLY,
    MASKED_RBF,
    exp_neg,
    ipow,
    masked_diag,
    masked_matrix,
    masked_row,
    masked_segment,
    masked_upper,
    stack_columns,
    upper_segment,
)
from .svm_dual import (
    LIBSVM_RATE,
    SVMDualOptions,
    decision_function,
    dual_objective,
    load_engine,
    primal_objective,
    solve_svm_dual,
)
from .upper_decide import upper_decide, upper_gradient

__all__ = ["ABOVE", "BELOW", "FIRST_ORDER", "HINGE", "LIBSVM_RATE", "LOGISTIC", "MASKED_POLY",
           "MASKED_RBF",
           "SECOND_ORDER", "UNDECIDED", "Hinge", "KernelSource", "Logistic",
           "SMOOptions", "SVMDualOptions", "decision_function", "dual_gradient",
           "dual_objective", "exp_neg", "feasible_alpha", "fit_libsvm", "get_row", "ipow",
           "kkt_intercept", "lin_bound",
           "linearized_bound", "load_engine",
           "masked_diag", "masked_matrix", "masked_row", "masked_segment",
           "masked_upper", "optimal_intercept",
           "primal_objective", "smo_decide", "smo_run", "solve_kernel_dual", "solve_svm_dual",
           "stack_columns", "svm_duality", "upper_decide", "upper_gradient",
           "upper_segment"]
