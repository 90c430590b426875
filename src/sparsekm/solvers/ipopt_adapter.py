"""Ipopt (bundled in ``cyipopt-wheels``) for Pyomo models, without an ``ipopt`` executable.

Pyomo's own ``ipopt`` plugin needs the executable and its ``cyipopt`` plugin needs PyNumero's
compiled ASL library; neither exists on a fresh machine (see README, solver table). This adapter
compiles the Pyomo model into numpy callbacks for ``cyipopt.Problem``:

* quadratic parts (read with Pyomo's ``generate_standard_repn``) get exact, vectorised
  gradients, Jacobians and Hessians;
* general nonlinear parts (exp, powers, ...) are differentiated by Pyomo's reverse-mode
  ``differentiate``; the Hessian is then approximated by L-BFGS.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .pyomo_adapter import pyomo_values
from .types import ProblemClass, SolveResult, SolverOptions, Status, relative_gap

_INF = 1e20


class _Part:
    """One scalar function of x: constant + linear + quadratic + optional general term."""

    def __init__(self, expr: Any, index: dict[int, int]) -> None:
        from pyomo.repn import generate_standard_repn

        repn = generate_standard_repn(expr, compute_values=True, quadratic=True)
        self.const = float(repn.constant)
        self.lin_idx = np.array([index[id(v)] for v in repn.linear_vars], dtype=np.int64)
        self.lin_coef = np.array(repn.linear_coefs, dtype=float)
        q = repn.quadratic_vars
        self.qi = np.array([index[id(a)] for a, _ in q], dtype=np.int64)
        self.qj = np.array([index[id(b)] for _, b in q], dtype=np.int64)
        self.qc = np.array(repn.quadratic_coefs, dtype=float)
        self.nl_expr = repn.nonlinear_expr
        self.nl_vars = list(repn.nonlinear_vars) if self.nl_expr is not None else []
        self.nl_idx = np.array([index[id(v)] for v in self.nl_vars], dtype=np.int64)

    def value(self, x: np.ndarray, model_vars: list) -> float:
        val = self.const + self.lin_coef @ x[self.lin_idx] + self.qc @ (x[self.qi] * x[self.qj])
        if self.nl_expr is not None:
            import pyomo.environ as pyo

            _load(model_vars, x, self.nl_idx)
            val += pyo.value(self.nl_expr)
        return float(val)

    def nl_grad(self, x: np.ndarray, model_vars: list) -> np.ndarray:
        from pyomo.core.expr.calculus.derivatives import Modes, differentiate

        _load(model_vars, x, self.nl_idx)
        return np.asarray(differentiate(self.nl_expr, wrt_list=self.nl_vars,
                                        mode=Modes.reverse_numeric), dtype=float)


def _load(model_vars: list, x: np.ndarray, idx: np.ndarray) -> None:
    for k in idx:
        model_vars[k].set_value(float(x[k]), skip_validation=True)


class _SparseAccumulator:
    """Unique (row, col) pattern with scatter positions for repeated contributions."""

    def __init__(self, rows: np.ndarray, cols: np.ndarray) -> None:
        if rows.size:
            keys = np.stack([rows, cols], axis=1)
            uniq, self.pos = np.unique(keys, axis=0, return_inverse=True)
            self.pos = self.pos.ravel()
            self.rows, self.cols = uniq[:, 0].copy(), uniq[:, 1].copy()
        else:
            self.pos = np.zeros(0, dtype=np.int64)
            self.rows = self.cols = np.zeros(0, dtype=np.int64)

    def values(self, contrib: np.ndarray) -> np.ndarray:
        out = np.zeros(self.rows.size)
        np.add.at(out, self.pos, contrib)
        return out


class _CompiledNLP:
    """The callbacks cyipopt asks for, built once from the Pyomo model."""

    def __init__(self, model: Any) -> None:
        import pyomo.environ as pyo

        self.vars = [v for v in model.component_data_objects(pyo.Var, active=True,
                                                              descend_into=True) if not v.fixed]
        index = {id(v): k for k, v in enumerate(self.vars)}
        n = len(self.vars)
        obj = next(model.component_data_objects(pyo.Objective, active=True, descend_into=True))
        self.sign = 1.0 if obj.sense == pyo.minimize else -1.0
        self.obj = _Part(obj.expr, index)
        cons = list(model.component_data_objects(pyo.Constraint, active=True, descend_into=True))
        self.cons = [_Part(c.body, index) for c in cons]
        self.cl = np.array([-_INF if c.lower is None else pyo.value(c.lower) for c in cons])
        self.cu = np.array([_INF if c.upper is None else pyo.value(c.upper) for c in cons])
        self.lb = np.array([-_INF if v.lb is None else v.lb for v in self.vars], dtype=float)
        self.ub = np.array([_INF if v.ub is None else v.ub for v in self.vars], dtype=float)
        self.n = n
        self.exact_hessian = self.obj.nl_expr is None and all(p.nl_expr is None
                                                               for p in self.cons)
        # Jacobian: linear, quadratic (two entries per term) and general contributions.
        rows, cols = [], []
        for r, p in enumerate(self.cons):
            for arr in (p.lin_idx, p.qi, p.qj, p.nl_idx):
                rows.append(np.full(arr.size, r))
                cols.append(arr)
        self.jac = _SparseAccumulator(np.concatenate(rows) if rows else np.zeros(0, int),
                                      np.concatenate(cols) if cols else np.zeros(0, int))
        # Hessian (lower triangle) from quadratic terms of objective (row -1) and constraints.
        hr, hc, self._h_owner, self._h_coef = [], [], [], []
        for owner, p in [(-1, self.obj)] + list(enumerate(self.cons)):
            if p.qc.size:
                i, j = np.maximum(p.qi, p.qj), np.minimum(p.qi, p.qj)
                hr.append(i)
                hc.append(j)
                self._h_owner.append(np.full(p.qc.size, owner))
                self._h_coef.append(np.where(i == j, 2.0 * p.qc, p.qc))
        self.hess = _SparseAccumulator(np.concatenate(hr) if hr else np.zeros(0, int),
                                       np.concatenate(hc) if hc else np.zeros(0, int))
        self._h_owner = np.concatenate(self._h_owner) if self._h_owner else np.zeros(0, int)
        self._h_coef = np.concatenate(self._h_coef) if self._h_coef else np.zeros(0)

    def x0(self) -> np.ndarray:
        x = np.array([0.0 if v.value is None else float(v.value) for v in self.vars])
        return np.clip(x, self.lb, self.ub)

    # --- cyipopt callbacks -------------------------------------------------------------
    def objective(self, x: np.ndarray) -> float:
        return self.sign * self.obj.value(x, self.vars)

    def gradient(self, x: np.ndarray) -> np.ndarray:
        p = self.obj
        g = np.zeros(self.n)
        np.add.at(g, p.lin_idx, p.lin_coef)
        np.add.at(g, p.qi, p.qc * x[p.qj])
        np.add.at(g, p.qj, p.qc * x[p.qi])
        if p.nl_expr is not None:
            np.add.at(g, p.nl_idx, p.nl_grad(x, self.vars))
        return self.sign * g

    def constraints(self, x: np.ndarray) -> np.ndarray:
        return np.array([p.value(x, self.vars) for p in self.cons])

    def jacobianstructure(self) -> tuple[np.ndarray, np.ndarray]:
        return self.jac.rows, self.jac.cols

    def jacobian(self, x: np.ndarray) -> np.ndarray:
        parts = []
        for p in self.cons:
            parts += [p.lin_coef, p.qc * x[p.qj], p.qc * x[p.qi]]
            parts.append(p.nl_grad(x, self.vars) if p.nl_expr is not None else np.zeros(0))
        return self.jac.values(np.concatenate(parts) if parts else np.zeros(0))

    def hessianstructure(self) -> tuple[np.ndarray, np.ndarray]:
        return self.hess.rows, self.hess.cols

    def hessian(self, x: np.ndarray, lagrange: np.ndarray, obj_factor: float) -> np.ndarray:
        weights = np.where(self._h_owner < 0, obj_factor * self.sign,
                           np.asarray(lagrange)[np.maximum(self._h_owner, 0)])
        return self.hess.values(weights * self._h_coef)


_STATUS = {0: Status.OPTIMAL, 1: Status.OPTIMAL, 2: Status.INFEASIBLE, -1: Status.FEASIBLE,
           -4: Status.TIME_LIMIT, 4: Status.UNBOUNDED}


class IpoptPyomoAdapter:
    """Local NLP solves of Pyomo models with Ipopt through cyipopt."""

    framework = "pyomo"

    def __init__(self, classes: set[ProblemClass]) -> None:
        self.classes = frozenset(classes)

    def solve(self, model: Any, options: SolverOptions, problem_class: ProblemClass,
              solver_label: str, version: str) -> SolveResult:
        import cyipopt

        t0 = time.perf_counter()
        nlp = _CompiledNLP(model)
        prob = cyipopt.Problem(n=nlp.n, m=len(nlp.cons), problem_obj=nlp, lb=nlp.lb, ub=nlp.ub,
                               cl=nlp.cl, cu=nlp.cu)
        prob.add_option("print_level", 5 if options.verbose else 0)
        prob.add_option("sb", "yes")
        prob.add_option("nlp_lower_bound_inf", -_INF / 10)
        prob.add_option("nlp_upper_bound_inf", _INF / 10)
        if not nlp.exact_hessian:
            prob.add_option("hessian_approximation", "limited-memory")
        if options.time_limit:
            prob.add_option("max_wall_time", float(options.time_limit))
        for key, val in options.extra.items():
            prob.add_option(key, val)
        x, info = prob.solve(nlp.x0())
        elapsed = time.perf_counter() - t0
        code = int(info["status"])
        status = _STATUS.get(code, Status.ERROR)
        _load(nlp.vars, x, np.arange(nlp.n))
        objective = nlp.sign * float(info["obj_val"])
        if status in (Status.INFEASIBLE, Status.UNBOUNDED, Status.ERROR):
            objective = None
        # Ipopt is a local method: its optimum certifies a bound only on convex classes.
        convex = problem_class in (ProblemClass.LP, ProblemClass.QP, ProblemClass.SOCP)
        bound = objective if status is Status.OPTIMAL and convex else None
        return SolveResult(status=status, objective=objective, bound=bound,
                           gap=relative_gap(objective, bound), time_s=elapsed,
                           solver=solver_label, version=version, problem_class=problem_class,
                           values=pyomo_values(model) if objective is not None else {},
                           message=info["status_msg"].decode() if isinstance(
                               info["status_msg"], bytes) else str(info["status_msg"]),
                           raw=info)
