"""Solving a formulation you changed (its output: docs/examples/formulation.txt)."""

import pyomo.environ as pyo

from sparsekm.algorithms import solve, solve_formulation
from sparsekm.data import Scaler, load_dataset
from sparsekm.models.fs_linear import FSLinearProblem, add_objective_cut, cop_model
from sparsekm.solvers import SolverPlan

ds = load_dataset("cleveland")
X = Scaler("standard").fit(ds.X[:60]).transform(ds.X[:60])
p = FSLinearProblem(X, ds.y[:60], B=3, C=1.0)        # paper D, FS-SVM (2)
best = solve(p, "bnb")                                 # its certified optimum
print("(2):", round(best.objective, 6), "features", best.selected, best.status)

model = cop_model(p, form="perspective")               # CoP (7): exact for (2)
res = solve_formulation(p, model, SolverPlan(solver="scip"))
print("CoP (7):", round(res.objective, 6), "bound", round(res.lower_bound, 6), res.status,
      "certifies", res.extra["certifies"])

j = best.selected[0]                                   # your change: drop feature j
model.mine = pyo.Constraint(expr=model.u[j] == 1)
res = solve_formulation(p, model, SolverPlan(solver="scip"))
print("changed:", res.extra["changes"], "certifies", res.extra["certifies"])
print("  its own bound", round(res.extra["model_bound"], 6), "(above the optimum of (2):",
      res.extra["model_bound"] > best.objective, ") bound on (2):", res.lower_bound)
print("  its point on (2): feasible", res.extra["on_problem"]["feasible"], "support",
      res.extra["on_problem"]["support"], "exact value",
      round(res.extra["on_problem"]["support_objective"], 6))

cut = add_objective_cut(cop_model(p, form="perspective"), 1.01 * best.objective)  # (17)
res = solve_formulation(p, cut, SolverPlan(solver="scip"))
print("with the cut (17):", round(res.lower_bound, 6), res.status, "certifies",
      res.extra["certifies"], "cuts", res.extra["model"]["cuts"])
