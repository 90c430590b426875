"""The active-set node engine (``node_bound=perspective-active``, bnb's default): it certifies
the enumerated optimum on 1 and 2 workers, its bounds (stopped or not, its strong-branching
probes included) never exceed a node's enumerated value, it reaches the interior point's
bound with a relaxation duality gap of round-off, and the pairwise cuts it feeds never cut
off a support better than the incumbent."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from fs_linear_instances import INSTANCES, enum_opt, get, prob, random_instance

from sparsekm.algorithms.fs_linear import solve_fs_linear
from sparsekm.algorithms.fs_linear.bnb_pairs import apply_cuts, pair_cuts
from sparsekm.algorithms.svm import solve_svm
from sparsekm.engines.node_active import node_active_set, probe
from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.parallel import Executor
from sparsekm.relaxations.fs_linear.node import solve_node
from sparsekm.relaxations.fs_linear.node_active import (
    ENGINE,
    ActiveSetNode,
    column_norms,
    ksupport_square,
    relaxation_primal,
    scaled_rows,
)
from sparsekm.relaxations.fs_linear.node_form import NodeSolution, NodeTask
from sparsekm.solvers import SolverPlan
from sparsekm.solvers.plan import Deadline

FORM = ActiveSetNode()


def _supports(p: FSLinearProblem, F1: list[int], free: list[int], k: int
              ) -> dict[tuple[int, ...], float]:
    """The objective of (2) on every support of the node (F1 plus k free features: more
    features never raise the SVM's optimum, so these hold the node's optimum)."""
    out = {}
    for extra in itertools.combinations(free, k):
        S = tuple(sorted(F1 + list(extra)))
        out[S] = solve_svm(p.X, p.y, p.C, features=list(S))[2]
    return out


def _node(seed: int, B: int = 4) -> tuple[FSLinearProblem, list[int], list[int], int]:
    """A node of a small instance: one feature fixed in, one out, budget B - 1 left."""
    X, y = get(f"rand{seed % 3}")
    p = FSLinearProblem(X, y, B=B, C=[1.0, 10.0, 0.3][seed % 3])
    rng = np.random.default_rng(seed)
    F1, out = [int(x) for x in rng.choice(p.n, 2, replace=False)]
    free = [j for j in range(p.n) if j not in (F1, out)]
    return p, [F1], free, p.B - 1


@pytest.mark.parametrize("key,B,C", INSTANCES)
def test_the_engine_certifies_the_enumerated_optimum(key: str, B: int, C: float) -> None:
    opt, S, _ = enum_opt(key, B, C)
    res = solve_fs_linear(prob(key, B, C), "bnb", SolverPlan(time_limit=120),
                          root_search="none")
    assert res.status.value == "optimal" and res.extra["open_nodes"] == 0
    assert math.isclose(res.objective, opt, rel_tol=1e-6) and tuple(res.selected) == S
    assert res.bound <= opt * (1 + 1e-9)
    assert res.solver == ENGINE and res.extra["node_bound"] == "perspective-active"


@pytest.fixture(scope="module")
def two_workers():
    ex = Executor(workers=2)
    with ex.session() as pool:
        yield ex, pool


@pytest.mark.parametrize("branching", ["auto", "fractional", "reliability"])
def test_one_and_two_workers_certify_the_same_optimum(branching: str, two_workers) -> None:
    """The default bnb (strong branching from the engine's probes, chunks of nodes per task)
    on 1 and 2 workers: the enumerated optimum, certified; with one batch size the same
    run."""
    key, B, C = "breast_cancer_wisconsin", 3, 0.1
    opt, S, _ = enum_opt(key, B, C)
    runs = [solve_fs_linear(prob(key, B, C), "bnb", SolverPlan(time_limit=120, executor=ex),
                            root_search="none", branching=branching, batch=4)
            for ex in (None, two_workers[0])]
    for res in runs:
        assert res.status.value == "optimal" and tuple(res.selected) == S
        assert math.isclose(res.objective, opt, rel_tol=1e-6)
        assert res.bound <= opt * (1 + 1e-9)
    assert runs[0].extra["workers"] == 1 and runs[1].extra["workers"] == 2
    assert runs[0].extra["nodes"] == runs[1].extra["nodes"] and runs[0].bound == runs[1].bound
    default = solve_fs_linear(prob("rand0", 3, 1.0), "bnb", SolverPlan(
        time_limit=120, executor=two_workers[0]), root_search="none")
    assert default.status.value == "optimal"
    assert math.isclose(default.objective, enum_opt("rand0", 3, 1.0)[0], rel_tol=1e-6)


@pytest.mark.parametrize("seed", range(6))
def test_bounds_never_exceed_the_node_optimum(seed: int) -> None:
    """At the node's optimum of the relaxation (the interior point's bound, the relaxation's
    primal value within round-off), from a random start, stopped after 0, 1 or 3 pivots, at
    an expired clock, and every strong-branching probe: never above the enumerated optimum
    of the node (or of the child). Each probe's last multipliers are feasible, and a child
    solved from them keeps its bound below the child's optimum."""
    p, F1, free, k = _node(seed)
    sup = _supports(p, F1, free, k)
    opt = min(sup.values())
    ipm = solve_node(p, SolverPlan(), np.array(F1), np.array(free), k)
    task = NodeTask(np.array(F1), np.array(free), k, alpha0=ipm.alpha)
    sol = FORM.solve(p, SolverPlan(), task)
    assert sol.bound <= opt * (1 + 1e-9)
    assert sol.bound == pytest.approx(ipm.bound, rel=1e-6)
    assert relaxation_primal(p, task, sol) - sol.bound <= 1e-7 * abs(sol.bound)
    rng = np.random.default_rng(seed)
    Qt = scaled_rows(p)
    node = (np.array(F1, np.int64), np.array(free, np.int64), k)
    for pivots in (0, 1, 3, 2000):
        a0 = rng.uniform(0, p.C, p.m)
        got = node_active_set(Qt, p.y, p.C, node, (a0, np.zeros(0, np.int64)),
                              (np.inf, pivots, 0.8, 30))
        assert got[1] <= opt * (1 + 1e-9)
        assert abs(p.y @ got[0]) <= 1e-9 * p.C * p.m and got[0].min() >= 0
        assert got[0].max() <= p.C
    late = FORM.solve(p, SolverPlan(time_limit=1e-9).with_(deadline=Deadline(1e-9)),
                      NodeTask(np.array(F1), np.array(free), k, alpha0=rng.uniform(
                          0, p.C, p.m)))
    assert late.status == "time limit" and late.bound <= opt * (1 + 1e-9)
    state = sol.info["state"][0]
    outs, ins, _, starts = probe(Qt, p.y, p.C, node, (state, sol.alpha,
                                                     sol.info["state"][1]),
                                 np.array(free, np.int64), (8, 0.8, column_norms(p)))
    for c, (j, b_out, b_in) in enumerate(zip(free, outs, ins)):
        assert b_out <= min(v for S, v in sup.items() if j not in S) * (1 + 1e-9)
        assert b_in <= min(v for S, v in sup.items() if j in S) * (1 + 1e-9)
        for side, F1c in enumerate((F1, F1 + [j])):
            a = starts[side, c]          # the child's warm start: feasible multipliers
            assert a.min() >= 0 and a.max() <= p.C and abs(p.y @ a) <= 1e-9 * p.C * p.m
            rest = np.array([f for f in free if f != j], np.int64)
            if 0 < k - side < rest.size:   # the child solved from it: a valid bound
                got = node_active_set(Qt, p.y, p.C, (np.array(F1c, np.int64), rest, k - side),
                                      (a, np.zeros(0, np.int64)), (np.inf, 500, 0.8, 30))
                best = min(v for S, v in sup.items() if (j in S) == bool(side))
                assert got[1] <= best * (1 + 1e-9)


