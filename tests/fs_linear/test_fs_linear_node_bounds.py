"""Node bounds as plug-ins of ``bnb``: every registered node form (read from the registry, no
hand list) certifies the enumerated optimum (1 and 2 workers), its certificates never exceed
a node's enumerated optimum, DSCoMP (14) is at least the perspective (Theorem 3.5, node by
node) and agrees with Clarabel, the box node form equals the registered BoxMP (8), the
incumbent's intervals hold every better support's w, and a relaxation registered inside a
test becomes bnb's node bound, its own options reachable by name, with no edit elsewhere."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pytest
from fs_linear_instances import INSTANCES, enum_opt, get, prob

from sparsekm import declare, registry
from sparsekm.algorithms.fs_linear import solve_fs_linear
from sparsekm.algorithms.svm import solve_svm
from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.parallel import Executor
from sparsekm.relaxations.fs_linear.node import PerspectiveNode, node_certificate, solve_node
from sparsekm.relaxations.fs_linear.node_bigm import bigm_certificate, incumbent_intervals
from sparsekm.relaxations.fs_linear.node_box import BoxNode, box_node_certificate
from sparsekm.relaxations.fs_linear.node_dscomp import DSCoMPNode
from sparsekm.relaxations.fs_linear.node_form import NodeForm, NodeTask
from sparsekm.solvers import SolverPlan

FORMS = {e.name: e.node for e in registry.node_bounds("fs-linear")}
BOUNDS = tuple(FORMS)


def _node_supports(p: FSLinearProblem, F1: list[int], free: list[int], k: int
                   ) -> list[tuple[float, np.ndarray, tuple[int, ...]]]:
    """(objective, w, support) of every support of the node, by the QP solver."""
    out = []
    for extra in itertools.combinations(free, k):
        S = tuple(F1) + extra
        w, _, obj = solve_svm(p.X, p.y, p.C, features=list(S))
        out.append((obj, w, S))
    return out


def _node(seed: int) -> tuple[FSLinearProblem, list[int], list[int], int]:
    X, y = get(f"rand{seed}")
    p = FSLinearProblem(X, y, B=4, C=1.0)
    F1, out = [seed % 3], [5]
    free = [j for j in range(p.n) if j not in F1 + out]
    return p, F1, free, p.B - 1


def test_the_shipped_bounds_are_registered_node_forms_and_the_help_reads_them() -> None:
    names = registry.node_bound_names("fs-linear")
    assert {"perspective", "perspective-dual", "perspective-active", "dscomp",
            "box"} <= set(names)
    assert {type(f) for f in FORMS.values()} >= {PerspectiveNode, DSCoMPNode, BoxNode}
    bnb = registry.get("fs-linear", "method", "bnb").params["node_bound"]
    assert bnb.default == "perspective-active" and bnb.check("dscomp") == "dscomp"
    with pytest.raises(ValueError, match="choose one of .*dscomp"):
        bnb.check("dscop")                      # a relaxation without a node form
    for e in registry.node_bounds("fs-linear"):  # the help is the registry's
        assert f"{e.name}" in bnb.help and e.citation in bnb.help


@pytest.mark.parametrize("bound", BOUNDS)
@pytest.mark.parametrize("key,B,C", INSTANCES)
def test_every_node_bound_certifies_the_enumerated_optimum(bound: str, key: str, B: int,
                                                           C: float) -> None:
    opt, S, _ = enum_opt(key, B, C)
    res = solve_fs_linear(prob(key, B, C), "bnb", SolverPlan(time_limit=120),
                          root_search="none", node_bound=bound)
    assert res.status.value == "optimal" and res.extra["open_nodes"] == 0
    assert math.isclose(res.objective, opt, rel_tol=1e-6) and tuple(res.selected) == S
    assert res.bound <= opt * (1 + 1e-9)
    assert res.extra["node_bound"] == registry.get("fs-linear", "relaxation", bound).name


@pytest.fixture(scope="module")
def two_workers():
    ex = Executor(workers=2)
    with ex.session() as pool:
        yield ex, pool


@pytest.mark.parametrize("bound", BOUNDS)
def test_one_and_two_workers_grow_the_same_tree(bound: str, two_workers) -> None:
    """With batch 2 the 1- and 2-worker runs are the same run: same nodes, same optimum."""
    key, B, C = "breast_cancer_wisconsin", 3, 0.1
    opt, S, _ = enum_opt(key, B, C)
    one = solve_fs_linear(prob(key, B, C), "bnb", SolverPlan(time_limit=120),
                          root_search="none", node_bound=bound, batch=2)
    two = solve_fs_linear(prob(key, B, C), "bnb",
                          SolverPlan(time_limit=120, executor=two_workers[0]),
                          root_search="none", node_bound=bound, batch=2)
    for res in (one, two):
        assert res.status.value == "optimal" and tuple(res.selected) == S
        assert math.isclose(res.objective, opt, rel_tol=1e-6)
        assert res.bound <= opt * (1 + 1e-9)
    assert one.extra["workers"] == 1 and two.extra["workers"] == 2
    assert one.extra["nodes"] == two.extra["nodes"] and one.bound == two.bound


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("bound", BOUNDS)
def test_certificates_never_exceed_the_node_optimum(bound: str, seed: int) -> None:
    """Weak duality at random multipliers and at the solved ones, with the incumbent's
    intervals drawn for UB = 1.02 x the node optimum; and each fixing-rule child bound is at
    most the child's enumerated optimum."""
    p, F1, free, k = _node(seed)
    sup = _node_supports(p, F1, free, k)
    opt = min(s[0] for s in sup)
    form = FORMS[bound]
    ctx = form.prepare(p, SolverPlan(), math.inf)
    task = NodeTask(np.array(F1), np.array(free), k, ub=1.02 * opt, context=ctx,
                    alpha0=ctx.get("alpha_root"))
    sol = form.solve(p, SolverPlan(), task)
    assert sol.bound <= opt * (1 + 1e-9) and sol.bound > 0.5 * opt
    rng = np.random.default_rng(seed)
    if isinstance(form, DSCoMPNode | BoxNode):
        box = incumbent_intervals(p, task, (ctx["alpha_root"],))
        for _ in range(5):
            a = rng.uniform(0, p.C, p.m)
            val = bigm_certificate(p, a, task, *box)[0] if isinstance(form, DSCoMPNode) else \
                box_node_certificate(p, a, task, box)[0]
            assert val <= opt * (1 + 1e-12)
    kids = form.child_bounds(sol, task)
    if kids is None:                            # a form without a fixing rule
        return
    for i, j in enumerate(free):
        out_opt = min([s[0] for s in sup if j not in s[2]], default=math.inf)
        in_opt = min([s[0] for s in sup if j in s[2]], default=math.inf)
        # a child bound counts only for the supports better than the UB the intervals used
        assert kids[0][i] <= max(out_opt, task.ub) * (1 + 1e-9)
        assert kids[1][i] <= max(in_opt, task.ub) * (1 + 1e-9)


