"""The Python tour of the documentation (its output: docs/examples/python_tour.txt)."""

from sparsekm.algorithms import solve
from sparsekm.data import Scaler, load_dataset, train_test_split
from sparsekm.estimators import CardinalityLinearSVC
from sparsekm.models.fs_linear import FSLinearProblem, cop_model
from sparsekm.relaxations import relax
from sparsekm.solvers import SolverPlan

ds = load_dataset("wholesale")                        # X, y in {-1, +1}, names, citation
train, test = train_test_split(ds, test_size=0.3, seed=0)
scaler = Scaler("standard").fit(train.X)              # fitted on the training rows only
X, Xt = scaler.transform(train.X), scaler.transform(test.X)

p = FSLinearProblem(X, train.y, B=3, C=10.0)          # paper D, FS-SVM (2)
bound = relax(p, "dscop")                             # DSCoP (13): a certified lower bound
print("DSCoP (13) bound:", round(bound.lower_bound, 4))

res = solve(p, "bnb", SolverPlan(time_limit=60))        # certified optimum
print("bnb:", round(res.objective, 4), "lower bound", round(res.lower_bound, 4),
      "gap", f"{res.gap:.1e}", res.status, res.termination, "features", list(res.selected))

heur = solve(p, "kernel-search", SolverPlan(solver="scip", time_limit=60), rho=2)
print("kernel-search:", round(heur.objective, 4), heur.status, "features", list(heur.selected))

model = cop_model(p, form="perspective")              # CoP (7) as a Pyomo MISOCP
print("CoP (7):", model.nvariables(), "variables,", model.nconstraints(), "constraints")

clf = CardinalityLinearSVC(B=3, C=10.0, method="bnb").fit(X, train.y)   # scikit-learn
print("estimator: support", clf.get_support(indices=True).tolist(), "status", clf.status_,
      "test accuracy", round(clf.score(Xt, test.y), 3))
