"""``sparsekm check PROBLEM SOLUTION [the problem's flags]``: is a point computed elsewhere
feasible for the paper's problem, and what is it worth there?

The problem is built from the same flags and data preparation as ``sparsekm solve`` and
``sparsekm export``; the point is read by variable name (:mod:`.check_read`). The report:
``feasible`` and the largest violation (``max_violation``, ``worst``) over the paper's
constraints, the ``objective`` of the original problem at the point (recomputed from the
data, not copied from the file), and for feature selection the ``support`` and its exact
value: the SVM re-solved on it with a certified interval (``support_objective`` and
``support_bound``, their ``support_gap``). Status ``infeasible`` exits 1 (the CLI); a
malformed file is a user mistake (exit 2).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from sparsekm import declare

from .check_read import Point, read_point
from .command import Command
from .data import prepare, ready
from .errors import UserError
from .export import RUN_OPTIONS, data_sha256
from .resolve import Call

__all__ = ["CHECK_COMMANDS", "check_commands"]

# auxiliary names of the export (cones, the constant, CVXPY's unnamed blocks) and those a
# solver adds when it reads a file (SCIP: qmatrixvar for an MPS quadratic objective,
# nlobjvar for an NL objective)
_AUX = re.compile(r"^(cone_t|cone_z|ONE_VAR_CONSTANT|var[0-9]+|qmatrixvar|nlobjvar|objvar)$")


@dataclass(frozen=True)
class CheckOwn:
    """The command's own parameters."""

    solution: str = declare.field(None, "A solver's solution file (SCIP, HiGHS, Gurobi, CPLEX "
                                  ".sol, or 'name value' lines) or a JSON of the paper's "
                                  "variables ({\"w\": [...], \"b\": ...} or {\"support\": "
                                  "[...]}).", path="read", flag="--solution")
    sidecar: str | None = declare.field(None, "The export's sidecar (FILE.json): names the "
                                        "columns of a file with positional names (NL, CBF).",
                                        path="read", flag="--sidecar")
    tol: float = declare.field(1e-6, "Feasibility tolerance: a violation above it makes the "
                               "point infeasible (SCIP's default feastol).", gt=0, lt=1,
                               flag="--tol")


def _sizes(point: Point, sizes: dict[str, int], src: str) -> None:
    """Every name is a variable of the problem's models, every index in range (else the file
    is not a solution of this problem: a user mistake)."""
    for base, vals in point.values.items():
        if _AUX.match(base) or sizes.get(base, 0) == -1:
            continue
        if base not in sizes:
            raise UserError(f"{src}: variable {base!r} is not in the models of this problem "
                            f"(its variables: {', '.join(k for k in sizes if sizes[k] != -1)})")
        size = sizes[base]
        for idx in vals:
            ok = idx is None if size == 0 else (isinstance(idx, int) and 0 <= idx < size)
            if not ok:
                where = "" if idx is None else f"[{idx}]"
                raise UserError(f"{src}: {base}{where} is outside the problem "
                                f"({base} has {size or 'no'} entries here; check the data "
                                "flags)")


def _support(point: Point, ds: Any, src: str) -> list[int] | None:
    if point.support is not None:
        bad = [j for j in point.support if not 0 <= j < ds.n]
        if bad:
            raise UserError(f"{src}: support index {bad[0]} is outside 0..{ds.n - 1}")
        return sorted(set(point.support))
    if point.support_names is not None:
        index = {name: j for j, name in enumerate(ds.feature_names)}
        missing = [s for s in point.support_names if s not in index]
        if missing:
            raise UserError(f"{src}: feature {missing[0]!r} is not in the data")
        return sorted(index[s] for s in point.support_names)
    return None


def _kth(values: np.ndarray, k: int) -> float:
    """The k-th largest of ``values`` (0 when there are fewer)."""
    if values.size < k or k <= 0:
        return 0.0
    return float(np.sort(values)[::-1][k - 1])


def _indicators(point: Point, w: np.ndarray | None, n: int, B: int, eq: bool
                ) -> tuple[dict[str, float], list[int] | None]:
    """Violations of BigMP's v (or z, the selection of the tree search), or CoP's u (binary,
    budget, w_j = 0 where off), and the support they mark."""
    out: dict[str, float] = {}
    for base, on in (("v", lambda x: x > 0.5), ("z", lambda x: x > 0.5),
                     ("u", lambda x: x < 0.5)):
        vec = point.vector(base, n)
        if vec is None:
            continue
        x = np.asarray(vec)
        out[f"{base}_binary"] = float(np.abs(x - np.round(x)).max())
        count = float(np.round(x).sum())
        target = n - B if base == "u" else B
        diff = target - count if base == "u" else count - target
        out[f"{base}_budget"] = abs(diff) if eq else max(diff, 0.0)
        sel = [j for j in range(n) if on(x[j])]
        if w is not None:
            off = np.setdiff1d(np.arange(n), sel)
            out[f"{base}_link"] = float(np.abs(w[off]).max(initial=0.0))
        return out, sel
    return out, None


