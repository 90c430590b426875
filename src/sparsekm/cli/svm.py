"""``sparsekm solve svm``: the plain kernel or linear SVM (paper A eq. (3), paper D eq. (1)).

The native path is the default: libsvm on a precomputed kernel, or ``--solver smo`` for
sparsekm's compiled SMO engine (``--solver libsvm`` names the default); their JSON has
``solve_s``, the dual solve alone, beside ``time_s``. Any other ``--solver NAME`` solves the
declarative model instead: the primal QP (D eq. (1)) for the linear kernel when the solver
takes Pyomo QPs, otherwise the dual QP (A eq. (3)). Either way the reported ``objective`` is
the primal value 1/2||w||^2 + C sum xi at the returned point and ``lower_bound`` is minus the
dual value (weak duality), so the gap certifies the solution.
"""

from __future__ import annotations

import time
from typing import Annotated, Any

import numpy as np
import typer

from . import common as c

SVM_GAP_TOL = 1e-6  # a convex QP: its duality gap closes to this (refined when libsvm stops short)
KernelOpt = Annotated[str, typer.Option(
    "--kernel", help="linear|poly|rbf|laplacian|sigmoid")]


def solve_svm(ds: Any, kernel: str, gamma: float | None, degree: int, coef0: float, C: float,
              solver: str | None, time_limit: float | None) -> dict:
    """Solve the SVM on ``ds``; returns the JSON payload (without the data-independent keys)."""
    from sparsekm.kernels import kernel_matrix
    from sparsekm.models.svm import svm_dual_model, svm_dual_problem, svm_primal_model
    from sparsekm.solvers import Result, relative_gap, solve, supports
    from sparsekm.solvers.native import NATIVE_SOLVERS
    from sparsekm.solvers.smo import SVMDualOptions, solve_svm_dual, svm_duality

    t0 = time.perf_counter()
    gap_tol = SVM_GAP_TOL
    K = kernel_matrix(ds.X, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0)
    y = ds.y
    solve_s = load_s = None
    if solver is None or solver.lower() in NATIVE_SOLVERS:
        backend = "libsvm" if solver is None else solver.lower()
        res = solve_svm_dual(K, y, C, options=SVMDualOptions(backend=backend, gap_tol=gap_tol))
        alpha, method, used = res.alpha, f"{backend}-dual", res.solver
        solve_s, load_s = res.extra["solve_s"], res.extra["load_s"]
        term = res.termination.value
    else:
        pyomo_qp = supports(solver, "QP", "pyomo")
        if kernel == "linear" and pyomo_qp:
            model, method = svm_primal_model(ds.X, y, C), "primal-qp"
        elif pyomo_qp:
            model, method = svm_dual_model(K, y, C), "dual-qp"
        else:
            model, method = svm_dual_problem(K, y, C), "dual-qp"
        r = solve(model, solver=solver, time_limit=time_limit)
        status, used, term, gap_tol = r.status.value, r.solver, r.termination.value, r.gap_tol
        if not r.has_solution:
            return {"method": method, "solver": used, "status": status, "objective": None,
                    "time_s": time.perf_counter() - t0, "termination": term,
                    "message": r.message}
        if method == "primal-qp":
            w = r.values["w"]
            xi = np.maximum(0.0, 1.0 - y * (ds.X @ w + r.values["b"]))
            primal = 0.5 * float(w @ w) + C * float(xi.sum())
            return {"method": method, "solver": used, "status": status, "objective": primal,
                    "bound": r.bound, "gap": r.gap, "gap_tol": r.gap_tol,
                    "time_s": time.perf_counter() - t0,
                    "termination": term, "b": float(r.values["b"]), "n_support": None, "w": w}
        alpha = np.asarray(r.values["alpha"], dtype=float)
    primal, lower, b = svm_duality(K, y, alpha, C)
    gap = relative_gap(primal, lower)
    status = Result(objective=primal, bound=lower, gap_tol=gap_tol).status.value
    out = {"method": method, "solver": used, "status": status, "objective": primal,
           "bound": lower, "gap": gap, "gap_tol": gap_tol, "time_s": time.perf_counter() - t0,
           "termination": term, "b": b,
           "n_support": int((alpha > 1e-8 * max(float(alpha.max()), 1e-300)).sum()),
           "alpha": alpha}
    if solve_s is not None:  # the dual solve alone (native solvers), and loading their code
        out.update(solve_s=solve_s, load_s=load_s)
    return out