@pytest.mark.parametrize("name", BOUNDS)
def test_node_bound_at_an_expired_clock_is_still_certified(name: str) -> None:
    """A node whose time is up (the tree hands the form its task's deadline): the form makes
    no conic solve and returns the weak-duality bound at the start multipliers (the parent's),
    which is still at most the node's enumerated optimum, and so are its children's bounds."""
    from sparsekm.relaxations.fs_linear.node import node_certificate
    from sparsekm.relaxations.fs_linear.node_form import feasible_alpha
    from sparsekm.solvers.plan import Deadline

    p, F1, free, k = _node(0)
    sup = _node_supports(p, F1, free, k)
    opt = min(s[0] for s in sup)
    form = FORMS[name]
    ctx = form.prepare(p, SolverPlan(), math.inf)
    root = solve_node(p, SolverPlan(), np.zeros(0, int), np.arange(p.n), p.B)
    task = NodeTask(np.array(F1), np.array(free), k, ub=1.02 * opt, context=ctx,
                    alpha0=root.alpha)
    done = SolverPlan(time_limit=1e-9).with_(deadline=Deadline(1e-9))
    sol = form.solve(p, done, task)
    assert sol.solves == 0 and sol.status == "time limit"
    assert sol.bound <= opt * (1 + 1e-9)
    box = incumbent_intervals(p, task, (ctx.get("alpha_root"), task.alpha0))
    a0 = feasible_alpha(p, task.alpha0)
    expected = {PerspectiveNode: lambda: node_certificate(p, a0, task.F1, task.free, k)[0],
                DSCoMPNode: lambda: bigm_certificate(p, a0, task, *box)[0],
                BoxNode: lambda: box_node_certificate(p, task.alpha0, task, box)[0]}.get(
                    type(form))
    if expected is not None:
        assert sol.bound == pytest.approx(expected(), rel=1e-12)
    kids = form.child_bounds(sol, task)
    for i, j in enumerate(free if kids is not None else []):
        out_opt = min([s[0] for s in sup if j not in s[2]], default=math.inf)
        in_opt = min([s[0] for s in sup if j in s[2]], default=math.inf)
        assert kids[0][i] <= max(out_opt, task.ub) * (1 + 1e-9)
        assert kids[1][i] <= max(in_opt, task.ub) * (1 + 1e-9)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_incumbent_intervals_hold_every_better_support(seed: int) -> None:
    """The lemma of node_bigm: every support of the node with objective <= UB has its w_j
    inside [lo_j, hi_j]; and the intervals shrink as UB nears the node's optimum."""
    p, F1, free, k = _node(seed)
    sup = _node_supports(p, F1, free, k)
    opt = min(s[0] for s in sup)
    root = solve_node(p, SolverPlan(), np.zeros(0, int), np.arange(p.n), p.B)
    widths = []
    for ub in (1.3 * opt, 1.05 * opt, 1.0001 * opt):
        task = NodeTask(np.array(F1), np.array(free), k, ub=ub)
        lo, hi = incumbent_intervals(p, task, (root.alpha,))
        assert (lo <= 0).all() and (hi >= 0).all()
        for obj, w, S in sup:
            if obj <= ub:
                assert (w[list(S)] >= lo[list(S)] - 1e-7).all()
                assert (w[list(S)] <= hi[list(S)] + 1e-7).all()
        widths.append(float((hi - lo)[free].sum()))
    assert widths[0] >= widths[1] >= widths[2] and widths[2] < widths[0]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_dscomp_is_at_least_the_perspective_and_agrees_with_clarabel(seed: int) -> None:
    """Theorem 3.5 of paper D at a node: DSCoMP >= DSCoP; its native interior point and
    Clarabel on the dual SOCP give the same bound."""
    p, F1, free, k = _node(seed)
    form = DSCoMPNode()
    ctx = form.prepare(p, SolverPlan(), math.inf)
    opt = min(s[0] for s in _node_supports(p, F1, free, k))
    task = NodeTask(np.array(F1), np.array(free), k, ub=1.001 * opt, context=ctx)
    native = form.solve(p, SolverPlan(), task)
    clarabel = form.solve(p, SolverPlan(relax_solver="clarabel"), task)
    persp = PerspectiveNode().solve(p, SolverPlan(), task)
    assert native.bound >= persp.bound - 1e-7 * abs(persp.bound)
    assert math.isclose(native.bound, clarabel.bound, rel_tol=1e-6)
    assert native.bound <= opt * (1 + 1e-9)