def test_ksupport_square_is_the_perspective_regulariser() -> None:
    """Omega_k(w) = min over 0 <= v <= 1, sum v <= k of sum w^2 / v: the closed forms at
    both ends, and scipy's SLSQP on v agrees on random vectors."""
    from scipy.optimize import minimize

    w = np.array([3.0, -1.0, 0.5, 0.0])
    assert ksupport_square(w, 4) == pytest.approx(10.25)          # k >= support: ||w||^2
    assert ksupport_square(w, 1) == pytest.approx(4.5 ** 2)        # k = 1: ||w||_1^2
    rng = np.random.default_rng(0)
    for _ in range(4):
        w = rng.standard_normal(6) * rng.uniform(0.1, 2, 6)
        k = int(rng.integers(2, 5))
        res = minimize(lambda v, w=w: np.sum(w ** 2 / v), np.full(6, k / 6),
                       bounds=[(1e-9, 1.0)] * 6, method="SLSQP",
                       constraints=[{"type": "ineq", "fun": lambda v, k=k: k - v.sum()}],
                       options={"ftol": 1e-12, "maxiter": 500})
        assert ksupport_square(w, k) == pytest.approx(res.fun, rel=1e-6)


@pytest.mark.parametrize("seed", range(8))
def test_pairwise_cuts_never_cut_off_a_better_support(seed: int) -> None:
    """Every cut the dual test proves at a node, with the cutoff at 1.01 x the node's
    optimum, holds for every support of the node below the cutoff (enumeration); the
    fixings it forces in a child keep every such support of that child. On the nodes
    whose relaxation is within 2 % of their optimum (seeds 2 and 5) cuts of each kind
    fire."""
    p, F1, free, k = _node(seed, B=5)
    sup = _supports(p, F1, free, k)
    opt = min(sup.values())
    cutoff = 1.01 * opt
    for start in ("optimum", "random"):
        a0 = None if start == "optimum" else np.random.default_rng(seed).uniform(0, p.C, p.m)
        task = NodeTask(np.array(F1), np.array(free), k, alpha0=a0)
        sol = FORM.solve(p, SolverPlan(), task)
        freea = np.array(free)
        cuts = pair_cuts(sol.bound, 0.5 * sol.score[freea], freea, k, cutoff, freea)
        good = [S for S, v in sup.items() if v < cutoff]
        if start == "optimum" and seed in (2, 5):       # nodes near their cutoff: cuts fire
            assert sum(len(v) for v in cuts.values()) >= 5
        for S in good:
            z = {j: j in S for j in free}
            assert all(not (z[a] and z[b]) for a, b in cuts["both_in"])
            assert all(z[a] or z[b] for a, b in cuts["both_out"])
            assert all(z[b] or not z[a] for a, b in cuts["implies"])
        data = {f"cut_{x}": v for x, v in cuts.items()}
        for j in free:
            for side in ("in", "out"):
                fix_in, fix_out = apply_cuts(data, j, side)
                for S in good:
                    if (j in S) == (side == "in"):
                        assert set(fix_in) <= set(S) and not set(fix_out) & set(S)


