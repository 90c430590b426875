"""Exact models of linear SVM feature selection with a hard cardinality constraint (paper D).

Paper D: Bomze, D'Onofrio, Palagi, Peng, "Feature selection in linear Support Vector Machines
via a hard cardinality constraint: a scalable conic decomposition approach" (2024).

Module -> paper map
-------------------
* :func:`svm_model`, :func:`solve_svm`      plain SVM (1); with ``l1 > 0`` the elastic-net
  SVM baseline of Section 5.4 (EN-SVM: (1) + alpha ||w||_1).
* :func:`bigm_model`                         BigMP (6) with Omega_M (4); Remark 2.1 ("= B"/"<= B").
* :func:`cop_model`                          CoP (7); restricted CoP(K) (16) when ``K`` is given,
  with the Kernel Search cuts (17) (objective <= UB) and (18) (a new feature is selected).
* :func:`sr_dlmp_model`                      SR-DSCoP(K) (20) written as the MISOCP SR-DLMP(K) (21).
* :func:`solve_fs_model`, :func:`enumerate_supports`, :func:`estimate_big_m`  helpers.

Notation follows the paper: ``w, b, xi`` the hyperplane and slacks, ``v`` (BigMP) marks selected
features, ``u = 1 - v`` (CoP) marks *zero* features, ``W`` the diagonal lifted variables,
``B`` the budget, ``C`` the penalty, ``M`` the big-M, ``K`` a feature subset.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sparsekm.solvers import (
    ProblemClass,
    Result,
    Status,
    declare_class,
    relative_gap,
    solve,
)

CARDINALITIES = ("eq", "le")
COP_FORMS = ("bilinear", "perspective")
SR_FORMS = ("paper", "perspective")


# ----------------------------------------------------------------------------------------------
# input checks and results
# ----------------------------------------------------------------------------------------------
def check_fs_inputs(X: Any, y: Any, B: int | None = None, C: float | None = None,
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Validate ``X`` (m x n), ``y`` in {-1, +1}, budget ``1 <= B <= n`` and ``C > 0``.

    Returns float ``X`` and ``y`` arrays; raises ``ValueError`` naming the fix.
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D array (m samples x n features), got shape {X.shape}")
    y = np.asarray(y, dtype=float).ravel()
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"y has {y.shape[0]} labels but X has {X.shape[0]} rows")
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or inf; impute or drop those entries first")
    labels = set(np.unique(y).tolist())
    if not labels <= {-1.0, 1.0}:
        raise ValueError(f"labels must be -1/+1, got {sorted(labels)[:5]}; map them first "
                         "(e.g. sparsekm.data.as_dataset does it)")
    if len(labels) < 2:
        raise ValueError("y contains one class only; feature selection for SVM needs both "
                         "classes -1 and +1")
    n = X.shape[1]
    if B is not None:
        if int(B) != B or B < 1:
            raise ValueError(f"budget B={B} must be an integer >= 1")
        if n < B:
            raise ValueError(f"budget B={B} exceeds the number of features n={n}; use B <= {n}")
    if C is not None and not (C > 0 and math.isfinite(C)):
        raise ValueError(f"C={C} must be a finite number > 0")
    return X, y


def svm_objective(X: np.ndarray, y: np.ndarray, C: float, w: np.ndarray, b: float) -> float:
    """The objective 1/2 ||w||^2 + C sum_i max(0, 1 - y_i (w'x_i + b)) of (1)/(2) at (w, b)."""
    xi = np.maximum(0.0, 1.0 - y * (X @ w + b))
    return float(0.5 * w @ w + C * xi.sum())


@dataclass
class FSLinearResult:
    """A point of FS-SVM (2) with its certificates.

    ``objective`` = 1/2||w||^2 + C sum xi of the incumbent, ``lower_bound`` a proven bound on
    the optimum of (2) when the method gives one, ``gap`` = (objective - lower_bound)/objective.
    ``selected`` holds the 0-based indices of the nonzero (chosen) features.
    """

    w: np.ndarray | None
    b: float | None
    objective: float | None
    status: str
    lower_bound: float | None = None
    gap: float | None = None
    selected: list[int] = field(default_factory=list)
    time_s: float = 0.0
    method: str = ""
    solver: str | None = None
    log: list[dict[str, Any]] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def has_solution(self) -> bool:
        return self.w is not None and self.objective is not None


# ----------------------------------------------------------------------------------------------
# plain SVM (1) and EN-SVM (Section 5.4): a direct Clarabel QP (fast, accurate) and Pyomo model
# ----------------------------------------------------------------------------------------------
def solve_svm(X: Any, y: Any, C: float, features: Sequence[int] | None = None,
              l1: float = 0.0) -> tuple[np.ndarray, float, float]:
    """Solve the plain SVM (1) (or EN-SVM with ``l1 > 0``: + l1 ||w||_1) on ``features``.

    Paper D, problem (1) and Section 5.4. Solved as a QP with Clarabel directly (no modelling
    layer), so it is cheap enough for enumeration and for polishing supports.

    Returns
    -------
    w : (n,) array, zero outside ``features``; b : float; objective : float
        ``objective`` = 1/2||w||^2 + C sum xi (+ l1 ||w||_1), recomputed from (w, b).
    """
    import clarabel
    import scipy.sparse as sp

    X, y = check_fs_inputs(X, y, C=C)
    m, n = X.shape
    F = np.arange(n) if features is None else np.asarray(sorted(set(features)), dtype=int)
    w = np.zeros(n)
    k = F.size
    Xf = X[:, F]
    # variables z = [w_F (k), b, xi (m), t (k if l1 else 0)]
    nt = k if l1 > 0 else 0
    P = sp.diags(np.r_[np.ones(k), np.zeros(1 + m + nt)], format="csc")
    q = np.r_[np.zeros(k + 1), C * np.ones(m), l1 * np.ones(nt)]
    yx = sp.csr_matrix(-(y[:, None] * Xf))
    rows = [sp.hstack([yx, sp.csr_matrix(-y[:, None]), -sp.eye(m), sp.csr_matrix((m, nt))]),
            sp.hstack([sp.csr_matrix((m, k + 1)), -sp.eye(m), sp.csr_matrix((m, nt))])]
    rhs = [-np.ones(m), np.zeros(m)]
    if nt:
        rows += [sp.hstack([sp.eye(k), sp.csr_matrix((k, 1 + m)), -sp.eye(k)]),
                 sp.hstack([-sp.eye(k), sp.csr_matrix((k, 1 + m)), -sp.eye(k)])]
        rhs += [np.zeros(k), np.zeros(k)]
    A = sp.vstack(rows, format="csc")
    bvec = np.concatenate(rhs)
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = 1e-10
    settings.tol_feas = 1e-10
    sol = clarabel.DefaultSolver(P, q, A, bvec, [clarabel.NonnegativeConeT(A.shape[0])],
                                 settings).solve()
    z = np.asarray(sol.x)
    w[F] = z[:k]
    b = float(z[k])
    obj = svm_objective(X, y, C, w, b) + l1 * float(np.abs(w).sum())
    return w, b, obj


def _margin_block(model: Any, X: np.ndarray, y: np.ndarray, K: Sequence[int]) -> None:
    """Add index sets, w (on K), b, xi >= 0 and the margin constraints of Xi (3)."""
    import pyomo.environ as pyo

    m = X.shape[0]
    model.I = pyo.RangeSet(0, m - 1)
    model.K = pyo.Set(initialize=list(K), ordered=True)
    model.w = pyo.Var(model.K)
    model.b = pyo.Var()
    model.xi = pyo.Var(model.I, within=pyo.NonNegativeReals)
    XK = X[:, list(K)]
    Kl = list(K)

    def margin(mdl: Any, i: int) -> Any:
        row = XK[i]
        nz = np.flatnonzero(row)
        return float(y[i]) * (pyo.quicksum(float(row[t]) * mdl.w[Kl[t]] for t in nz)
                              + mdl.b) >= 1 - mdl.xi[i]

    model.margin = pyo.Constraint(model.I, rule=margin)


def _finish(model: Any, X: np.ndarray, y: np.ndarray, B: int | None, C: float, K: list[int],
            name: str) -> Any:
    model.fs_data = {"n": X.shape[1], "m": X.shape[0], "B": B, "C": C, "K": list(K),
                     "name": name}
    return model


def svm_model(X: Any, y: Any, C: float, l1: float = 0.0) -> Any:
    """Pyomo model of the plain SVM (1), or of EN-SVM (Section 5.4) when ``l1 > 0``.

    min 1/2||w||^2 + C sum xi (+ l1 sum t), (w, b, xi) in Xi, -t <= w <= t.
    """
    import pyomo.environ as pyo

    X, y = check_fs_inputs(X, y, C=C)
    K = list(range(X.shape[1]))
    mdl = pyo.ConcreteModel(name="EN-SVM" if l1 > 0 else "SVM (1)")
    _margin_block(mdl, X, y, K)
    reg = 0
    if l1 > 0:
        mdl.t = pyo.Var(mdl.K, within=pyo.NonNegativeReals)
        mdl.abs_hi = pyo.Constraint(mdl.K, rule=lambda md, j: md.w[j] <= md.t[j])
        mdl.abs_lo = pyo.Constraint(mdl.K, rule=lambda md, j: -md.t[j] <= md.w[j])
        reg = l1 * pyo.quicksum(mdl.t[j] for j in mdl.K)
    mdl.obj = pyo.Objective(expr=0.5 * pyo.quicksum(mdl.w[j] ** 2 for j in mdl.K)
                            + C * pyo.quicksum(mdl.xi[i] for i in mdl.I) + reg)
    return _finish(mdl, X, y, None, C, K, "svm")


# ----------------------------------------------------------------------------------------------
# BigMP (6), CoP (7), CoP(K) (16)+(17)+(18)
# ----------------------------------------------------------------------------------------------
def _subset(K: Iterable[int] | None, n: int) -> list[int]:
    if K is None:
        return list(range(n))
    Kl = sorted({int(j) for j in K})
    if not Kl:
        raise ValueError("feature subset K is empty")
    if Kl[0] < 0 or Kl[-1] >= n:
        raise ValueError(f"feature subset K has indices outside [0, {n - 1}]")
    return Kl


def bigm_model(X: Any, y: Any, B: int, C: float, M: float, cardinality: str = "eq",
               K: Iterable[int] | None = None) -> Any:
    """Pyomo MIQP BigMP (6) of paper D: min 1/2||w||^2 + C sum xi over Xi (3) and Omega_M (4).

    -M v_j <= w_j <= M v_j, e'v = B (``cardinality="eq"``) or <= B (``"le"``, Remark 2.1),
    v in {0,1}^n. ``K`` restricts the model to a feature subset (w_j = 0 outside K; the budget
    becomes min(B, |K|)). ``M`` must be >= the largest |w_j| of an optimum (see (9)).
    """
    import pyomo.environ as pyo

    X, y = check_fs_inputs(X, y, B, C)
    if cardinality not in CARDINALITIES:
        raise ValueError(f"cardinality={cardinality!r}: use 'eq' or 'le'")
    if not (M > 0 and math.isfinite(M)):
        raise ValueError(f"big-M M={M} must be a finite number > 0 (or estimate it)")
    Kl = _subset(K, X.shape[1])
    Beff = min(B, len(Kl))
    mdl = pyo.ConcreteModel(name="BigMP (6)")
    _margin_block(mdl, X, y, Kl)
    mdl.v = pyo.Var(mdl.K, within=pyo.Binary)
    mdl.bigm_hi = pyo.Constraint(mdl.K, rule=lambda md, j: md.w[j] <= M * md.v[j])
    mdl.bigm_lo = pyo.Constraint(mdl.K, rule=lambda md, j: -M * md.v[j] <= md.w[j])
    card = pyo.quicksum(mdl.v[j] for j in mdl.K)
    mdl.card = pyo.Constraint(expr=(card == Beff) if cardinality == "eq" else (card <= Beff))
    mdl.obj = pyo.Objective(expr=0.5 * pyo.quicksum(mdl.w[j] ** 2 for j in mdl.K)
                            + C * pyo.quicksum(mdl.xi[i] for i in mdl.I))
    mdl = _finish(mdl, X, y, B, C, Kl, "bigm")
    mdl.fs_data["M"] = M
    return mdl


def cop_model(X: Any, y: Any, B: int, C: float, cardinality: str = "eq",
              K: Iterable[int] | None = None, ub: float | None = None,
              new_features: Iterable[int] | None = None, form: str = "bilinear") -> Any:
    """Pyomo model of CoP (7) of paper D, or of the restricted CoP(K) (16) when ``K`` is given.

    u_j w_j = 0 (complementarity), sum_{j in K} u_j = |K| - B (``"eq"``) or >= |K| - B
    (``"le"``, Remark 2.2), u binary. Features outside K have w_j = 0.

    Kernel Search cuts (Algorithm 2): ``ub`` adds (17) 1/2||w||^2 + C sum xi <= UB and
    ``new_features`` adds (18) sum_{j in K_k} u_j <= |K_k| - 1 (a new feature is selected).

    ``form="bilinear"`` is the paper's complementarity u_j w_j = 0 (nonconvex MIQCQP, class
    MINLP: SCIP, Gurobi). ``form="perspective"`` writes the same set as the rotated cones
    w_j^2 <= W_j s_j, s_j = 1 - u_j, objective 1/2 sum W_j + C sum xi (MISOCP; exact because
    u is binary: u_j = 1 forces w_j = 0, u_j = 0 gives W_j >= w_j^2).
    """
    import pyomo.environ as pyo

    X, y = check_fs_inputs(X, y, B, C)
    if cardinality not in CARDINALITIES:
        raise ValueError(f"cardinality={cardinality!r}: use 'eq' or 'le'")
    if form not in COP_FORMS:
        raise ValueError(f"form={form!r}: use one of {COP_FORMS}")
    Kl = _subset(K, X.shape[1])
    mdl = pyo.ConcreteModel(name="CoP(K) (16)" if K is not None else "CoP (7)")
    _margin_block(mdl, X, y, Kl)
    mdl.u = pyo.Var(mdl.K, within=pyo.Binary)
    zeros = len(Kl) - B
    card = pyo.quicksum(mdl.u[j] for j in mdl.K)
    if cardinality == "eq" and zeros >= 0:
        mdl.card = pyo.Constraint(expr=card == zeros)
    elif zeros > 0:
        mdl.card = pyo.Constraint(expr=card >= zeros)
    loss = C * pyo.quicksum(mdl.xi[i] for i in mdl.I)
    if form == "bilinear":
        mdl.comp = pyo.Constraint(mdl.K, rule=lambda md, j: md.u[j] * md.w[j] == 0)
        reg = 0.5 * pyo.quicksum(mdl.w[j] ** 2 for j in mdl.K)
    else:
        mdl.W = pyo.Var(mdl.K, within=pyo.NonNegativeReals)
        mdl.s = pyo.Var(mdl.K, bounds=(0, 1))
        mdl.s_def = pyo.Constraint(mdl.K, rule=lambda md, j: md.s[j] + md.u[j] == 1)
        mdl.cone = pyo.Constraint(mdl.K, rule=lambda md, j: md.w[j] ** 2 <= md.W[j] * md.s[j])
        reg = 0.5 * pyo.quicksum(mdl.W[j] for j in mdl.K)
        declare_class(mdl, ProblemClass.MISOCP)
    mdl.obj = pyo.Objective(expr=reg + loss)
    if ub is not None and math.isfinite(ub):
        mdl.ub_cut = pyo.Constraint(expr=reg + loss <= ub)                         # (17)
    if new_features is not None:
        new = [j for j in sorted(set(new_features)) if j in set(Kl)]
        if new:
            mdl.new_cut = pyo.Constraint(                                            # (18)
                expr=pyo.quicksum(mdl.u[j] for j in new) <= len(new) - 1)
    mdl = _finish(mdl, X, y, B, C, Kl, "cop")
    mdl.fs_data["form"] = form
    return mdl


# ----------------------------------------------------------------------------------------------
# SR-DSCoP(K) (20) as the MISOCP SR-DLMP(K) (21)
# ----------------------------------------------------------------------------------------------
def sr_dlmp_model(X: Any, y: Any, B: int, C: float, K: Iterable[int], M: float | None = None,
                  form: str = "perspective", cardinality: str = "eq") -> Any:
    """Pyomo MISOCP SR-DLMP(K) (21) of paper D (the semi-relaxation SR-DSCoP(K) (20)).

    min 1/2 sum_j W_jj + C sum xi over Xi (3), e'u = n - B, u_j binary for j in K and
    u_j in [0,1] otherwise; for j not in K the 3x3 PSD block of (13) in its SOC form (Lemma 4.3):
    w_j^2 <= W_jj s_j, s_j = 1 - u_j (a rotated cone, same set as ||(W-s, 2w)|| <= W + s).

    For j in K, ``form="paper"`` uses (21) literally: -M(1-u_j) <= w_j <= M(1-u_j) and
    w_j^2 <= W_jj (needs a valid ``M``, see Proposition 4.1); ``form="perspective"`` uses the
    same rotated cone as outside K (u_j = 1 forces w_j = 0), needing no M; if ``M`` is also
    given, the big-M rows are added as valid cuts. Both give a lower bound on (2).
    """
    import pyomo.environ as pyo

    X, y = check_fs_inputs(X, y, B, C)
    if form not in SR_FORMS:
        raise ValueError(f"form={form!r}: use one of {SR_FORMS}")
    n = X.shape[1]
    Kset = set(_subset(K, n)) if K is not None and len(list(K)) else set()
    if form == "paper" and Kset and M is None:
        raise ValueError("form='paper' needs the big-M value M (estimate it with "
                         "estimate_big_m or use form='perspective')")
    mdl = pyo.ConcreteModel(name="SR-DLMP(K) (21)")
    _margin_block(mdl, X, y, range(n))
    mdl.Kb = pyo.Set(initialize=sorted(Kset), ordered=True)
    mdl.u = pyo.Var(mdl.K, bounds=(0, 1), domain=pyo.Reals)
    for j in Kset:
        mdl.u[j].domain = pyo.Binary
    mdl.W = pyo.Var(mdl.K, within=pyo.NonNegativeReals)
    mdl.s = pyo.Var(mdl.K, bounds=(0, 1))
    mdl.s_def = pyo.Constraint(mdl.K, rule=lambda md, j: md.s[j] + md.u[j] == 1)
    card = pyo.quicksum(mdl.u[j] for j in mdl.K)
    mdl.card = pyo.Constraint(expr=(card == n - B) if cardinality == "eq" else (card >= n - B))

    def cone(md: Any, j: int) -> Any:
        if form == "paper" and j in Kset:
            return md.w[j] ** 2 <= md.W[j]
        return md.w[j] ** 2 <= md.W[j] * md.s[j]

    mdl.cone = pyo.Constraint(mdl.K, rule=cone)
    if M is not None and Kset:
        mdl.bigm_hi = pyo.Constraint(mdl.Kb, rule=lambda md, j: md.w[j] <= M * md.s[j])
        mdl.bigm_lo = pyo.Constraint(mdl.Kb, rule=lambda md, j: -M * md.s[j] <= md.w[j])
    mdl.obj = pyo.Objective(expr=0.5 * pyo.quicksum(mdl.W[j] for j in mdl.K)
                            + C * pyo.quicksum(mdl.xi[i] for i in mdl.I))
    declare_class(mdl, ProblemClass.MISOCP if Kset else ProblemClass.SOCP)
    mdl = _finish(mdl, X, y, B, C, list(range(n)), "sr_dlmp")
    mdl.fs_data.update(form=form, M=M, Kbin=sorted(Kset))
    return mdl


# ----------------------------------------------------------------------------------------------
# solving and reading back
# ----------------------------------------------------------------------------------------------
def _full_vector(model: Any, name: str) -> np.ndarray:
    n = model.fs_data["n"]
    out = np.zeros(n)
    var = getattr(model, name)
    for j in model.K:
        val = var[j].value
        out[j] = 0.0 if val is None else float(val)
    return out


def solve_fs_model(model: Any, X: Any, y: Any, solver: str | None = None,
                   time_limit: float | None = None, mip_gap: float | None = 1e-6,
                   polish: bool = True, sel_tol: float = 1e-6, **opts: Any,
                   ) -> tuple[FSLinearResult, Result]:
    """Solve a model built by :func:`bigm_model` / :func:`cop_model` and read back (w, b).

    The selected features are those with |w_j| > ``sel_tol`` (for CoP the u_j = 0 ones); with
    ``polish`` the SVM (1) is re-solved on the selected support, so the returned objective is
    the exact value of a feasible point of (2) (never worse than the solver's incumbent up to
    its tolerance). Status ``infeasible`` (e.g. cuts (17)/(18)) is a normal outcome.
    """
    X, y = check_fs_inputs(X, y)
    d = model.fs_data
    res = solve(model, solver=solver, time_limit=time_limit, mip_gap=mip_gap, **opts)
    out = FSLinearResult(w=None, b=None, objective=None, status=res.status.value,
                         lower_bound=res.bound, time_s=res.time_s, method=d["name"],
                         solver=res.solver)
    if not res.has_solution:
        return out, res
    w = _full_vector(model, "w")
    b = float(model.b.value)
    if d["name"] == "cop":
        uvals = _full_vector(model, "u")
        sel = [j for j in d["K"] if uvals[j] < 0.5 and abs(w[j]) > 0.0]
    elif d["name"] == "bigm":
        vvals = _full_vector(model, "v")
        sel = [j for j in d["K"] if vvals[j] > 0.5 and abs(w[j]) > 0.0]
    else:
        sel = list(d["K"])
    sel = [j for j in sel if abs(w[j]) > sel_tol] or sel
    w[[j for j in range(d["n"]) if j not in set(sel)]] = 0.0
    obj = svm_objective(X, y, d["C"], w, b)
    if polish and sel:
        w2, b2, obj2 = solve_svm(X, y, d["C"], features=sel)
        if obj2 <= obj:
            w, b, obj = w2, b2, obj2
    out.w, out.b, out.objective = w, b, obj
    out.selected = sorted(int(j) for j in np.flatnonzero(np.abs(w) > sel_tol))
    if res.bound is not None and math.isfinite(res.bound) and d["K"] == list(range(d["n"])):
        out.lower_bound = min(res.bound, obj)
        out.gap = relative_gap(obj, out.lower_bound)
    else:
        out.lower_bound = None
    return out, res


def enumerate_supports(X: Any, y: Any, B: int, C: float) -> tuple[float, list[int], np.ndarray,
                                                                  float]:
    """Optimum of FS-SVM (2) by enumerating every support of size B (small n only).

    A support of size < B is never better than a superset of size B, so size-B supports
    suffice. Returns (objective, support, w, b).
    """
    X, y = check_fs_inputs(X, y, B, C)
    n = X.shape[1]
    if math.comb(n, B) > 20000:
        raise ValueError(f"C({n},{B}) supports is too many to enumerate; use n <= ~16")
    best: tuple[float, list[int], np.ndarray, float] = (math.inf, [], np.zeros(n), 0.0)
    for S in itertools.combinations(range(n), B):
        w, b, obj = solve_svm(X, y, C, features=S)
        if obj < best[0]:
            best = (obj, list(S), w, b)
    return best


def estimate_big_m(X: Any, y: Any, B: int, C: float, ub: float | None = None,
                   method: str = "norm") -> float:
    """A big-M value M for BigMP (6) / SCoMP (12) / SR-DLMP (21) (Remark 3.2).

    ``method="norm"``: M = sqrt(2 UB) (always valid: 1/2 w_j^2 <= 1/2||w||^2 <= UB for every
    point with objective <= UB, in particular any optimum); UB defaults to the objective of
    the SVM restricted to the B features of largest |w_j| in the plain SVM (1).
    ``method="svm"``: M = ||w*||_inf of (1), the common heuristic choice (NOT guaranteed valid).
    Use :func:`sparsekm.relaxations.fs_linear.bigm_tightening` for Proposition 4.1.
    """
    X, y = check_fs_inputs(X, y, B, C)
    w_svm, _, _ = solve_svm(X, y, C)
    if method == "svm":
        return float(max(np.abs(w_svm).max(), 1e-6))
    if ub is None:
        top = np.argsort(-np.abs(w_svm), kind="stable")[:B]
        ub = solve_svm(X, y, C, features=top)[2]
    return float(math.sqrt(2.0 * ub))


def result_from_support(X: np.ndarray, y: np.ndarray, C: float, support: Sequence[int],
                        **kw: Any) -> FSLinearResult:
    """Polish a support with the SVM (1) and wrap it as a :class:`FSLinearResult`."""
    w, b, obj = solve_svm(X, y, C, features=support)
    sel = sorted(int(j) for j in np.flatnonzero(np.abs(w) > 1e-6))
    return FSLinearResult(w=w, b=b, objective=obj, status=kw.pop("status", "feasible"),
                          selected=sel, **kw)


def timer() -> Any:
    """A monotonic clock start (seconds)."""
    return time.perf_counter()


def status_str(s: Status | str) -> str:
    return s.value if isinstance(s, Status) else str(s)