def _svm_on(problem: Any, S: list[int]) -> tuple[float, float]:
    """The SVM (1) on the columns S: (its value at the solver's point, the certified lower
    bound D(alpha)); no column: C min_b sum_i max(0, 1 - y_i b), exactly."""
    from sparsekm.engines.linear_svm import best_intercept, solve_linear_svm

    if not S:
        y = np.asarray(problem.y, dtype=float)
        b = float(best_intercept(np.zeros(y.size), y))
        val = problem.C * float(np.maximum(0.0, 1.0 - y * b).sum())
        return val, val
    fit = solve_linear_svm(problem.X[:, S], problem.y, problem.C)
    return float(fit.primal), float(fit.dual)


def check_fs_linear(problem: Any, point: Point, ds: Any, src: str) -> dict[str, Any]:
    """FS-SVM (2): margins Xi (3), xi >= 0, ||w||_0 <= B, BigMP's v / CoP's u when given."""
    from sparsekm.engines.linear_svm import best_intercept

    n, m, B = problem.n, problem.m, problem.B
    _sizes(point, {"w": n, "b": 0, "xi": m, "v": n, "z": n, "u": n, "W": n, "s": n, "Zw": -1,
                   "Zv": -1, "Z": -1}, src)
    given = _support(point, ds, src)
    w_list = point.vector("w", n)
    w = None if w_list is None else np.asarray(w_list)
    ind, marked = _indicators(point, w, n, B, problem.cardinality == "eq")
    if w is None and given is None and marked is None:
        raise UserError(f"{src}: the solution gives no w, no support and no indicators "
                        "(v, z or u)")
    viol: dict[str, float] = {}
    out: dict[str, Any] = {}
    if w is not None:
        b = point.scalar("b")
        f = problem.X @ w
        if b is None:
            b = float(best_intercept(f, np.asarray(problem.y, dtype=float)))
            out["b_note"] = "b not in the file: the b minimising the hinge sum for this w"
        f = f + b
        hinge = np.maximum(0.0, 1.0 - problem.y * f)
        out["objective"] = 0.5 * float(w @ w) + problem.C * float(hinge.sum())
        out["b"] = b
        xi = point.vector("xi", m)
        if xi is not None:
            xi = np.asarray(xi)
            viol["margin"] = float(np.maximum(0.0, 1.0 - problem.y * f - xi).max())
            viol["xi_nonneg"] = float(np.maximum(0.0, -xi).max())
            out["objective_with_file_xi"] = 0.5 * float(w @ w) + problem.C * float(xi.sum())
        viol["cardinality"] = _kth(np.abs(w), B + 1)
    viol.update(ind)
    if given is not None:
        S = given
    elif marked is not None:
        S = marked
    else:
        order = np.argsort(-np.abs(w), kind="stable")
        S = sorted(int(j) for j in order[:B] if abs(w[j]) > 0.0)
    viol["support_size"] = float(max(len(S) - B, 0))
    t0, c0 = time.perf_counter(), time.process_time()
    value, bound = _svm_on(problem, S)
    out.update(support=S, support_names=[ds.feature_names[j] for j in S],
               support_objective=value, support_bound=bound,
               support_gap=(value - bound) / max(abs(value), 1e-12),
               support_time_s=round(time.perf_counter() - t0, 6),
               support_cpu_s=round(time.process_time() - c0, 6))
    if "objective" not in out:
        out["objective"] = value
        out["objective_note"] = "a support only: the objective is its SVM's"
    return {"violations": viol, **out}


def check_fs_kernel(problem: Any, point: Point, ds: Any, src: str) -> dict[str, Any]:
    """MINLP (4) of paper A: beta binary with exactly B ones, 0 <= alpha <= C, y'alpha = 0;
    value min over alpha of f(alpha, beta) re-solved (certified interval)."""
    from sparsekm.engines.smo import SVMDualOptions, solve_svm_dual
    from sparsekm.kernels import kernel_matrix

    n, m, B, C = problem.n, problem.m, problem.B, problem.C
    _sizes(point, {"alpha": m, "beta": n, "s": -1}, src)
    given = _support(point, ds, src)
    beta = point.vector("beta", n)
    if beta is None and given is None:
        raise UserError(f"{src}: the solution gives neither beta nor a support")
    x = np.zeros(n) if beta is None else np.asarray(beta)
    if beta is None:
        x[given] = 1.0
    viol = {"beta_binary": float(np.abs(x - np.round(x)).max()),
            "budget": abs(float(np.round(x).sum()) - B)}
    S = given if given is not None else sorted(int(j) for j in np.flatnonzero(x > 0.5))
    K = kernel_matrix(problem.X[:, S], **problem.kernel_params()) if S else \
        np.full((m, m), problem.coef0 ** problem.degree if problem.kernel == "poly" else 1.0)
    out: dict[str, Any] = {}
    alpha = point.vector("alpha", m)
    if alpha is not None:
        a = np.asarray(alpha)
        viol["alpha_box"] = float(max(np.maximum(-a, 0).max(), np.maximum(a - C, 0).max()))
        viol["balance"] = abs(float(problem.y @ a))
        c = a * problem.y
        out["objective"] = 0.5 * float(c @ K @ c) - float(a.sum())
    res = solve_svm_dual(K, problem.y, C, options=SVMDualOptions(tol=1e-9, check_input=False))
    value, bound = float(res.objective), float(res.bound)
    out.update(support=S, support_names=[ds.feature_names[j] for j in S],
               support_objective=value, support_bound=bound,
               support_gap=(value - bound) / max(abs(value), 1e-12))
    out.setdefault("objective", value)
    return {"violations": viol, **out}