@pytest.mark.parametrize("seed", range(6))
def test_probes_after_fixings_never_exceed_the_children_optimum(seed: int) -> None:
    """Strong branching after the fixing rule changed the node: the engine's final state,
    restricted to the fixed node (features fixed out inside and outside the working set, one
    fixed in), probes every child; no probe bound exceeds the child's enumerated optimum, and
    the probes ran from the state (no per-child solves)."""
    X, y = random_instance(seed, n=12)
    p = FSLinearProblem(X, y, B=4, C=[1.0, 10.0, 0.3][seed % 3])
    F1, free, k = [seed % 12], [j for j in range(12) if j not in (seed % 12, 11)], 3
    sol = FORM.solve(p, SolverPlan(), NodeTask(np.array(F1), np.array(free), k,
                                               alpha0=np.full(p.m, 0.5 * p.C)))
    W = [int(j) for j in sol.W if j in free]
    outside = [j for j in free if j not in W]
    rng = np.random.default_rng(seed)
    fix_in = int(rng.choice(W))
    fix_out = [int(rng.choice([j for j in W if j != fix_in]))] + outside[:1]
    F1b = F1 + [fix_in]
    freeb = [j for j in free if j != fix_in and j not in fix_out]
    task = NodeTask(np.array(F1b), np.array(freeb), k - 1)
    sup = _supports(p, F1b, freeb, k - 1)
    outs, ins, solves = FORM.probe(p, SolverPlan(), sol, task, np.array(freeb), 2)
    assert solves == 2 * len(freeb) and sol.info["probe_pivots"] > 0
    for j, b_out, b_in in zip(freeb, outs, ins):
        assert b_out <= min(v for S, v in sup.items() if j not in S) * (1 + 1e-9)
        assert b_in <= min(v for S, v in sup.items() if j in S) * (1 + 1e-9)


