"""Conic relaxations of FS-SVM (2) (paper D, Section 3) and the big-M tightening (19).

Paper D: Bomze, D'Onofrio, Palagi, Peng (2024), "Feature selection in linear SVMs via a hard
cardinality constraint: a scalable conic decomposition approach".

Relaxation names (CLI ``--relaxation``) -> paper
------------------------------------------------
* ``box``            BoxMP (8): BigMP (6) with v in [0, 1]^n (a QP).
* ``shor-bigm``      SMP (10): Shor relaxation of BigMP, two PSD blocks of order n+1.
* ``shor-cop``       SCoP (11): Shor relaxation of CoP, one PSD block of order 2n+1.
* ``shor-cop-bigm``  SCoMP (12): SCoP + big-M set B_M (5).
* ``dsmp``           DSMP (15): decomposed SMP, 2x2 blocks (Cor. 3.8: equal to SMP).
* ``dscop``          DSCoP (13): decomposed SCoP, n 3x3 blocks (Thm 3.6: equal to SCoP).
* ``dscomp``         DSCoMP (14): decomposed SCoMP (Cor. 3.7: equal to SCoMP).

The decomposed relaxations take ``conic="sdp"`` (the PSD blocks as written) or ``"soc"`` (the
second-order-cone form of Lemma 4.3: ||(W_jj - s_j, 2 w_j)|| <= W_jj + s_j, s_j = 1 - u_j, so any
SOCP solver gives the bound). Every relaxation returns its bound and the relaxed u*/v* (v = 1-u).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sparsekm.models.fs_linear import CARDINALITIES, check_fs_inputs
from sparsekm.solvers import solve

RELAXATIONS = ("box", "shor-bigm", "shor-cop", "shor-cop-bigm", "dsmp", "dscop", "dscomp")
ALIASES = {"boxmp": "box", "smp": "shor-bigm", "scop": "shor-cop", "scomp": "shor-cop-bigm"}
NEEDS_M = ("box", "shor-bigm", "shor-cop-bigm", "dsmp", "dscomp")
EQUATION = {"box": "(8)", "shor-bigm": "(10)", "shor-cop": "(11)", "shor-cop-bigm": "(12)",
            "dsmp": "(15)", "dscop": "(13)", "dscomp": "(14)"}


@dataclass
class RelaxationResult:
    """Bound and relaxed point of a relaxation of (2).

    ``bound`` is the optimal value reported by the conic solver (a lower bound on (2) up to the
    solver tolerance; None when the solver stopped on its time limit or failed); ``u`` the
    relaxed zero-indicators (CoP family) and ``v = 1 - u`` the relaxed selection indicators
    (BigMP family); ``W`` the diagonal of the lifted W.
    """

    name: str
    bound: float | None
    status: str
    w: np.ndarray | None = None
    b: float | None = None
    u: np.ndarray | None = None
    v: np.ndarray | None = None
    W: np.ndarray | None = None
    time_s: float = 0.0
    solver: str = ""
    M: float | None = None
    info: dict[str, Any] = field(default_factory=dict)


def canonical_relaxation(name: str) -> str:
    """Map an alias (smp, scop, scomp, boxmp) to a name of :data:`RELAXATIONS`."""
    key = name.lower().replace("_", "-")
    key = ALIASES.get(key, key)
    if key not in RELAXATIONS:
        raise ValueError(f"unknown relaxation {name!r}; choose one of {', '.join(RELAXATIONS)}")
    return key


def _xi_block(X: np.ndarray, y: np.ndarray) -> tuple[Any, Any, Any, Any, list[Any]]:
    import cvxpy as cp

    m, n = X.shape
    w, b, xi = cp.Variable(n, name="w"), cp.Variable(name="b"), cp.Variable(m, name="xi")
    cons = [cp.multiply(y, X @ w + b) >= 1 - xi, xi >= 0]     # Xi (3)
    return w, b, xi, cp.sum(xi), cons


def build_relaxation(X: Any, y: Any, B: int, C: float, relaxation: str = "dscop",
                     M: float | None = None, cardinality: str = "eq", conic: str = "soc",
                     ub: float | None = None) -> tuple[Any, dict[str, Any]]:
    """Build the CVXPY problem of a relaxation of paper D (see the module table).

    Parameters
    ----------
    relaxation : one of :data:`RELAXATIONS` (or alias).
    M : big-M for the forms using Omega_M (4) / B_M (5); required for them.
    cardinality : ``"eq"`` (e'v = B, e'u = n - B, as in the paper) or ``"le"``.
    conic : for dsmp/dscop/dscomp, ``"sdp"`` (PSD blocks) or ``"soc"`` (Lemma 4.3).
    ub : if given, adds objective <= ub (used by the tightening problems (19)).

    Returns
    -------
    problem : cvxpy.Problem; handles : dict of the variables/expressions (w, b, xi, u, v, W,
        objective expression).
    """
    import cvxpy as cp

    X, y = check_fs_inputs(X, y, B, C)
    name = canonical_relaxation(relaxation)
    if cardinality not in CARDINALITIES:
        raise ValueError(f"cardinality={cardinality!r}: use 'eq' or 'le'")
    if conic not in ("sdp", "soc"):
        raise ValueError(f"conic={conic!r}: use 'sdp' or 'soc'")
    if name in NEEDS_M and (M is None or not (M > 0 and math.isfinite(M))):
        raise ValueError(f"relaxation {name} needs a finite big-M M > 0 (pass M=..., or "
                         "estimate it with sparsekm.models.fs_linear.estimate_big_m)")
    n = X.shape[1]
    w, b, xi, loss, cons = _xi_block(X, y)

    def card(expr: Any, rhs: float, sense: str) -> Any:
        if cardinality == "eq":
            return expr == rhs
        return expr <= rhs if sense == "le" else expr >= rhs

    h: dict[str, Any] = {"w": w, "b": b, "xi": xi}
    if name == "box":
        v = cp.Variable(n, name="v")
        cons += [v >= 0, v <= 1, w <= M * v, -M * v <= w, card(cp.sum(v), B, "le")]
        reg = 0.5 * cp.sum_squares(w)
        h.update(v=v, W=None)
    elif name == "shor-bigm":
        Zw = cp.Variable((n + 1, n + 1), PSD=True, name="Zw")
        Zv = cp.Variable((n + 1, n + 1), PSD=True, name="Zv")
        v, W = Zv[0, 1:], Zw[1:, 1:]
        cons += [Zw[0, 0] == 1, Zv[0, 0] == 1, Zw[0, 1:] == w, cp.diag(Zv[1:, 1:]) == v,
                 w <= M * v, -M * v <= w, card(cp.sum(v), B, "le")]
        reg = 0.5 * cp.trace(W)
        h.update(v=v, W=cp.diag(W))
    elif name in ("shor-cop", "shor-cop-bigm"):
        Z = cp.Variable((2 * n + 1, 2 * n + 1), PSD=True, name="Z")
        u, W = Z[0, n + 1:], Z[1:n + 1, 1:n + 1]
        R, U = Z[1:n + 1, n + 1:], Z[n + 1:, n + 1:]
        cons += [Z[0, 0] == 1, Z[0, 1:n + 1] == w, cp.diag(R) == 0, cp.diag(U) == u,
                 card(cp.sum(u), n - B, "ge")]
        if name == "shor-cop-bigm":
            cons += [w <= M * (1 - u), -M * (1 - u) <= w]
        reg = 0.5 * cp.trace(W)
        h.update(u=u, W=cp.diag(W))
    elif name == "dsmp":
        v, W = cp.Variable(n, name="v"), cp.Variable(n, name="W")
        cons += [w <= M * v, -M * v <= w, card(cp.sum(v), B, "le")]
        if conic == "sdp":
            P = [cp.Variable((2, 2), PSD=True) for _ in range(n)]
            Q = [cp.Variable((2, 2), PSD=True) for _ in range(n)]
            for j in range(n):
                cons += [P[j][0, 0] == 1, P[j][0, 1] == w[j], P[j][1, 1] == W[j],
                         Q[j][0, 0] == 1, Q[j][0, 1] == v[j], Q[j][1, 1] == v[j]]
        else:  # [1 w; w W] >= 0 <=> W >= w^2 ; [1 v; v v] >= 0 <=> 0 <= v <= 1
            cons += [cp.SOC(W + 1, cp.vstack([W - 1, 2 * w]), axis=0), v >= 0, v <= 1]
        reg = 0.5 * cp.sum(W)
        h.update(v=v, W=W)
    else:  # dscop (13), dscomp (14)
        u, W = cp.Variable(n, name="u"), cp.Variable(n, name="W")
        cons += [card(cp.sum(u), n - B, "ge")]
        if conic == "sdp":
            P = [cp.Variable((3, 3), PSD=True) for _ in range(n)]
            for j in range(n):
                cons += [P[j][0, 0] == 1, P[j][0, 1] == w[j], P[j][0, 2] == u[j],
                         P[j][1, 1] == W[j], P[j][1, 2] == 0, P[j][2, 2] == u[j]]
        else:  # Lemma 4.3: s = 1 - u >= 0, u >= 0, ||(W - s, 2w)|| <= W + s
            s = 1 - u
            cons += [u >= 0, u <= 1, W >= 0, cp.SOC(W + s, cp.vstack([W - s, 2 * w]), axis=0)]
        if name == "dscomp":
            cons += [w <= M * (1 - u), -M * (1 - u) <= w]
        reg = 0.5 * cp.sum(W)
        h.update(u=u, W=W)
    obj = reg + C * loss
    if ub is not None:
        cons.append(obj <= ub)
    h["objective"] = obj
    h["name"] = name
    return cp.Problem(cp.Minimize(obj), cons), h


def _val(x: Any) -> np.ndarray | None:
    if x is None or x.value is None:
        return None
    return np.asarray(x.value, dtype=float).ravel()


def solve_relaxation(X: Any, y: Any, B: int, C: float, relaxation: str = "dscop",
                     M: float | None = None, solver: str | None = None,
                     time_limit: float | None = None, cardinality: str = "eq",
                     conic: str = "soc", **opts: Any) -> RelaxationResult:
    """Build and solve a relaxation (see :func:`build_relaxation`); return bound and u*/v*.

    Default solvers come from the solver layer (Clarabel for QP/SOCP/SDP via CVXPY).
    """
    name = canonical_relaxation(relaxation)
    t0 = time.perf_counter()
    prob, h = build_relaxation(X, y, B, C, name, M=M, cardinality=cardinality, conic=conic)
    res = solve(prob, solver=solver, time_limit=time_limit, **opts)
    # a time-limited interior-point iterate is no bound: report it only in info["objective"]
    certified = res.has_solution and res.status.value in ("optimal", "feasible")
    out = RelaxationResult(name=name, bound=res.objective if certified else None,
                           status=res.status.value, time_s=time.perf_counter() - t0,
                           solver=res.solver, M=M)
    out.info["objective"] = res.objective
    out.info["solve_time_s"] = res.time_s
    out.info["equation"] = EQUATION[name]
    if res.has_solution:
        out.w, out.W = _val(h["w"]), _val(h["W"]) if h["W"] is not None else None
        out.b = float(h["b"].value)
        if "u" in h:
            out.u = np.clip(_val(h["u"]), 0.0, 1.0)
            out.v = 1.0 - out.u
        else:
            out.v = np.clip(_val(h["v"]), 0.0, 1.0)
            out.u = 1.0 - out.v
    return out


def bigm_tightening(X: Any, y: Any, B: int, C: float, ub: float,
                    features: Any = None, solver: str | None = None,
                    time_limit: float | None = None, cardinality: str = "eq",
                    ) -> tuple[float, np.ndarray, np.ndarray]:
    """Big-M tightening problems (19) / Proposition 4.1 of paper D.

    For each feature j: Mbar_j = max w_j and Munder_j = min w_j over the DSCoP (13) feasible set
    (SOC form) with objective 1/2 sum W_jj + C sum xi <= UB. M = max_j max(|Mbar_j|,
    |Munder_j|) is valid: every optimum of (2) lies in that set. The 2n conic problems reuse one
    compiled CVXPY problem (a parameter in the objective).

    Features not in ``features`` (or not reached within ``time_limit``) keep the always-valid
    bound sqrt(2 UB) (1/2 w_j^2 <= UB).

    Returns
    -------
    M : float; upper : (n,) Mbar; lower : (n,) Munder.
    """
    import cvxpy as cp

    X, y = check_fs_inputs(X, y, B, C)
    n = X.shape[1]
    cap = math.sqrt(2.0 * max(ub, 0.0))
    upper, lower = np.full(n, cap), np.full(n, -cap)
    c = cp.Parameter(n)
    prob0, h0 = build_relaxation(X, y, B, C, "dscop", cardinality=cardinality, conic="soc",
                                 ub=ub)
    prob = cp.Problem(cp.Maximize(c @ h0["w"]), prob0.constraints)
    feats = range(n) if features is None else [int(j) for j in features]
    t0 = time.perf_counter()
    for j in feats:
        for sign in (1.0, -1.0):
            if time_limit is not None and time.perf_counter() - t0 > time_limit:
                break
            cv = np.zeros(n)
            cv[j] = sign
            c.value = cv
            res = solve(prob, solver=solver)
            if res.has_solution:
                val = sign * res.objective
                if sign > 0:
                    upper[j] = min(cap, val)
                else:
                    lower[j] = max(-cap, val)
    M = float(max(np.abs(upper).max(), np.abs(lower).max()))
    return M, upper, lower