@c.runner("solve", "svm", checks=True)
def run(opts: c.RunOptions, *, kernel: str = "rbf", gamma: float | None = None, degree: int = 3,
        coef0: float = 0.0, C: float = 1.0, validation_size: float = 0.0) -> dict[str, Any]:
    """The plain SVM on ``opts.data``; the JSON payload of ``sparsekm solve svm``.

    ``validation_size`` fits on the training rows less that held-out fraction and reports
    ``validation_accuracy`` and ``validation_loss`` (mean hinge loss) for model selection."""
    from sparsekm.kernels import KernelSpec, kernel_matrix
    from sparsekm.models.problem import check_positive

    split = c.prepare(opts)
    train, val = split.train, None
    if validation_size > 0:
        train, val = c.validation_split(split.train, validation_size, opts.seed)
    KernelSpec(kernel, gamma=gamma, degree=degree, coef0=coef0)  # validates the kernel
    check_positive("C", C)
    c.ready()
    out = solve_svm(train, kernel, gamma, degree, coef0, C, opts.solver, opts.time_limit)
    alpha, w = out.pop("alpha", None), out.pop("w", None)

    def decide(X: np.ndarray) -> np.ndarray:
        if w is not None:
            return X @ w + out["b"]
        return kernel_matrix(X, train.X, kernel=kernel, gamma=gamma, degree=degree,
                             coef0=coef0) @ (alpha * train.y) + out["b"]

    if out.get("n_support") is not None:
        out["support_fraction"] = out["n_support"] / train.m
    if alpha is not None or w is not None:
        if val is not None:
            d = decide(val.X)
            out["validation_accuracy"] = c.accuracy(d, val.y)
            out["validation_loss"] = float(np.maximum(0.0, 1.0 - val.y * d).mean())
        if split.test is not None:
            out["test_accuracy"] = c.accuracy(decide(split.test.X), split.test.y)
    params = {"kernel": kernel, "gamma": gamma, "degree": degree, "coef0": coef0, "C": C,
              **opts.params()}
    if val is not None:
        params["validation_size"] = validation_size
    return c.result_payload(problem="svm", ds=split.ds, params=params, selected=None, **out)


@c.solve_app.command("svm")
@c.shared_options
def solve_svm_cmd(
    data: c.DataOpt = c.DEFAULT_DATA, label: c.LabelOpt = "label", scale: c.ScaleOpt = "standard",
    rows: c.RowsOpt = None, seed: c.SeedOpt = 0, solver: c.SolverOpt = None,
    time_limit: c.TimeLimitOpt = None, test_size: c.TestSizeOpt = 0.0, json_out: c.JsonOpt = False,
    kernel: KernelOpt = "rbf",
    gamma: Annotated[float | None, typer.Option("--gamma", help="Kernel gamma (default 1/n).")]
    = None,
    degree: Annotated[int, typer.Option("--degree")] = 3,
    coef0: Annotated[float, typer.Option("--coef0")] = 0.0,
    C: c.COpt = 1.0,
    validation_size: c.ValidationOpt = 0.0,
) -> None:
    """Plain SVM (no feature selection): objective = 1/2||w||^2 + C sum xi."""
    opts = c.RunOptions(data, label, scale, rows, seed, solver, time_limit, test_size)
    c.run_command(run, opts, json_out, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                C=C, validation_size=validation_size)