def check_smkl(problem: Any, point: Point, ds: Any, src: str) -> dict[str, Any]:
    """(4) of paper B: beta >= 0, sum beta = 1, at most k0 kernels; value (4) at beta."""
    from sparsekm.models.smkl.objective import evaluate

    q = problem.q
    _sizes(point, {"beta": q, "z": q, "omega": q, "eta": 0, "theta": 0, "sigma": problem.m,
                   "gamma": problem.m, "tau": -1}, src)
    beta = point.vector("beta", q)
    if beta is None:
        raise UserError(f"{src}: the solution gives no beta (one weight per kernel)")
    x = np.asarray(beta)
    viol = {"beta_nonneg": float(np.maximum(-x, 0).max()), "simplex": abs(float(x.sum()) - 1),
            "cardinality": _kth(x, problem.k0 + 1)}
    ev = evaluate(problem, np.clip(x, 0.0, None))
    S = [int(i) for i in np.flatnonzero(x > 0)]
    return {"violations": viol, "objective": ev.value, "objective_upper": ev.upper,
            "support": S, "support_kernels": [problem.labels[i] for i in S]}


def check_minmax_fs(problem: Any, point: Point, ds: Any, src: str) -> dict[str, Any]:
    """(14) of paper E: gamma >= 0; value C2 ||gamma||_p^p + (1 - C2) V(gamma), V re-solved."""
    from sparsekm.models.minmax_fs.lower import lower_level

    n, m = problem.n, problem.m
    _sizes(point, {"gamma": n, "alpha": m, "nu": 0, "lambda0": m, "lambdaC": m, "z": 0}, src)
    gamma = point.vector("gamma", n)
    if gamma is None:
        raise UserError(f"{src}: the solution gives no gamma (one weight per feature)")
    g = np.asarray(gamma)
    viol = {"gamma_nonneg": float(np.maximum(-g, 0).max())}
    ll = lower_level(problem, np.clip(g, 0.0, None))
    return {"violations": viol, "objective": problem.objective(ll.gamma, ll.value),
            "objective_upper": problem.objective(ll.gamma, ll.primal),
            "support": [int(j) for j in np.flatnonzero(g > 0)]}


CHECKS = {"fs-linear": check_fs_linear, "fs-kernel": check_fs_kernel, "smkl": check_smkl,
          "minmax-fs": check_minmax_fs}


def run_check(call: Call) -> dict[str, Any]:
    """Read the point, build the problem, report feasibility and value (see the module)."""
    from sparsekm.registry import problem as problem_info

    name = call.command.problem
    own = call.own
    if own["solution"] is None:
        raise UserError("SOLUTION: give the solution file to check")
    point = read_point(own["solution"], own["sidecar"])
    split = prepare(call.opts)
    problem = call.build(problem_info(name).cls, split.train.X, split.train.y)
    ready()
    t0, c0 = time.perf_counter(), time.process_time()
    report = CHECKS[name](problem, point, split.ds, own["solution"])
    viol = report.pop("violations")
    worst = max(viol, key=viol.get) if viol else None
    largest = float(viol[worst]) if worst else 0.0
    feasible = largest <= own["tol"]
    return {"problem": name, "solution": own["solution"], "format": point.kind,
            "values_read": point.count, "data": split.ds.name, "m": problem.m, "n": problem.n,
            "params": problem.params() if name != "smkl" else
            {k: v for k, v in problem.params().items() if k != "kernels"},
            "data_sha256": data_sha256(problem.X, problem.y),
            "status": "feasible" if feasible else "infeasible", "feasible": feasible,
            "max_violation": largest, "worst": worst, "tol": own["tol"],
            "violations": viol, "objective_in_file": point.objective,
            "file_status": point.status, **report,
            "time_s": round(time.perf_counter() - t0, 6),
            "cpu_s": round(time.process_time() - c0, 6)}


def check_commands() -> dict[str, Command]:
    """``sparsekm check PROBLEM``, one command per problem."""
    return CHECK_COMMANDS


CHECK_COMMANDS = {
    name: Command("check", name, run_check,
                  f"Check a point of {name} computed elsewhere: feasibility (largest "
                  "violation), objective, and the exact value of its support. Exit 1 when "
                  "infeasible, 2 when the file is malformed.",
                  kind=None, own=CheckOwn, run_options=RUN_OPTIONS,
                  run_defaults=(("scale", "minmax11"),) if name == "minmax-fs" else ())
    for name in CHECKS
}