def test_box_node_form_equals_the_registered_box_relaxation() -> None:
    """At the root with one M for every feature the node form's QP, its certificate and the
    registered BoxMP (8) (a CVXPY model) agree."""
    from sparsekm.relaxations.fs_linear.box import build_box
    from sparsekm.relaxations.fs_linear.common import solve_relaxed
    from sparsekm.relaxations.fs_linear.node_box import node_box_qp
    from sparsekm.solvers import solve

    X, y = get("rand1")
    p = FSLinearProblem(X, y, B=3, C=1.0, cardinality="le")
    M = 1.5
    box = (np.full(p.n, -M), np.full(p.n, M))
    task = NodeTask.root(p, ub=1e9)
    res = solve(node_box_qp(p, task, np.arange(p.n), box))
    cert = box_node_certificate(p, np.asarray(res.raw.z)[:p.m], task, box)[0]
    ref = solve_relaxed(p, build_box(p, M), SolverPlan(), "(8)")
    assert math.isclose(res.objective, ref.objective, rel_tol=1e-7)
    assert math.isclose(cert, ref.objective, rel_tol=1e-7)


class LoosePerspective(NodeForm):
    """A relaxation new to the toolkit: the perspective bound with the budget loosened by one
    (every support of the node is a support of the looser node: a valid, weaker bound), with
    no fixing rule."""

    ref = "test: (13) with k + 1"

    def solve(self, problem, plan, task):
        k = min(task.k + 1, task.free.size - 1)
        return solve_node(problem, plan, task.F1, task.free, k, warm=(task.W0, task.alpha0),
                          ub=task.cutoff, extra=task.extra)


