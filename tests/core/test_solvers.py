"""Every usable backend on canned problems with hand-checked optima (cf. cvxpy's suite)."""

from __future__ import annotations

import itertools
import math

import cvxpy as cp
import numpy as np
import pyomo.environ as pyo
import pytest

from sparsekm.solvers import (
    BACKENDS,
    ProblemClass,
    SolverCapabilityError,
    SolverNotAvailableError,
    Status,
    Termination,
    classify,
    declare_class,
    solve,
    supports,
)

PC = ProblemClass


# --- canned problems: (builder, problem class, framework, optimum, check) --------------------
def lp_pyomo():
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(2), domain=pyo.NonNegativeReals)
    m.obj = pyo.Objective(expr=-m.x[0] - 2 * m.x[1])
    m.c1 = pyo.Constraint(expr=m.x[0] + m.x[1] <= 4)
    m.c2 = pyo.Constraint(expr=m.x[0] + 3 * m.x[1] <= 6)
    return m  # vertices (0,0),(4,0),(3,1),(0,2): optimum -5 at (3,1)


def lp_cvxpy():
    x = cp.Variable(2, name="x")
    return cp.Problem(cp.Minimize(-x[0] - 2 * x[1]), [x >= 0, x[0] + x[1] <= 4,
                                                        x[0] + 3 * x[1] <= 6])


def qp_pyomo():
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(2))
    m.obj = pyo.Objective(expr=(m.x[0] - 1) ** 2 + (m.x[1] - 2) ** 2)
    m.c = pyo.Constraint(expr=m.x[0] + m.x[1] <= 1)
    return m  # projection of (1,2) on x0+x1<=1 is (0,1): optimum 2


def qp_cvxpy():
    x = cp.Variable(2, name="x")
    return cp.Problem(cp.Minimize(cp.sum_squares(x - np.array([1.0, 2.0]))), [cp.sum(x) <= 1])


W_KNAP, V_KNAP, CAP = [5, 4, 3, 7, 6], [10, 7, 5, 12, 9], 13


def knapsack_optimum() -> float:
    best = 0
    for z in itertools.product((0, 1), repeat=5):
        if np.dot(z, W_KNAP) <= CAP:
            best = max(best, np.dot(z, V_KNAP))
    return -float(best)


def milp_pyomo():
    m = pyo.ConcreteModel()
    m.z = pyo.Var(range(5), domain=pyo.Binary)
    m.obj = pyo.Objective(expr=-sum(V_KNAP[i] * m.z[i] for i in range(5)))
    m.cap = pyo.Constraint(expr=sum(W_KNAP[i] * m.z[i] for i in range(5)) <= CAP)
    return m


def milp_cvxpy():
    z = cp.Variable(5, boolean=True, name="z")
    return cp.Problem(cp.Minimize(-np.array(V_KNAP, float) @ z),
                      [np.array(W_KNAP, float) @ z <= CAP])


T_MIQP = np.array([0.9, 0.2, 0.7, 0.4, 0.6])


def miqp_optimum() -> float:
    """min ||z - t||^2 + 0.3 z0 z1 with sum z = 2 (enumerated)."""
    best = math.inf
    for z in itertools.product((0, 1), repeat=5):
        if sum(z) == 2:
            z = np.array(z, float)
            best = min(best, float(((z - T_MIQP) ** 2).sum() + 0.3 * z[0] * z[1]))
    return best


def miqp_pyomo():
    m = pyo.ConcreteModel()
    m.z = pyo.Var(range(5), domain=pyo.Binary)
    m.obj = pyo.Objective(expr=sum((m.z[i] - T_MIQP[i]) ** 2 for i in range(5))
                          + 0.3 * m.z[0] * m.z[1])
    m.card = pyo.Constraint(expr=sum(m.z[i] for i in range(5)) == 2)
    return m


def miqp_cvxpy():
    z = cp.Variable(5, boolean=True, name="z")
    # 0.3 z0 z1 is not convex as written; z binary => z0 z1 = (z0+z1)^2/2 - (z0+z1)/2.
    s = z[0] + z[1]
    obj = cp.sum_squares(z - T_MIQP) + 0.15 * cp.square(s) - 0.15 * s
    return cp.Problem(cp.Minimize(obj), [cp.sum(z) == 2])


def socp_pyomo():
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(2))
    m.obj = pyo.Objective(expr=m.x[0] + m.x[1])
    m.cone = pyo.Constraint(expr=m.x[0] ** 2 + m.x[1] ** 2 <= 1)
    return declare_class(m, PC.SOCP)  # optimum -sqrt(2)


def socp_cvxpy():
    x = cp.Variable(2, name="x")
    return cp.Problem(cp.Minimize(cp.sum(x)), [cp.norm(x, 2) <= 1])