def test_probe_pivots_option_certifies_and_is_refused_elsewhere() -> None:
    """``--option probe_pivots=N`` (the active-set node bound's own option): one pivot per
    child still certifies the enumerated optimum; the interior point's node bound refuses
    it."""
    key, B, C = "rand2", 4, 0.5
    opt, S, _ = enum_opt(key, B, C)
    res = solve_fs_linear(prob(key, B, C), "bnb", SolverPlan(time_limit=120),
                          root_search="none", probe_pivots=1)
    assert res.status.value == "optimal" and tuple(res.selected) == S
    assert math.isclose(res.objective, opt, rel_tol=1e-6) and res.bound <= opt * (1 + 1e-9)
    with pytest.raises(ValueError, match="takes no option 'probe_pivots'"):
        solve_fs_linear(prob(key, B, C), "bnb", SolverPlan(time_limit=120),
                        node_bound="perspective", probe_pivots=1)


@pytest.mark.parametrize("seed", [5, 14, 18, 22, 24, 25, 27, 38])
def test_optimal_means_a_zero_relaxation_gap_from_the_probes_starts(seed: int) -> None:
    """Every child of a node solved from its probe's last multipliers: when the engine says
    OPTIMAL, the relaxation's primal value at its multipliers (an upper bound on the node's
    relaxation) is within 1e-6 of its bound, and the node form's bound (the interior point's
    fallback when the engine stalls) equals the interior point's. These seeds' children were
    called OPTIMAL 2-200 % below their value while frozen ties drifted across the threshold,
    and cycled once the threshold crossed zero."""
    p, F1, free, k = _node(seed)
    Qt = scaled_rows(p)
    ipm = solve_node(p, SolverPlan(), np.array(F1), np.array(free), k)
    sol = FORM.solve(p, SolverPlan(), NodeTask(np.array(F1), np.array(free), k,
                                               alpha0=ipm.alpha))
    node = (np.array(F1, np.int64), np.array(free, np.int64), k)
    starts = probe(Qt, p.y, p.C, node, (sol.info["state"][0], sol.alpha, sol.info["state"][1]),
                   np.array(free, np.int64), (8, 0.8, column_norms(p)))[3]
    for c, j in enumerate(free):
        rest = np.array([f for f in free if f != j], np.int64)
        task = NodeTask(np.array(F1), rest, k, alpha0=starts[0, c])
        got = node_active_set(Qt, p.y, p.C, (node[0], rest, k), (starts[0, c],
                                                                 np.zeros(0, np.int64)),
                              (np.inf, 2000, 0.8, 30))
        if got[2] == 0:
            held = NodeSolution(float(got[1]), got[0], None, got[6], got[5], 1, "optimal",
                                None, {})
            assert relaxation_primal(p, task, held) - got[1] <= 1e-6 * max(1.0, abs(got[1]))
        ref = solve_node(p, SolverPlan(), np.array(F1), rest, k).bound
        assert FORM.solve(p, SolverPlan(), task).bound == pytest.approx(ref, rel=1e-6)


@pytest.mark.parametrize("key,B,C", INSTANCES)
def test_the_relaxation_derives_optimal_from_its_primal_value(key: str, B: int, C: float
                                                             ) -> None:
    """The registry's ``perspective-active`` relaxation: its objective is the relaxation's
    primal value, at least its bound and within round-off of it, and the bound is the
    interior point's (a second solver of the same relaxation)."""
    from sparsekm.relaxations.fs_linear.node_active import perspective_active

    p = prob(key, B, C)
    res = perspective_active(p, SolverPlan())
    ipm = solve_node(p, SolverPlan(), np.zeros(0, np.int64), np.arange(p.n), p.B)
    assert res.status.value == "optimal" and res.bound <= res.objective
    assert res.objective - res.bound <= 1e-7 * abs(res.bound)
    assert res.bound == pytest.approx(ipm.bound, rel=1e-6)


def test_the_warm_up_loads_strong_branchings_probes() -> None:
    """Set-up's warm-up (``make install``) reaches the probes and the restricted state, which
    every ``bnb`` tree on wide data runs: else a fresh machine's first tree compiles them in
    each worker inside its time limit. Checked in a fresh process."""
    import json
    import subprocess
    import sys

    code = """
import json, sys
from sparsekm.registry import get, load_compiled
load_compiled(get("fs-linear", "relaxation", "perspective-active"))
P = sys.modules["sparsekm.engines.node_active.probe"]
print(json.dumps({n: len(getattr(P, n).signatures) for n in ("probe", "restrict")}))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {"probe": 1, "restrict": 1}