def register_node_bound(monkeypatch, name: str, form: NodeForm, ref: str) -> None:
    """Register, for this test only, a relaxation ``name`` whose node form is ``form``."""
    monkeypatch.setattr(registry, "_ENTRIES", dict(registry._ENTRIES))

    @registry.register("fs-linear", "relaxation", name, paper="test", ref=ref)
    @registry.with_node_form(form)
    def relaxation(problem, plan):
        """A test relaxation: the bound of its node form at the root."""
        return solve_fs_linear(problem, "bnb", plan, node_limit=1)


def test_a_relaxation_registered_here_becomes_the_node_bound(monkeypatch) -> None:
    """Registered inside this test (no other edit): bnb takes it by name from the Python
    front door, the CLI and the estimators, certifies the enumerated optimum, and the choice
    reaches the result and the checkpoint's parameters."""
    import json

    from typer.testing import CliRunner

    from sparsekm.algorithms.fs_linear.bnb import LinearTree
    from sparsekm.algorithms.tree import fingerprint
    from sparsekm.cli.app import app

    register_node_bound(monkeypatch, "loose-perspective", LoosePerspective(),
                        "(13) with the budget plus one")
    assert "loose-perspective" in registry.node_bound_names("fs-linear")
    key, B, C = "wholesale", 3, 1.0
    opt, S, _ = enum_opt(key, B, C)
    res = solve_fs_linear(prob(key, B, C), "bnb", SolverPlan(time_limit=120),
                          root_search="none", node_bound="loose-perspective")
    base = solve_fs_linear(prob(key, B, C), "bnb", SolverPlan(time_limit=120),
                           root_search="none")
    assert res.status.value == "optimal" and tuple(res.selected) == S
    assert res.bound <= opt * (1 + 1e-9) and res.extra["node_bound"] == "loose-perspective"
    assert res.extra.get("fixed_in", 0) == res.extra.get("fixed_out", 0) == 0   # no rule
    assert res.extra["nodes"] >= base.extra["nodes"]          # a weaker bound, a larger tree
    cli = CliRunner().invoke(app, ["solve", "fs-linear", "--data", key, "--B", str(B),
                                   "--C", str(C), "--method", "bnb", "--option",
                                   "node_bound=loose-perspective", "--option",
                                   "root_search=none", "--json"])
    assert cli.exit_code == 0, cli.output
    out = json.loads(cli.stdout)
    assert out["params"]["node_bound"] == "loose-perspective" and out["status"] == "optimal"
    assert out["node_bound"] == "loose-perspective"
    tree = [LinearTree(prob(key, B, C), SolverPlan(), node_bound=b)
            for b in ("loose-perspective", "perspective", "perspective-dual")]
    fps = [fingerprint(t) for t in tree]
    assert fps[0] != fps[1] and fps[1] == fps[2]     # an alias is the same node bound


@dataclass(frozen=True)
class ScaledPerspective(NodeForm):
    """A node form with an option of its own: the perspective bound times ``factor`` <= 1 (a
    valid, weaker bound: (2)'s objective is >= 0), with no fixing rule."""

    factor: float = declare.field(1.0, "Scale of the perspective bound (<= 1: still a lower "
                                  "bound).", gt=0, le=1)
    ref = "test: factor x (13)"

    def solve(self, problem, plan, task):
        sol = solve_node(problem, plan, task.F1, task.free, task.k,
                         warm=(task.W0, task.alpha0), ub=task.cutoff, extra=task.extra)
        sol.bound *= self.factor
        return sol