C_SDP = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 1.0], [0.0, 1.0, 2.0]])


def sdp_cvxpy():
    X = cp.Variable((3, 3), symmetric=True, name="X")
    return cp.Problem(cp.Minimize(cp.trace(C_SDP @ X)), [X >> 0, cp.trace(X) == 1])
    # optimum = smallest eigenvalue of C = 2 - sqrt(2)


def nlp_pyomo():
    m = pyo.ConcreteModel()
    m.x = pyo.Var(initialize=0.0)
    m.y = pyo.Var(initialize=0.0)
    m.obj = pyo.Objective(expr=pyo.exp(m.x) - 2 * m.x + (m.y - 1) ** 2)
    m.c = pyo.Constraint(expr=m.x ** 2 <= 0.25)
    return m  # unconstrained minimiser x = ln 2 > 0.5, so x = 0.5, y = 1: e^0.5 - 1


def minlp_pyomo():
    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(-2, 2), initialize=0.0)
    m.z = pyo.Var(domain=pyo.Binary)
    m.obj = pyo.Objective(expr=pyo.exp(m.x) - (1 + m.z) * m.x + 0.1 * m.z)
    return m  # z=0: min e^x - x = 1; z=1: 2 - 2 ln 2 + 0.1 = 0.7137 -> optimum at z = 1


CANNED = {
    "lp-pyomo": (lp_pyomo, PC.LP, "pyomo", -5.0),
    "lp-cvxpy": (lp_cvxpy, PC.LP, "cvxpy", -5.0),
    "qp-pyomo": (qp_pyomo, PC.QP, "pyomo", 2.0),
    "qp-cvxpy": (qp_cvxpy, PC.QP, "cvxpy", 2.0),
    "milp-pyomo": (milp_pyomo, PC.MILP, "pyomo", knapsack_optimum()),
    "milp-cvxpy": (milp_cvxpy, PC.MILP, "cvxpy", knapsack_optimum()),
    "miqp-pyomo": (miqp_pyomo, PC.MIQP, "pyomo", miqp_optimum()),
    "miqp-cvxpy": (miqp_cvxpy, PC.MIQP, "cvxpy", miqp_optimum()),
    "socp-pyomo": (socp_pyomo, PC.SOCP, "pyomo", -math.sqrt(2)),
    "socp-cvxpy": (socp_cvxpy, PC.SOCP, "cvxpy", -math.sqrt(2)),
    "sdp-cvxpy": (sdp_cvxpy, PC.SDP, "cvxpy", 2 - math.sqrt(2)),
    "nlp-pyomo": (nlp_pyomo, PC.NLP, "pyomo", math.exp(0.5) - 1),
    "minlp-pyomo": (minlp_pyomo, PC.MINLP, "pyomo", 2 - 2 * math.log(2) + 0.1),
}

CASES = [(key, name) for key, (_, pc, fw, _) in CANNED.items() for name in BACKENDS
         if supports(name, pc, fw)]


@pytest.mark.parametrize(("key", "solver"), CASES, ids=[f"{k}-{s}" for k, s in CASES])
def test_canned_problem(key: str, solver: str) -> None:
    builder, pc, fw, optimum = CANNED[key]
    avail = BACKENDS[solver].availability()
    if not avail.usable:
        pytest.skip(f"{solver}: {avail.note}")
    model = builder()
    assert classify(model) is pc
    res = solve(model, solver=solver)
    tol = 2e-3 if solver == "scs" else 1e-5
    # the contract: optimal only when certified; a first-order solver's point is feasible
    # (no certified bound), a local NLP solver's is locally optimal
    expected = Status.FEASIBLE if solver == "scs" else \
        Status.LOCALLY_OPTIMAL if solver == "ipopt" and pc.value == "NLP" else Status.OPTIMAL
    assert res.status is expected, res.message
    if expected is not Status.OPTIMAL:
        assert res.bound is None
    if solver == "scs":  # the message says why and which solvers certify
        assert "not a certified bound" in res.message and "clarabel" in res.message
    assert res.objective == pytest.approx(optimum, rel=tol, abs=tol)
    if res.bound is not None:  # a certified bound never exceeds the optimum (minimisation)
        assert res.bound <= optimum + max(tol, 1e-6) * max(1.0, abs(optimum)) * 10
    assert res.problem_class is pc and res.solver and res.time_s >= 0
    assert res.values, "variable values are returned"


def test_default_solvers_are_open_source() -> None:
    for key, (builder, _, _, optimum) in CANNED.items():
        res = solve(builder())
        assert not next(b for b in BACKENDS.values() if b.display == res.solver).commercial, key
        assert res.objective == pytest.approx(optimum, abs=1e-4)


