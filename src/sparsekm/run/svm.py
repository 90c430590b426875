"""``sparsekm solve svm``: the plain kernel or linear SVM (paper A eq. (3), paper D eq. (1)).

The native path is the default: sparsekm's compiled SMO engine on a precomputed kernel, which
stops at the time limit (``--solver smo`` names it), or ``--solver libsvm`` (scikit-learn's
libsvm, which no limit can stop: it took 136 s on magic's 15000 rows at C = 1000 under a 5 s
limit); their JSON has ``solve_s``, the dual solve alone, beside ``time_s``. Any other
``--solver NAME`` solves the declarative model instead: the primal QP (D eq. (1)) for the
linear kernel when the solver takes Pyomo QPs, otherwise the dual QP (A eq. (3)). Either
way the reported ``objective`` is the primal value 1/2||w||^2 + C sum xi at the returned
point and ``lower_bound`` is minus the dual value (weak duality), so the gap certifies the
solution; the native path refines its solve until that gap is within ``--gap-tol`` (a KKT
tolerance alone leaves 1.4 % at C = 1e5).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from sparsekm import declare
from sparsekm.specs import GAP_TOL

from .command import BASE_OPTIONS, Command, register_command
from .data import accuracy, prepare, ready, validation_split
from .payload import result_payload
from .resolve import Call


@dataclass(frozen=True)
class SVMRun:
    """The command's own parameter: the duality gap the solve must close."""

    gap_tol: float = declare.field(1e-6, GAP_TOL, help="Relative duality gap (P - D) / P at "
                                   "which the SVM counts as solved (a convex QP: tight).")


def _native(problem: Any, K: np.ndarray, solver: str | None, gap_tol: float,
            limit: float | None) -> dict:
    from sparsekm.engines.smo import SVMDualOptions, solve_svm_dual

    backend = "smo" if solver is None else solver.lower()
    res = solve_svm_dual(K, problem.y, problem.C, options=SVMDualOptions(  # K: ours, valid
        backend=backend, gap_tol=gap_tol, time_limit=limit if backend == "smo" else None,
        check_input=False))
    return {"alpha": res.alpha, "method": f"{backend}-dual", "solver": res.solver,
            "termination": res.termination.value, "solve_s": res.extra["solve_s"],
            "load_s": res.extra["load_s"], "refinements": res.extra["refinements"]}


def _model(problem: Any, K: np.ndarray, solver: str, limit: float | None) -> dict:
    from sparsekm.models.svm import svm_dual_model, svm_dual_problem, svm_primal_model
    from sparsekm.solvers import solve, supports

    pyomo_qp = supports(solver, "QP", "pyomo")
    if problem.kernel == "linear" and pyomo_qp:
        model, method = svm_primal_model(problem.X, problem.y, problem.C), "primal-qp"
    elif pyomo_qp:
        model, method = svm_dual_model(K, problem.y, problem.C), "dual-qp"
    else:
        model, method = svm_dual_problem(K, problem.y, problem.C), "dual-qp"
    r = solve(model, solver=solver, time_limit=limit)
    out = {"method": method, "solver": r.solver, "termination": r.termination.value,
           "message": r.message}
    if not r.has_solution:
        return out
    if method == "primal-qp":
        w = np.asarray(r.values["w"], dtype=float)
        return {**out, "w": w, "b": float(r.values["b"]), "bound": _linear_dual_bound(problem),
                "solver_bound": r.bound}
    return {**out, "alpha": np.asarray(r.values["alpha"], dtype=float)}


def _linear_dual_bound(problem: Any) -> float:
    """A certified lower bound on the linear SVM: D(alpha) at a feasible dual point (weak
    duality), from the native interior-point method. An outside solver's own bound on the
    primal QP is its dual value within its tolerances: SCIP's and Ipopt's sat 2.5e-8 and
    1.3e-8 above the optimum; theirs stays in ``solver_bound``, the certificate is this."""
    from sparsekm.engines.linear_svm import solve_linear_svm

    return float(solve_linear_svm(problem.X, problem.y, problem.C, method="ipm").dual)


KERNEL_BLOCK = 1024   # rows of the kernel matrix computed between two looks at the clock


def _kernel(problem: Any, deadline: Any) -> np.ndarray | None:
    """The kernel matrix in row blocks, None when ``deadline`` passes first (15000 rows of
    magic took 5.8 s: more than a 5 s limit, which the matrix in one call could not keep)."""
    from sparsekm.kernels import gram_by_blocks

    return gram_by_blocks(problem.spec, problem.X, deadline, KERNEL_BLOCK)