def test_a_node_forms_own_options_reach_bnb(monkeypatch) -> None:
    """A node form registered here declares ``factor``: bnb takes ``-o factor=0.5`` with it
    (Python, CLI), certifies the enumerated optimum with a larger tree, keeps the option in
    its checkpoint key; the option is refused in one line for a node bound that does not
    declare it, and out of its declared range."""
    import json

    from typer.testing import CliRunner

    from sparsekm.algorithms.fs_linear.bnb import LinearTree
    from sparsekm.algorithms.tree import fingerprint
    from sparsekm.cli.app import app

    def refused(*args: str) -> str:
        res = CliRunner().invoke(app, list(args))
        assert res.exit_code == 2 and res.stdout == "", res.output
        assert len(res.stderr.strip().splitlines()) == 1, res.stderr
        return res.stderr

    register_node_bound(monkeypatch, "scaled-perspective", ScaledPerspective(),
                        "factor x (13)")
    assert "factor" in registry.get("fs-linear", "method", "bnb").params
    key, B, C = "wholesale", 3, 1.0
    opt, S, _ = enum_opt(key, B, C)
    half = solve_fs_linear(prob(key, B, C), "bnb", SolverPlan(time_limit=120),
                           root_search="none", node_bound="scaled-perspective", factor=0.5)
    full = solve_fs_linear(prob(key, B, C), "bnb", SolverPlan(time_limit=120),
                           root_search="none", node_bound="scaled-perspective")
    for res in (half, full):
        assert res.status.value == "optimal" and tuple(res.selected) == S
        assert res.bound <= opt * (1 + 1e-9)
    assert half.extra["nodes"] > full.extra["nodes"]
    flags = ["solve", "fs-linear", "--data", key, "--B", str(B), "--C", str(C), "--method",
             "bnb", "-o", "root_search=none"]
    cli = CliRunner().invoke(app, [*flags, "-o", "node_bound=scaled-perspective", "-o",
                                   "factor=0.5", "--json"])
    assert cli.exit_code == 0, cli.output
    out = json.loads(cli.stdout)
    assert out["params"]["factor"] == 0.5 and out["status"] == "optimal"
    line = refused(*flags, "-o", "factor=0.5")
    assert "--option factor=0.5" in line and "node bound perspective-active takes no option " \
        "'factor'; node bounds that do: scaled-perspective" in line
    assert "--option factor=2" in refused(*flags, "-o", "node_bound=scaled-perspective",
                                          "-o", "factor=2")
    trees = [LinearTree(prob(key, B, C), SolverPlan(), node_bound="scaled-perspective",
                        node_options=o) for o in ({"factor": 0.5}, {"factor": 0.25})]
    assert fingerprint(trees[0]) != fingerprint(trees[1])


def test_estimator_and_local_bnb_pass_the_node_bound_on(monkeypatch) -> None:
    """The estimators take node_bound (method_options); the local-bnb root search's
    sub-search runs with the same node bound as the search it serves."""
    from sparsekm.algorithms.fs_linear import bnb as bnb_module
    from sparsekm.estimators import CardinalityLinearSVC

    seen: list[str] = []
    init = bnb_module.LinearTree.__post_init__

    def spy(self) -> None:
        init(self)
        seen.append(self.node_bound)

    monkeypatch.setattr(bnb_module.LinearTree, "__post_init__", spy)
    X, y = get("rand0")
    est = CardinalityLinearSVC(B=3, C=1.0, method="bnb",
                               method_options={"node_bound": "dscomp",
                                               "root_search": "local-bnb"}).fit(X, y)
    opt, S, _ = enum_opt("rand0", 3, 1.0)
    assert math.isclose(est.objective_, opt, rel_tol=1e-6)
    assert len(seen) >= 2 and set(seen) == {"dscomp"}


@pytest.mark.parametrize("branching", ["strong", "reliability"])
@pytest.mark.parametrize("bound", BOUNDS)
@pytest.mark.parametrize("key,B,C", [("rand0", 3, 1.0), ("breast_cancer_wisconsin", 3, 0.1)])
def test_strong_and_reliability_branching_certify(branching: str, bound: str, key: str,
                                                  B: int, C: float) -> None:
    """Strong branching's child bounds and fixings, and the reliability rule's inherited
    gains, keep the certificate: the enumerated optimum; strong branching with fewer nodes
    than the fractional rule on these instances."""
    opt, S, _ = enum_opt(key, B, C)
    res = solve_fs_linear(prob(key, B, C), "bnb", SolverPlan(time_limit=120),
                          root_search="none", node_bound=bound, branching=branching)
    frac = solve_fs_linear(prob(key, B, C), "bnb", SolverPlan(time_limit=120),
                           root_search="none", node_bound=bound)
    assert res.status.value == "optimal" and tuple(res.selected) == S
    assert res.bound <= opt * (1 + 1e-9) and res.extra["strong_solves"] > 0
    if branching == "strong":
        assert res.extra["nodes"] <= frac.extra["nodes"]