def test_values_are_loaded_and_returned() -> None:
    m = lp_pyomo()
    res = solve(m, "highs")
    np.testing.assert_allclose(res.values["x"], [3.0, 1.0], atol=1e-7)
    assert pyo.value(m.x[0]) == pytest.approx(3.0)


def test_nlp_solvers_agree_and_ipopt_handles_maximisation() -> None:
    m = nlp_pyomo()
    a, b = solve(m, "ipopt"), solve(nlp_pyomo(), "scip")
    assert a.objective == pytest.approx(b.objective, abs=1e-5)
    n = pyo.ConcreteModel()
    n.x = pyo.Var(bounds=(0, 3), initialize=1.0)
    n.obj = pyo.Objective(expr=pyo.log(1 + n.x) - 0.5 * n.x, sense=pyo.maximize)
    res = solve(n, "ipopt")  # d/dx: 1/(1+x) = 1/2 -> x = 1
    assert res.values["x"] == pytest.approx(1.0, abs=1e-5)
    assert res.objective == pytest.approx(math.log(2) - 0.5, abs=1e-8)


def test_ipopt_quadratic_constraints_exact_hessian() -> None:
    # min x + y  s.t. x^2 + y^2 <= 1 (declared SOCP); Ipopt uses the exact Hessian here
    res = solve(socp_pyomo(), "scip")
    m = socp_pyomo()
    declare_class(m, PC.NLP)
    r2 = solve(m, "ipopt")
    assert r2.objective == pytest.approx(res.objective, abs=1e-6)
    np.testing.assert_allclose(r2.values["x"], [-(0.5 ** 0.5)] * 2, atol=1e-6)


def test_infeasible_is_reported() -> None:
    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, 1))
    m.obj = pyo.Objective(expr=m.x)
    m.c = pyo.Constraint(expr=m.x >= 2)
    for solver in ("highs", "scip"):
        res = solve(m, solver)
        assert res.status is Status.INFEASIBLE and not res.has_solution
    x = cp.Variable()
    assert solve(cp.Problem(cp.Minimize(x), [x >= 2, x <= 1])).status is Status.INFEASIBLE


