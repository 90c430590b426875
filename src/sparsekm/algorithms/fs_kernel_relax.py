"""Solver-based methods for Paper A's MINLP (4): global MINLP solve and relax-and-round.

* :func:`solve_minlp` -- the MINLP (4) through :func:`sparsekm.solvers.solve` (SCIP by default;
  Gurobi's ``gurobi_direct_minlp`` where licensed) with a time limit: our open analogue of
  Paper A's Baron runs (Section 5.1). The incumbent mask is re-scored by the alpha-subproblem
  (3) so its objective is comparable with the heuristics; the solver's bound is kept.
* :func:`relax_round` -- Paper A's Ipopt baseline (Section 5.2): solve the continuous relaxation
  ``beta in [0,1]^n`` of (4) with Ipopt from ``beta_in`` and keep the ``B`` largest ``beta_j``.

Both are defined for the paper sense only: (4) jointly *minimizes* over alpha and beta; the
margin sense is a max-min (bilevel) problem that this single-level model does not express.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .fs_kernel_core import Evaluator, FSKernelProblem, FSKernelResult

__all__ = ["relax_round", "round_top_B", "solve_minlp"]


def _paper_only(problem: FSKernelProblem, method: str) -> None:
    if problem.sense != "paper":
        raise ValueError(
            f"method {method!r} solves the MINLP (4), a joint minimization over alpha and "
            "beta, so it needs sense='paper'; the margin sense (max over beta of min over "
            "alpha) is bilevel -- use method 'enumerate', 'ls', 'ls-star', 'rfe1' or 'rfe2'")


def round_top_B(beta: Any, B: int) -> np.ndarray:
    """Mask of the ``B`` largest components of ``beta`` (ties to the smaller index)."""
    v = np.asarray(beta, dtype=float)
    order = np.argsort(-v, kind="stable")
    out = np.zeros(v.shape[0], dtype=bool)
    out[order[:B]] = True
    return out


def _status_text(st: Any) -> str:
    return str(getattr(st, "value", st))


def solve_minlp(problem: FSKernelProblem, *, solver: str | None = None,
                time_limit: float | None = 60.0, beta_start: Any = None,
                **solver_options: Any) -> FSKernelResult:
    """Solve Paper A's MINLP (4) with a global MINLP solver (default SCIP) and a time limit.

    Returns an :class:`FSKernelResult` with ``status`` "optimal" (proved), "time_limit"
    (incumbent returned) or the solver's status; ``lower_bound`` is the solver's dual bound
    and ``extra["solver_objective"]`` its incumbent value.
    """
    from sparsekm.models.fs_kernel import fs_kernel_minlp
    from sparsekm.solvers import Status, solve

    _paper_only(problem, "minlp")
    p = problem
    t0 = time.perf_counter()
    mdl = fs_kernel_minlp(p.X, p.y, p.kernel, p.B, p.C, p.gamma, p.degree, p.coef0,
                          beta_start=beta_start)
    warm = beta_start is not None
    if warm:  # a full incumbent: beta_start and its SVM alpha
        a0, _, _ = Evaluator(p).solve_mask(round_top_B(beta_start, p.B))
        for i in range(p.m):
            mdl.alpha[i].set_value(float(a0[i]))
    res = solve(mdl, solver, time_limit=time_limit, warm_start=warm, **solver_options)
    vals = (res.values or {}).get("beta")
    st = _status_text(res.status)
    incumbent = vals is not None and res.status not in (Status.ERROR, Status.INFEASIBLE,
                                                         Status.UNBOUNDED)
    if incumbent:
        beta = round_top_B(vals, p.B)
    elif warm:
        beta = round_top_B(beta_start, p.B)
    else:
        raise RuntimeError(f"the MINLP solver returned no incumbent (status {st}); raise the "
                           "time limit or pass beta_start (e.g. an LS mask)")
    alpha, b, obj = Evaluator(p).solve_mask(beta)
    return FSKernelResult(
        beta=beta, objective=obj, alpha=alpha, b=b, method="minlp", sense=p.sense, status=st,
        time_s=time.perf_counter() - t0, n_evals=1,
        lower_bound=None if res.bound is None else float(res.bound),
        gap=None if res.gap is None else float(res.gap),
        extra={"solver": getattr(res, "solver", solver), "solver_objective": res.objective,
               "solver_time_s": res.time_s, "solver_incumbent": incumbent})


class _RelaxedNLP:
    """Callbacks of the relaxation of (4) for cyipopt: x = (alpha, beta), exact gradients.

    ``f = 1/2 sum_{ih} a_i a_h k_beta(x^i, x^h) - 1'alpha`` with ``a = alpha * y``;
    ``d f / d alpha = y * (K a) - 1``; ``d f / d beta_j = 1/2 a' (dK/dbeta_j) a`` with
    ``dK/dbeta_j = d gamma x_j x_j' (gamma S + c)^(d-1)`` (poly) or ``-gamma D_j * K`` (rbf).
    """

    def __init__(self, p: FSKernelProblem) -> None:
        self.p = p
        X = p.X
        if p.kernel == "poly":
            self.G = np.einsum("ij,hj->jih", X, X)  # x_j x_j'
        else:
            d = X[:, None, :] - X[None, :, :]
            self.G = np.moveaxis(d * d, 2, 0).copy()  # (x_ij - x_hj)^2
        m, n = p.m, p.n
        self.m, self.n = m, n
        self._jac = np.concatenate([np.concatenate([p.y, np.zeros(n)]),
                                    np.concatenate([np.zeros(m), np.ones(n)])])

    def _parts(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        p, m = self.p, self.m
        alpha, beta = x[:m], x[m:]
        S = np.tensordot(beta, self.G, axes=1)
        if p.kernel == "poly":
            base = p.gamma * S + p.coef0
            K = base ** p.degree
        else:
            base = None
            K = np.exp(-p.gamma * S)
        return alpha * p.y, K, base

    def objective(self, x: np.ndarray) -> float:
        a, K, _ = self._parts(x)
        return float(0.5 * a @ K @ a - x[: self.m].sum())

    def gradient(self, x: np.ndarray) -> np.ndarray:
        p = self.p
        a, K, base = self._parts(x)
        g_alpha = p.y * (K @ a) - 1.0
        if p.kernel == "poly":
            W = p.degree * p.gamma * base ** (p.degree - 1) * np.outer(a, a)
        else:
            W = -p.gamma * K * np.outer(a, a)
        g_beta = 0.5 * np.tensordot(self.G, W, axes=([1, 2], [0, 1]))
        return np.concatenate([g_alpha, g_beta])

    def constraints(self, x: np.ndarray) -> np.ndarray:
        return np.array([self.p.y @ x[: self.m], x[self.m:].sum()])

    def jacobian(self, x: np.ndarray) -> np.ndarray:
        return self._jac


def _relax_numpy(p: FSKernelProblem, beta0: np.ndarray, time_limit: float | None
                 ) -> tuple[np.ndarray, float, str]:
    import cyipopt

    nlp = _RelaxedNLP(p)
    m, n = p.m, p.n
    prob = cyipopt.Problem(n=m + n, m=2, problem_obj=nlp,
                           lb=np.zeros(m + n), ub=np.concatenate([np.full(m, p.C), np.ones(n)]),
                           cl=np.array([0.0, p.B]), cu=np.array([0.0, p.B]))
    prob.add_option("print_level", 0)
    prob.add_option("sb", "yes")
    prob.add_option("hessian_approximation", "limited-memory")
    prob.add_option("max_iter", 3000)
    if time_limit is not None:
        prob.add_option("max_wall_time", float(time_limit))
    x, info = prob.solve(np.concatenate([np.zeros(m), beta0]))
    msg = info["status_msg"]
    msg = msg.decode() if isinstance(msg, bytes) else str(msg)
    return x[m:], float(info["obj_val"]), msg[:80]


def relax_round(problem: FSKernelProblem, beta_in: Any = None, *, solver: str | None = None,
                time_limit: float | None = 1800.0, backend: str = "auto",
                **solver_options: Any) -> FSKernelResult:
    """Paper A's Ipopt baseline: relaxation of (4) with ``beta in [0,1]``, round ``B`` largest.

    ``beta_in`` is Ipopt's start point (the paper's multistart draws random masks; default
    ``beta_j = B/n``). ``backend="pyomo"`` builds the Pyomo model
    (:func:`sparsekm.models.fs_kernel.fs_kernel_minlp` with ``relax=True``) and solves it
    through :func:`sparsekm.solvers.solve` (``solver``, default Ipopt); ``backend="numpy"``
    gives Ipopt (cyipopt) exact numpy gradients of the same NLP, O(m^2 n) per evaluation --
    needed beyond tiny instances (m = 30, n = 13, d = 3: 0.75 s against 73 s, same mask,
    under load). ``"auto"``: Pyomo
    for m <= 15, numpy above. ``extra["beta_relaxed"]`` holds the relaxed solution and
    ``extra["integral"]`` whether it was already binary (Paper A observes it usually is).
    """
    from sparsekm.models.fs_kernel import fs_kernel_minlp
    from sparsekm.solvers import solve

    _paper_only(problem, "relax-round")
    if backend not in ("auto", "pyomo", "numpy"):
        raise ValueError(f"backend must be 'auto', 'pyomo' or 'numpy', got {backend!r}")
    p = problem
    t0 = time.perf_counter()
    auto = backend == "auto"
    if auto:
        backend = "pyomo" if p.m <= 15 or solver not in (None, "ipopt") else "numpy"
    beta0 = (np.full(p.n, p.B / p.n) if beta_in is None
             else np.asarray(beta_in, dtype=float))
    if backend == "numpy":
        vals, relax_obj, relax_status = _relax_numpy(p, beta0, time_limit)
    else:
        mdl = fs_kernel_minlp(p.X, p.y, p.kernel, p.B, p.C, p.gamma, p.degree, p.coef0,
                              relax=True, beta_start=beta0, aux=False)
        res = solve(mdl, solver, time_limit=time_limit, **solver_options)
        vals = (res.values or {}).get("beta")
        relax_obj, relax_status = res.objective, _status_text(res.status)
        if vals is None and auto:  # e.g. an evaluation error inside the Pyomo adapter
            vals, relax_obj, relax_status = _relax_numpy(p, beta0, time_limit)
            backend = "numpy (after pyomo failed)"
        if vals is None:
            raise RuntimeError(f"the NLP solver returned no point (status {relax_status}); "
                               "try backend='numpy'")
    vals = np.clip(np.asarray(vals, dtype=float), 0.0, 1.0)
    beta = round_top_B(vals, p.B)
    alpha, b, obj = Evaluator(p).solve_mask(beta)
    return FSKernelResult(
        beta=beta, objective=obj, alpha=alpha, b=b, method="relax-round", sense=p.sense,
        status="heuristic", time_s=time.perf_counter() - t0, n_evals=1,
        extra={"relaxation_objective": relax_obj, "relaxation_status": relax_status,
               "backend": backend,
               "beta_relaxed": vals, "integral": bool(np.all(np.minimum(vals, 1 - vals) < 1e-4))})
