"""Ipopt (bundled in ``cyipopt-wheels``) for Pyomo models and numpy callback NLPs.

Pyomo's own ``ipopt`` plugin needs the executable and its ``cyipopt`` plugin needs PyNumero's
compiled ASL library; neither exists on a fresh machine (see README, solver table). This adapter
compiles a Pyomo model into the callbacks of a :class:`~sparsekm.solvers.nlp.CallbackNLP` and
solves it, or solves a hand-written :class:`CallbackNLP` directly (one route for both):

* quadratic parts (read with Pyomo's ``generate_standard_repn``) get exact, vectorised
  gradients, Jacobians and Hessians;
* general nonlinear parts (exp, powers, ...) are differentiated by Pyomo's reverse-mode
  ``differentiate``; the Hessian is then approximated by L-BFGS.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .nlp import CallbackNLP
from .pyomo_adapter import pyomo_values
from .result import Result, Termination
from .types import CONVEX_CLASSES, ProblemClass, SolverOptions

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
    """The callbacks cyipopt asks for, built once from the Pyomo model (in its own sense)."""

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
        return self.obj.value(x, self.vars)

    def gradient(self, x: np.ndarray) -> np.ndarray:
        p = self.obj
        g = np.zeros(self.n)
        np.add.at(g, p.lin_idx, p.lin_coef)
        np.add.at(g, p.qi, p.qc * x[p.qj])
        np.add.at(g, p.qj, p.qc * x[p.qi])
        if p.nl_expr is not None:
            np.add.at(g, p.nl_idx, p.nl_grad(x, self.vars))
        return g

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
        weights = np.where(self._h_owner < 0, obj_factor,
                           np.asarray(lagrange)[np.maximum(self._h_owner, 0)])
        return self.hess.values(weights * self._h_coef)


def compile_pyomo(model: Any) -> tuple[CallbackNLP, Callable[[np.ndarray], None]]:
    """A Pyomo model as a :class:`CallbackNLP`, and a function loading a point back into it."""
    nlp = _CompiledNLP(model)
    cb = CallbackNLP(
        n=nlp.n, x0=nlp.x0(), lb=nlp.lb, ub=nlp.ub, objective=nlp.objective,
        gradient=nlp.gradient, constraints=nlp.constraints if nlp.cons else None,
        jacobian=nlp.jacobian, jacobianstructure=nlp.jacobianstructure, cl=nlp.cl, cu=nlp.cu,
        hessian=nlp.hessian if nlp.exact_hessian else None,
        hessianstructure=nlp.hessianstructure if nlp.exact_hessian else None,
        sense="min" if nlp.sign > 0 else "max")
    return cb, lambda x: _load(nlp.vars, x, np.arange(nlp.n))


_T = Termination
# Ipopt's status -> (why it stopped, whether it returned a point, whether its KKT conditions hold)
_STATUS = {0: (_T.CONVERGED, True, True), 1: (_T.CONVERGED, True, True),
           2: (_T.INFEASIBLE, False, False), -1: (_T.ITERATION_LIMIT, True, False),
           -4: (_T.TIME_LIMIT, True, False), 4: (_T.UNBOUNDED, False, False)}


def solve_callbacks(nlp: CallbackNLP, options: SolverOptions, problem_class: ProblemClass,
                    solver_label: str, version: str) -> tuple[Result, np.ndarray]:
    """Solve ``nlp`` with Ipopt; returns the result and the final point x."""
    import cyipopt

    t0 = time.perf_counter()
    m = 0 if nlp.constraints is None else len(nlp.cl)
    prob = cyipopt.Problem(n=nlp.n, m=m, problem_obj=nlp.ipopt_callbacks(), lb=nlp.lb,
                           ub=nlp.ub, cl=nlp.cl if m else np.zeros(0),
                           cu=nlp.cu if m else np.zeros(0))
    prob.add_option("print_level", 5 if options.verbose else 0)
    prob.add_option("sb", "yes")
    prob.add_option("nlp_lower_bound_inf", -_INF / 10)
    prob.add_option("nlp_upper_bound_inf", _INF / 10)
    if nlp.hessian is None:
        prob.add_option("hessian_approximation", "limited-memory")
    if options.time_limit:
        prob.add_option("max_wall_time", float(options.time_limit))
    for key, val in options.extra.items():
        prob.add_option(key, val)
    x, info = prob.solve(np.asarray(nlp.x0, dtype=float))
    term, has_point, kkt = _STATUS.get(int(info["status"]), (Termination.ERROR, False, False))
    sign = 1.0 if nlp.sense == "min" else -1.0
    objective = sign * float(info["obj_val"]) if has_point else None
    # Ipopt is a local method: its optimum certifies a bound only on convex classes.
    convex = nlp.convex or problem_class in CONVEX_CLASSES
    bound = objective if kkt and convex else None
    msg = info["status_msg"]
    res = Result(objective=objective, bound=bound, termination=term,
                 sense=nlp.sense, time_s=time.perf_counter() - t0, solver=solver_label,
                 version=version, problem_class=problem_class,
                 values=nlp.named_values(x) if objective is not None else {},
                 message=msg.decode() if isinstance(msg, bytes) else str(msg), raw=info)
    if kkt and not convex:  # a KKT point, not a certified optimum
        res.mark_local(f"Ipopt's KKT conditions within tol={options.extra.get('tol', 1e-8):g}")
    return res, x


class IpoptAdapter:
    """Local NLP solves with Ipopt through cyipopt: Pyomo models or :class:`CallbackNLP`."""

    def __init__(self, framework: str, classes: set[ProblemClass]) -> None:
        self.framework = framework
        self.classes = frozenset(classes)

    def solve(self, model: Any, options: SolverOptions, problem_class: ProblemClass,
              solver_label: str, version: str) -> Result:
        if self.framework == "callbacks":
            return solve_callbacks(model, options, problem_class, solver_label, version)[0]
        t0 = time.perf_counter()
        nlp, load = compile_pyomo(model)
        res, x = solve_callbacks(nlp, options, problem_class, solver_label, version)
        load(x)
        res.values = pyomo_values(model) if res.objective is not None else {}
        res.time_s = time.perf_counter() - t0
        return res