def hard_miqp(n: int = 60, seed: int = 3):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, n))
    Q = A @ A.T / n
    c = rng.standard_normal(n) * 3
    m = pyo.ConcreteModel()
    m.z = pyo.Var(range(n), domain=pyo.Binary)
    iu, ju = np.triu_indices(n)
    m.obj = pyo.Objective(expr=sum(float(Q[i, j] * (1 if i == j else 2)) * m.z[i] * m.z[j]
                                   for i, j in zip(iu, ju)) + sum(float(c[i]) * m.z[i]
                                                                  for i in range(n)))
    m.card = pyo.Constraint(expr=sum(m.z[i] for i in range(n)) == n // 3)
    return m


def test_time_limit_returns_incumbent_and_bound() -> None:
    res = solve(hard_miqp(), "scip", time_limit=1.0)
    assert res.termination is Termination.TIME_LIMIT and res.status is Status.FEASIBLE
    assert res.has_solution and res.bound is not None
    assert res.bound <= res.objective + 1e-9 and res.gap > 0
    assert res.time_s < 10
    z = res.values["z"]
    assert np.allclose(z, np.round(z)) and round(z.sum()) == 20  # a feasible incumbent


def test_classify() -> None:
    assert classify(lp_pyomo()) is PC.LP and classify(milp_pyomo()) is PC.MILP
    assert classify(qp_pyomo()) is PC.QP and classify(miqp_pyomo()) is PC.MIQP
    assert classify(nlp_pyomo()) is PC.NLP and classify(minlp_pyomo()) is PC.MINLP
    m = socp_pyomo()
    del m.sparsekm_class
    assert classify(m) is PC.NLP  # quadratic constraints are (MI)NLP unless declared
    assert classify(lp_cvxpy()) is PC.LP and classify(qp_cvxpy()) is PC.QP
    assert classify(socp_cvxpy()) is PC.SOCP and classify(sdp_cvxpy()) is PC.SDP
    assert classify(milp_cvxpy()) is PC.MILP and classify(miqp_cvxpy()) is PC.MIQP
    x = cp.Variable(2)
    assert classify(cp.Problem(cp.Minimize(cp.sum(cp.logistic(x))))) is PC.EXP
    with pytest.raises(TypeError, match="Pyomo ConcreteModel, a cvxpy.Problem"):
        solve(object())


def test_errors_name_the_capable_solvers() -> None:
    with pytest.raises(SolverCapabilityError, match=r"cannot handle SDP.*clarabel, scs"):
        solve(sdp_cvxpy(), "highs")
    with pytest.raises(SolverCapabilityError, match=r"HiGHS.*MIQP.*scip"):
        solve(miqp_pyomo(), "highs")
    with pytest.raises(SolverCapabilityError, match=r"Clarabel.*pyomo models"):
        solve(qp_pyomo(), "clarabel")
    with pytest.raises(SolverNotAvailableError, match=r"unknown solver 'cbc'.*scip"):
        solve(miqp_pyomo(), "cbc")


def test_unlicensed_solver_is_reported_clearly() -> None:
    avail = BACKENDS["mosek"].availability()
    if not avail.installed or avail.licensed:
        pytest.skip("needs MOSEK installed without a licence")
    with pytest.raises(SolverNotAvailableError, match=r"not licensed.*mosek.lic.*scip"):
        solve(miqp_pyomo(), "mosek")


def test_size_limited_licence_is_a_clear_error() -> None:
    if not BACKENDS["gurobi"].availability().usable:
        pytest.skip("gurobipy not installed")
    if "size-limited" not in BACKENDS["gurobi"].availability().note:
        pytest.skip("a full Gurobi licence is present")
    with pytest.raises(SolverNotAvailableError,
                       match=r"size limit \(.*200 variables in all once any quadratic term is "
                             r"present\): this "
                             r"model has 2\d\d variables.*can take it: .*scip"):
        solve(hard_miqp(n=210), "gurobi")


def test_solver_choice_from_environment_and_toml(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("SPARSEKM_SOLVER_QP", "scip")
    assert solve(qp_pyomo()).solver == "SCIP"
    monkeypatch.delenv("SPARSEKM_SOLVER_QP")
    monkeypatch.setenv("SPARSEKM_SOLVER", "scip")  # a global default...
    assert solve(sdp_cvxpy()).solver == "Clarabel"  # ...is skipped where it cannot serve
    monkeypatch.delenv("SPARSEKM_SOLVER")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sparsekm.toml").write_text('[solvers]\nSDP = "scs"\nQP = "highs"\n'
                                            '[solver_options.scs]\neps_abs = 1e-7\n'
                                            'eps_rel = 1e-7\n')
    res = solve(sdp_cvxpy())
    assert res.solver == "SCS" and res.objective == pytest.approx(2 - 2 ** 0.5, abs=1e-5)
    (tmp_path / "sparsekm.toml").write_text('[solvers]\nSDP = "highs"\n')
    with pytest.raises(SolverCapabilityError, match=r"sparsekm.toml.*clarabel"):
        solve(sdp_cvxpy())


def test_relative_gap_convention() -> None:
    from sparsekm.solvers import relative_gap

    assert relative_gap(0.15, 0.12) == pytest.approx(0.2)  # |UB - LB| / |UB|, no floor at 1
    assert relative_gap(-10.0, -12.0) == pytest.approx(0.2)
    assert relative_gap(0.0, 0.0) == 0.0 and relative_gap(0.0, -1.0) == math.inf
    assert relative_gap(None, 1.0) is None and relative_gap(1.0, -math.inf) is None


def test_warm_start_without_a_start_point_changes_nothing() -> None:
    """warm_start=True on a model whose integer variables have no values is a cold solve
    (SCIP would otherwise be handed an empty partial solution)."""
    cold = solve(miqp_pyomo(), "scip")
    warm = solve(miqp_pyomo(), "scip", warm_start=True)
    assert warm.status is Status.OPTIMAL
    assert warm.objective == pytest.approx(cold.objective, abs=1e-9)


def test_cvxpy_solver_gets_the_time_its_compilation_left(monkeypatch) -> None:
    """The conic solver's time limit is the limit minus CVXPY's compilation (made 0.3 s
    here) and as much again for its last iteration; the problem is still solved to its
    hand-checked optimum (-5). Before, the whole limit went to the solver after the
    compilation."""
    from cvxpy.reductions.solvers.solving_chain import SolvingChain

    compile0, solve0, seen = cp.Problem.get_problem_data, SolvingChain.solve_via_data, []

    def slow_compile(self, *a, **kw):
        import time

        time.sleep(0.3)
        return compile0(self, *a, **kw)

    def solve_via_data(self, problem, data, warm_start, verbose, solver_opts):
        seen.append(solver_opts["time_limit"])
        return solve0(self, problem, data, warm_start, verbose, solver_opts)

    monkeypatch.setattr(cp.Problem, "get_problem_data", slow_compile)
    monkeypatch.setattr(SolvingChain, "solve_via_data", solve_via_data)
    r = solve(lp_cvxpy(), solver="clarabel", time_limit=10.0)
    assert len(seen) == 1 and 8.5 < seen[0] <= 10.0 - 0.6
    assert r.objective == pytest.approx(-5.0, abs=1e-6)