def test_reliability_on_two_workers_is_the_same_run(two_workers) -> None:
    key, B, C = "breast_cancer_wisconsin", 3, 0.1
    kw = dict(root_search="none", branching="reliability", batch=2)
    one = solve_fs_linear(prob(key, B, C), "bnb", SolverPlan(time_limit=120), **kw)
    two = solve_fs_linear(prob(key, B, C), "bnb",
                          SolverPlan(time_limit=120, executor=two_workers[0]), **kw)
    assert one.extra["nodes"] == two.extra["nodes"] and one.bound == two.bound
    assert one.selected == two.selected == list(enum_opt(key, B, C)[1])


def test_the_tree_report_and_bound_trace() -> None:
    """L0BnB-style summary in the JSON: root node bound and gap, pruned fraction, nodes/s,
    and the bound trace (seconds, LB, UB, nodes) ending at the result's bound."""
    key, B, C = "rand0", 3, 1.0
    res = solve_fs_linear(prob(key, B, C), "bnb", SolverPlan(time_limit=120),
                          root_search="none")
    ex = res.extra
    assert ex["root_node_bound"] <= res.bound + 1e-12
    assert math.isclose(ex["root_gap"], (res.objective - ex["root_node_bound"])
                        / res.objective, rel_tol=1e-9)
    assert 0 < ex["pruned_fraction"] <= 1 and ex["nodes_per_s"] > 0
    tr = ex["bound_trace"]
    assert tr[-1][1] == pytest.approx(res.bound) and tr[-1][2] == pytest.approx(res.objective)
    assert tr[-1][3] == ex["nodes"] and all(a[0] <= b[0] for a, b in zip(tr, tr[1:]))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_dual_point_cuts_never_beat_the_perspective_node_bound(seed: int) -> None:
    """The proposition of the node-bounds guide ("Why no cut from dual points can help"): at a
    node, the LP over objective cuts theta >= L(z, alpha^k) (outer approximation) is at most
    the perspective bound P(N), and the perspective's own relaxed selection z* satisfies every
    feasibility cut L(z, alpha^k) <= UB once UB > P(N). Dual points: the SVM (1) duals of
    every support of the node and random feasible points."""
    from scipy.optimize import linprog

    from sparsekm.engines.linear_svm import solve_linear_svm
    from sparsekm.relaxations.fs_linear.node_form import feasible_alpha

    p, F1, free, k = _node(seed)
    nb = solve_node(p, SolverPlan(), np.array(F1), np.array(free), k)
    P = nb.bound
    alphas = [solve_linear_svm(p.X[:, list(S)], p.y, p.C).alpha
              for _, _, S in _node_supports(p, F1, free, k)]
    rng = np.random.default_rng(seed)
    alphas += [rng.uniform(0.0, p.C, p.m) for _ in range(20)]
    alphas = [feasible_alpha(p, a) for a in alphas]
    G = np.array([(p.X.T @ (a * p.y)) ** 2 for a in alphas])      # g_j(alpha^k)
    c = np.array([a.sum() for a in alphas])
    # min theta over (z, theta): theta >= c_k - 1/2 G_k z, z in conv N (F1 = 1, free sum k)
    nz = p.n
    obj = np.r_[np.zeros(nz), 1.0]
    A_ub = np.c_[-0.5 * G, -np.ones(len(alphas))]
    bounds = [(1.0, 1.0) if j in F1 else (0.0, 1.0) if j in free else (0.0, 0.0)
              for j in range(nz)] + [(None, None)]
    A_eq = np.r_[[1.0 if j in free else 0.0 for j in range(nz)], 0.0][None, :]
    lp = linprog(obj, A_ub=A_ub, b_ub=-c, A_eq=A_eq, b_eq=[k], bounds=bounds, method="highs")
    assert lp.status == 0
    best_single = max(node_certificate(p, a, np.array(F1), np.array(free), k)[0]
                      for a in alphas)
    assert best_single - 1e-9 <= lp.fun <= P + 1e-7 * max(1.0, abs(P))
    # the relaxed selection z* of the node satisfies every feasibility cut above P(N)
    z = np.zeros(nz)
    z[F1] = 1.0
    z[nb.W] = np.maximum(z[nb.W], nb.v)
    Lz = c - 0.5 * G @ z
    assert Lz.max() <= P + 1e-6 * max(1.0, abs(P))
