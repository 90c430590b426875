"""Baselines of paper B (Section 2.2), posed so that their weights are comparable with (4).

* ``average`` -- AverageMKL: beta_i = 1/q.
* ``easymkl`` -- EasyMKL (Aiolli & Donini 2015): gamma = argmin over the two class simplices of
  (1 - lam_easy) gamma'YK_sumYgamma + lam_easy ||gamma||^2 (K_sum = sum_i K_i / q), weights
  d_i = gamma'YK_iYgamma normalised to sum 1 (the paper's ||d||_1 variant), solved by
  accelerated projected gradient.
* ``cka`` -- centered-alignment weights of Cortes, Mohri & Rostamizadeh (2012, alignf): the
  *constrained* problem max_{beta >= 0} (beta'a)^2 / beta'M beta, i.e. the QP
  min_{v >= 0} v'Mv - 2 v'a, beta = v / sum v (MKLpy's closed form M^{-1}a drops v >= 0 and
  returns negative weights).
* ``single`` -- the strongest simple rival: one kernel of the same dictionary and C, chosen by
  stratified k-fold cross-validation of an SVC.

Each returns the SVM (C of the problem, or the CV choice for ``single``) on K(beta) and the value
of (4) at beta (without the sparsity constraint for the dense baselines).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from sparsekm.declare import Annotated, ParamError, Spec, with_
from sparsekm.models.smkl.problem import SMKLProblem
from sparsekm.models.smkl.specs import MAX_ITER, TOL
from sparsekm.models.smkl.subproblems import simplex_projection
from sparsekm.registry import Part, register, uses_solvers
from sparsekm.solvers import SolverPlan, Termination
from sparsekm.specs import PENALTY, SEED

from .result import method_result
from .specs import SVM_DUALS

__all__ = ["average", "cka", "easymkl", "single"]

LAM_EASY = Spec("EasyMKL's trade-off lambda in [0, 1] between the margin term and "
                "||gamma||^2 (Aiolli & Donini 2015; paper B Section 2.2).", ge=0, le=1)
FOLDS = Spec("Folds of single's stratified cross-validation (paper B Section 5: 10).", ge=2,
             le=100)
CS = with_(PENALTY, help="SVM penalties C tried by single's cross-validation, with every "
           "kernel of the dictionary.")


@register("smkl", "method", "average", paper="B", ref="Section 2.2 (AverageMKL)",
          problem_class="baseline")
@uses_solvers(svm=SVM_DUALS)
def average(problem: SMKLProblem, plan: SolverPlan | None = None) -> Any:
    """AverageMKL: the uniform combination of every kernel."""
    clock = (plan or SolverPlan()).start().clock
    t0 = time.perf_counter()
    return _timed(method_result(problem, "average", t0, deadline=clock,
                                evaluation=np.full(problem.q, 1.0 / problem.q)), clock)


def _timed(res: Any, clock: Any, cut: bool = False) -> Any:
    """``res`` stamped ``time_limit`` when the clock ran out in it (its SVM, or the method
    ``cut`` short): the weights it returns are then those of the work done."""
    if cut or clock.expired():
        res.termination = Termination.TIME_LIMIT
    return res


def _two_simplex_projection(v: np.ndarray, pos: np.ndarray) -> np.ndarray:
    out = np.empty_like(v)
    out[pos] = simplex_projection(v[pos])
    out[~pos] = simplex_projection(v[~pos])
    return out


@register("smkl", "method", "easymkl", paper="Aiolli & Donini 2015",
          ref="EasyMKL, paper B eqs. (5)-(6)", problem_class="baseline")
@uses_solvers(svm=SVM_DUALS)
def easymkl(problem: SMKLProblem, plan: SolverPlan | None = None, *,
            lam_easy: Annotated[float, LAM_EASY] = 0.1,
            max_iter: Annotated[int, MAX_ITER] = 2000,
            tol: Annotated[float, TOL] = 1e-8) -> Any:
    """EasyMKL weights (margin / variance trade-off ``lam_easy`` in [0, 1])."""
    clock = (plan or SolverPlan()).start().clock
    t0 = time.perf_counter()
    y, K = problem.y, problem.K
    Ks = K.mean(axis=0)
    Q = (1.0 - lam_easy) * (Ks * np.outer(y, y))
    Q[np.diag_indices_from(Q)] += lam_easy
    pos = y > 0
    # Lipschitz constant of the gradient 2Q by power iteration
    v = np.ones(problem.m) / np.sqrt(problem.m)
    for _ in range(50):
        v = Q @ v
        v /= np.linalg.norm(v)
    L = 2.0 * float(v @ Q @ v) * 1.01 + 1e-12
    g = _two_simplex_projection(np.ones(problem.m), pos)
    x_prev, tk, cut = g.copy(), 1.0, False
    for _ in range(max_iter):  # FISTA on the two class simplices
        if clock.expired():     # the limit: the iterate so far (each step costs O(m^2))
            cut = True
            break
        x = _two_simplex_projection(g - 2.0 * (Q @ g) / L, pos)
        t_next = 0.5 * (1 + np.sqrt(1 + 4 * tk * tk))
        g = x + ((tk - 1) / t_next) * (x - x_prev)
        if np.linalg.norm(x - x_prev) <= tol * max(1.0, np.linalg.norm(x)):
            x_prev = x
            break
        x_prev, tk = x, t_next
    gy = x_prev * y
    d = problem.dictionary.quad_forms(gy)
    d = np.clip(d, 0.0, None)
    beta = d / d.sum() if d.sum() > 0 else np.full(problem.q, 1.0 / problem.q)
    return _timed(method_result(problem, "easymkl", t0, evaluation=beta, lam_easy=lam_easy,
                                deadline=clock), clock, cut)


def _centered_gram(K: np.ndarray, y: np.ndarray, clock: Any
                   ) -> tuple[np.ndarray, np.ndarray | None]:
    """a_i = <K_i^c, yy'>, M_ij = <K_i^c, K_j^c> with K^c = HKH (H the centering matrix).

    One centred kernel at a time (``<HK_iH, HK_jH> = <K_i, HK_jH>``, H idempotent): one
    extra m x m matrix instead of a second (q, m, m) stack (1.7 GB on spambase). The clock is
    read between kernels; M is None when it ran out first."""
    q, m, _ = K.shape
    flat = K.reshape(q, -1)
    a, M = np.empty(q), np.empty((q, q))
    for j in range(q):
        if clock.expired():
            return a, None
        r = K[j].mean(axis=0)
        Kc = K[j] - r[None, :] - r[:, None] + r.mean()
        a[j] = float(y @ Kc @ y)
        M[:, j] = flat @ Kc.reshape(-1)
    return a, 0.5 * (M + M.T)


@register("smkl", "method", "cka", paper="Cortes, Mohri & Rostamizadeh 2012",
          ref="alignf (constrained), paper B Section 2.2", problem_class="baseline")
@uses_solvers(qp=Part("alignment QP", ("qp_solver", "relax_solver", "solver"),
                      classes=("QP",), framework="cvxpy"),
              svm=SVM_DUALS)
def cka(problem: SMKLProblem, plan: SolverPlan | None = None) -> Any:
    """Centered kernel alignment with beta >= 0: min_{v >= 0} v'Mv - 2a'v, beta = v / sum v."""
    import cvxpy as cp

    from sparsekm.solvers import solve

    plan = (plan or SolverPlan()).start()
    t0 = time.perf_counter()
    a, M = _centered_gram(problem.K, problem.y, plan.clock)
    if M is None:     # the limit before every alignment: the uniform weights
        uniform = np.full(problem.q, 1 / problem.q)
        return _timed(method_result(problem, "cka", t0, evaluation=uniform,
                                    deadline=plan.clock), plan.clock, True)
    s = float(np.trace(M)) / problem.q or 1.0
    v = cp.Variable(problem.q, nonneg=True, name="v")
    prob = cp.Problem(cp.Minimize(cp.quad_form(v, cp.psd_wrap(M / s)) - 2 * (a / s) @ v))
    solve(prob, solver=plan.qp_solver or plan.relax_solver or plan.solver,
           time_limit=plan.clock.cap(None))
    vv = np.clip(np.nan_to_num(np.asarray(v.value if v.value is not None else a, dtype=float)),
                 0.0, None)
    vv[vv < 1e-10 * vv.max()] = 0.0
    beta = vv / vv.sum() if vv.sum() > 0 else np.full(problem.q, 1.0 / problem.q)
    return _timed(method_result(problem, "cka", t0, evaluation=beta, deadline=plan.clock,
                                alignment=float((beta @ a) / np.sqrt(
                                    beta @ M @ beta * (problem.y @ problem.y) ** 2))),
                  plan.clock)


@register("smkl", "method", "single", paper="B", ref="Section 5 (single-kernel SVC baseline)",
          problem_class="baseline")
@uses_solvers(svm=Part("SVC cross-validation", (), default="scikit-learn SVC (libsvm)"))
def single(problem: SMKLProblem, plan: SolverPlan | None = None, *,
           folds: Annotated[int, FOLDS] = 10,
           Cs: Annotated[tuple[float, ...], CS] = (0.1, 1.0, 5.0, 10.0, 50.0, 100.0),
           seed: Annotated[int, SEED] = 0) -> Any:
    """One kernel of the dictionary and C chosen by stratified k-fold CV of an SVC."""
    from sklearn.model_selection import StratifiedKFold

    from sparsekm.models.smkl.problem import SMKLProblem as P

    clock = (plan or SolverPlan()).start().clock
    t0 = time.perf_counter()
    K, y = problem.K, problem.y
    smallest = int(min((y > 0).sum(), (y < 0).sum()))
    if folds > smallest:
        raise ParamError("folds", folds, f"at most {smallest}, the training rows of the "
                         "smaller class (each fold holds one of them at least)")
    skf = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    splits = list(skf.split(np.zeros(problem.m), y))
    scores = np.full((problem.q, len(Cs)), -np.inf)
    cut = False
    for i in range(problem.q):
        for c, C in enumerate(Cs):
            acc = []
            for tr, te in splits:
                if clock.expired():
                    cut = True
                    break
                acc.append(_fold_accuracy(K[i], y, tr, te, C, clock))
            if cut:
                break
            scores[i, c] = np.mean(acc)
        if cut:
            break
    if not np.isfinite(scores).any():   # the limit before a single (kernel, C) was scored
        scores[0, 0] = 0.0
    i, c = np.unravel_index(np.argmax(scores), scores.shape)
    beta = np.zeros(problem.q)
    beta[i] = 1.0
    sub = P(problem.X, y, problem.kernels, 1, Cs[c], problem.lam, problem.normalize,
            problem.dictionary)
    return _timed(method_result(sub, "single", t0, evaluation=beta, C_used=float(Cs[c]),
                                kernel=problem.labels[i], cv_accuracy=float(scores[i, c]),
                                deadline=clock), clock, cut)


def _fold_accuracy(K: np.ndarray, y: np.ndarray, tr: np.ndarray, te: np.ndarray, C: float,
                   clock: Any) -> float:
    """Test accuracy of an SVC fitted on one fold, its libsvm iterations capped by the time
    left (libsvm cannot be stopped from outside; spambase's 600 fits ran 300 s past a 5 s
    limit); a fit cut short by the cap predicts with the point it reached."""
    import warnings

    from sklearn.svm import SVC

    from sparsekm.engines.smo import LIBSVM_RATE

    left = clock.remaining()
    cap = -1 if not np.isfinite(left) else max(1000, int(left * LIBSVM_RATE / max(tr.size, 1)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # ConvergenceWarning of a capped fit
        clf = SVC(kernel="precomputed", C=C, max_iter=cap).fit(K[np.ix_(tr, tr)], y[tr])
    return float(np.mean(clf.predict(K[np.ix_(te, tr)]) == y[te]))