def _trivial(problem: Any, gap_tol: float, time_s: float) -> dict:
    """The limit ran out before the kernel matrix: alpha = 0 with b the majority class's sign.
    It is primal feasible (w = 0, xi_i = max(0, 1 - y_i b)) and dual feasible with dual value
    0, a certified lower bound (the primal is >= 0)."""
    from sparsekm.solvers import Result

    y = problem.y
    b = 1.0 if (y > 0).sum() >= (y < 0).sum() else -1.0
    primal = problem.C * float(np.maximum(0.0, 1.0 - y * b).sum())
    res = Result(objective=primal, bound=0.0, gap_tol=gap_tol)
    return {"method": "kernel", "solver": None, "termination": "time_limit",
            "alpha": np.zeros(problem.m), "b": b, "n_support": 0, "status": res.status.value,
            "objective": res.objective, "bound": res.bound, "gap": res.gap, "gap_tol": gap_tol,
            "time_s": time_s,
            "message": f"the time limit ran out while computing the {problem.m} x {problem.m} "
                       "kernel matrix: the trivial point alpha = 0 (the majority class) is "
                       "returned with the bound 0; raise --time-limit or use --rows"}


def solve_svm(problem: Any, solver: str | None, deadline: Any, gap_tol: float) -> dict:
    """Solve the SVM ``problem`` within ``deadline`` (a :class:`~sparsekm.solvers.Deadline`,
    or None): the payload's outcome fields, with ``alpha`` or ``w``."""
    from sparsekm.engines.smo import feasible_alpha, svm_duality
    from sparsekm.solvers import Result
    from sparsekm.solvers.native import NATIVE_SOLVERS

    t0 = time.perf_counter()
    K = _kernel(problem, deadline)
    if K is None:
        return _trivial(problem, gap_tol, time.perf_counter() - t0)
    limit = None if deadline is None else deadline.cap(None)   # what the kernel left
    native = solver is None or solver.lower() in NATIVE_SOLVERS
    out = _native(problem, K, solver, gap_tol, limit) if native else \
        _model(problem, K, solver, limit)
    if "w" in out:
        xi = np.maximum(0.0, 1.0 - problem.y * (problem.X @ out["w"] + out["b"]))
        primal, bound = 0.5 * float(out["w"] @ out["w"]) + problem.C * float(xi.sum()), \
            out.pop("bound")
    elif "alpha" in out:   # an outside solver's alpha is feasible within its tolerances only
        if not native:     # -D at the solver's own alpha: its claim, kept beside the proof
            ay = out["alpha"] * problem.y
            out["solver_bound"] = float(out["alpha"].sum() - 0.5 * ay @ (K @ ay))
        out["alpha"] = feasible_alpha(out["alpha"], problem.y, problem.C)
        primal, bound, out["b"] = svm_duality(K, problem.y, out["alpha"], problem.C)
        a = out["alpha"]
        out["n_support"] = int((a > 1e-8 * max(float(a.max()), 1e-300)).sum())
    else:
        primal = bound = None
    res = Result(objective=primal, bound=bound, gap_tol=gap_tol, message=out.get("message", ""))
    defect = problem.certificate_defect(K=K)
    if defect:
        res.withhold(defect)
    out.update(status=res.status.value, objective=res.objective, bound=res.bound, gap=res.gap,
               gap_tol=gap_tol, time_s=time.perf_counter() - t0)
    if res.message:
        out["message"] = res.message
    return out


def run_solve(call: Call) -> dict[str, Any]:
    """The plain SVM; the JSON payload of ``sparsekm solve svm``. ``--validation-size``
    reports ``validation_accuracy`` and ``validation_loss`` (mean hinge loss)."""
    from sparsekm.kernels import kernel_decision
    from sparsekm.models.svm import SVMProblem

    split = prepare(call.opts)
    train, val = validation_split(split.train, call.opts)
    problem = call.build(SVMProblem, train.X, train.y)
    ready()
    out = solve_svm(problem, call.opts.solver, call.solver_plan().clock, call.own["gap_tol"])
    alpha, w = out.pop("alpha", None), out.pop("w", None)

    def decide(X: np.ndarray) -> np.ndarray:
        if w is not None:
            return X @ w + out["b"]
        return kernel_decision(problem.spec, X, train.X, alpha * train.y, out["b"])

    if out.get("n_support") is not None:
        out["support_fraction"] = out["n_support"] / train.m
    if alpha is not None or w is not None:
        if val is not None:
            d = decide(val.X)
            out["validation_accuracy"] = accuracy(d, val.y)
            out["validation_loss"] = float(np.maximum(0.0, 1.0 - val.y * d).mean())
        if split.test is not None:
            out["test_accuracy"] = accuracy(decide(split.test.X), split.test.y)
    return result_payload(problem="svm", ds=split.ds, params=call.params(), selected=None,
                          **out)


SOLVE = register_command(Command(
    "solve", "svm", run_solve, "Plain SVM (no feature selection): objective = 1/2||w||^2 + "
    "C sum xi.", kind=None, own=SVMRun, run_options=(*BASE_OPTIONS, "validation_size")))
