"""The node form of a relaxation of FS-SVM (2): what a branch and bound needs to bound a node.

A node of paper D's problem (2) fixes features ``F1`` in (z_j = 1), leaves ``free`` features
undecided with ``k`` of the budget B left, and drops the rest (z_j = 0). A relaxation
declares its *node form* with the decorator :func:`sparsekm.registry.with_node_form` below
``register``; the registry's :func:`~sparsekm.registry.node_bounds` lists them, and ``bnb``'s option
``node_bound`` picks one. As in SCIP's relaxator plug-ins (``SCIPincludeRelax``: a relaxator
solves its relaxation at a node and hands back a lower bound, a relaxation solution for
branching and, optionally, domain reductions), a node form supplies:

* :meth:`NodeForm.solve`: the node bound as a :class:`NodeSolution`: the bound, *certified*
  (valid whatever the solver's accuracy: a weak-duality value at feasible multipliers), the
  relaxed selection z on a working set (for branching and rounding), a score per feature
  (for ranking), and what the search may reuse in the children (``reuse``: the multipliers
  as a warm start, the working set);
* :meth:`NodeForm.child_bounds` (optional): the fixing rule valid for it: certified bounds of
  the one-feature children (j fixed out, j fixed in) at the node's multipliers, with which
  the search fixes features (reduced-cost fixing); ``None``: no fixing;
* :meth:`NodeForm.prepare` (optional): per-search data from the root (plain arrays, kept in
  the checkpoint and shipped once to each worker), e.g. DSCoMP's multipliers behind its big-M.

A node form must be picklable (it travels to the worker processes): a module-level class.
A node form with options is a frozen dataclass whose fields are declared
(``factor: float = declare.field(1.0, "...", gt=0)``): ``bnb`` takes them by name
(``--option factor=2``, :func:`sparsekm.registry.node_form_params`) for the node bound that
declares them, and refuses them for one that does not.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.solvers import SolverPlan

__all__ = ["NATIVE_NODE", "NodeForm", "NodeSolution", "NodeTask", "column_generation", "member",
           "feasible_alpha", "layer_solver", "top_k_child_bounds", "top_sum"]

REUSES = ("multipliers", "working_set")
MAX_ROUNDS = 25     # column-generation rounds per node (each one restricted conic solve)

Certify = Callable[[np.ndarray], tuple[float, np.ndarray, np.ndarray]]
Restricted = Callable[[np.ndarray, "np.ndarray | None", "np.ndarray | None"],
                      tuple["np.ndarray | None", "np.ndarray | None", str]]


@dataclass
class NodeTask:
    """One node to bound: ``F1`` fixed in, ``free`` undecided, ``k`` of the budget left
    (0 < k < |free|); the incumbent value ``ub`` (a form may derive valid bounds on w from
    it: only supports better than ``ub`` matter), ``cutoff`` (the solve may stop once its
    bound reaches it), the parent's working set ``W0`` and multipliers ``alpha0`` (a warm
    start), ``extra`` (working-set slack) and the per-search ``context`` of
    :meth:`NodeForm.prepare`."""

    F1: np.ndarray
    free: np.ndarray
    k: int
    ub: float = math.inf
    cutoff: float = math.inf
    W0: np.ndarray | None = None
    alpha0: np.ndarray | None = None
    extra: int = 30
    context: dict[str, Any] = field(default_factory=dict)
    rounds: int = MAX_ROUNDS

    @classmethod
    def root(cls, problem: FSLinearProblem, **kw: Any) -> NodeTask:
        """The root node: nothing fixed, all features free, budget B."""
        return cls(np.zeros(0, int), np.arange(problem.n), problem.B, **kw)


@dataclass
class NodeSolution:
    """A certified node bound and what the search reuses.

    ``bound``: certified (weak duality at the feasible ``alpha``); ``score``: per feature (n
    values), how much selecting it is worth at ``alpha`` (the perspective: s_j^2), for ranking;
    ``v``: the relaxed selection z on the working set ``W`` (1 in, 0 out); ``W_next``: the
    working set the children start from; ``solves``: conic solves; ``info``: the form's own
    data for :meth:`NodeForm.child_bounds` (e.g. DSCoMP's intervals).
    """

    bound: float
    alpha: np.ndarray
    score: np.ndarray
    v: np.ndarray
    W: np.ndarray
    solves: int
    status: str
    W_next: np.ndarray | None = None
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def s2(self) -> np.ndarray:
        """The score under its perspective name s_j(alpha)^2."""
        return self.score


class NodeForm:
    """Base class of a node form (see the module docstring). Subclasses set ``paper`` /
    ``ref`` (the equation the node bound relaxes), ``reuse`` (what children inherit:
    ``"multipliers"``, ``"working_set"``) and implement :meth:`solve`; :meth:`child_bounds`
    and :meth:`prepare` are optional."""

    ref: str = ""
    reuse: tuple[str, ...] = REUSES
    pairs: bool = False     # bnb may test pairwise cuts on 0.5 * score (the perspective's phi)

    def options(self) -> dict[str, Any]:
        """The options the form declares (its declared dataclass fields), by name."""
        import dataclasses

        from sparsekm.declare import params_of

        return params_of(type(self)) if dataclasses.is_dataclass(self) else {}

    def configured(self, **options: Any) -> NodeForm:
        """This form with ``options`` set (each checked by its declaration); ValueError for
        an option it does not declare."""
        import dataclasses

        declared = self.options()
        unknown = sorted(set(options) - set(declared))
        if unknown:
            raise ValueError(unknown[0])
        if not options:
            return self
        return dataclasses.replace(self, **{k: declared[k].check(v)  # type: ignore[type-var]
                                            for k, v in options.items()})

    def solver_name(self, problem: FSLinearProblem, plan: SolverPlan) -> str:
        """The node solver, named in the result: the plan's relaxation solver, else the one
        the solver layer picks for the form's SOCP."""
        return plan.relax_solver or layer_solver("SOCP")

    def fast(self, problem: FSLinearProblem, plan: SolverPlan) -> bool:
        """True when a node costs about a millisecond and :meth:`probe` bounds children
        from the node's own state: the search then sends several nodes per task, rounds
        less often and branches strongly by default (``branching="auto"``)."""
        return False

    def prepare(self, problem: FSLinearProblem, plan: SolverPlan, ub: float
                ) -> dict[str, np.ndarray]:
        """Per-search data computed once at the root (plain arrays), given the first
        incumbent value ``ub``; passed to every :meth:`solve` as ``task.context``."""
        return {}

    def solve(self, problem: FSLinearProblem, plan: SolverPlan, task: NodeTask
              ) -> NodeSolution:
        """The node's certified bound (see :class:`NodeSolution`)."""
        raise NotImplementedError

    def child_bounds(self, sol: NodeSolution, task: NodeTask
                     ) -> tuple[np.ndarray, np.ndarray] | None:
        """(bound of the child j fixed out, bound of the child j fixed in) for each j of
        ``task.free``, each certified at ``sol.alpha``; None when the form has no fixing rule."""
        return None

    def probe(self, problem: FSLinearProblem, plan: SolverPlan, sol: NodeSolution,
              task: NodeTask, cands: np.ndarray, rounds: int
              ) -> tuple[np.ndarray, np.ndarray, int]:
        """Strong branching's child bounds: for each j of ``cands`` (free at ``task``, whose
        solution is ``sol``) the certified bounds of "j out" and "j in", each child solved
        from the node's multipliers and working set with at most ``rounds`` rounds; a leaf
        child (budget 0, or no more free features than budget) gets ``sol.bound``. Returns
        (out bounds, in bounds, solves)."""
        outs, ins = np.full(cands.size, sol.bound), np.full(cands.size, sol.bound)
        solves = 0
        for c, j in enumerate(cands.tolist()):
            rest = task.free[task.free != j]
            for side, (F1, kk) in enumerate(((task.F1, task.k),
                                            (np.append(task.F1, j), task.k - 1))):
                if kk == 0 or rest.size <= kk:
                    continue
                child = NodeTask(F1, rest, kk, ub=task.ub, cutoff=task.cutoff,
                                 W0=sol.W_next, alpha0=sol.alpha, extra=task.extra,
                                 context=task.context, rounds=rounds)
                csol = self.solve(problem, plan, child)
                solves += csol.solves
                (ins if side else outs)[c] = csol.bound
        return outs, ins, solves


def member(values: np.ndarray, pool: np.ndarray, n: int) -> np.ndarray:
    """Which of ``values`` (features in [0, n)) are in ``pool``: a mask, O(n) (np.isin
    sorts both)."""
    mask = np.zeros(n, bool)
    mask[pool] = True
    return mask[values]


NATIVE_NODE = "sparsekm node-ipm"   # the dense interior point of the node duals (engines)


def layer_solver(problem_class: str) -> str:
    """The solver the solver layer picks for a matrix model (ConicQP) of ``problem_class``
    when none is named (the configured one, else the first capable installed)."""
    from sparsekm.solvers import ProblemClass, SolverError, resolve_solver

    try:
        return resolve_solver(ProblemClass(problem_class), "matrix", None)
    except SolverError:
        return "none installed"


def feasible_alpha(problem: FSLinearProblem, alpha: np.ndarray) -> np.ndarray:
    """``alpha`` clipped to [0, C] and scaled down on the heavier class so that y'alpha = 0
    (the engine's projection, :func:`sparsekm.engines.smo.feasible_alpha`)."""
    from sparsekm.engines.smo import feasible_alpha as project

    return project(np.asarray(alpha, dtype=float).ravel(), problem.y, problem.C)


def top_sum(values: np.ndarray, k: int) -> float:
    """Sum of the ``k`` largest entries (all of them when k >= size; 0 for k <= 0)."""
    if k <= 0 or values.size == 0:
        return 0.0
    if k >= values.size:
        return float(values.sum())
    return float(np.partition(values, values.size - k)[values.size - k:].sum())


def top_k_child_bounds(bound: float, phi: np.ndarray, k: int
                       ) -> tuple[np.ndarray, np.ndarray]:
    """Fixing rule of a bound g = c(alpha) - sum_{F1} phi_j - (sum of the k largest phi_j over
    the free features), phi >= 0 (the perspective: phi = s^2 / 2; DSCoMP: its Huber terms).

    At the same alpha, the child "j out" loses j from the free set and the child "j in" moves
    j to F1 with k - 1 left; for j among the k largest, out = g + phi_j - phi_(k+1), in = g;
    for the others, out = g, in = g + phi_(k) - phi_j. Both are certificates of the children
    (the same weak-duality argument as g), so each is a valid child bound. O(size) (two
    order statistics by selection); a feature tied with phi_(k) = phi_(k+1) gets g either
    way, so which tied ones count as the k largest does not matter."""
    nf = phi.size
    if k >= nf:
        return np.full(nf, bound), np.full(nf, bound)
    part = np.partition(phi, (nf - k - 1, nf - k))
    pk, pk1 = part[nf - k], part[nf - k - 1]
    top = phi >= pk if pk > pk1 else phi > pk
    out_child = np.where(top, bound + (phi - pk1), bound)
    in_child = np.where(top, bound, bound + (pk - phi))
    return out_child, in_child


def _pad(task: NodeTask, W: np.ndarray, score: np.ndarray, target: int) -> np.ndarray:
    """``W`` padded with the free features of largest ``score`` outside it, to ``target``."""
    inW = np.zeros(score.size, bool)
    inW[W] = True
    cand = task.free[~inW[task.free]]
    return np.concatenate([W, cand[np.argsort(-score[cand], kind="stable")][:target - W.size]])


def column_generation(problem: FSLinearProblem, task: NodeTask, certify: Certify,
                      restricted: Restricted, rows: tuple[np.ndarray, Callable] | None = None,
                      label: str | None = None, expired: Callable[[], bool] | None = None
                      ) -> NodeSolution:
    """Maximise a top-k separable node bound by column generation; every iterate certified.

    ``certify(alpha)`` -> (bound at the feasible alpha nearest, that alpha, score per feature)
    holds on all free features; ``restricted(W, start, R)`` -> (alpha, v on W, status)
    maximises it over the working set W (and the samples R, None: all). W starts as the
    parent's ``task.W0`` (restricted to ``free``) padded with the free features of largest
    score at ``task.alpha0`` (or a uniform feasible alpha), to |W| >= k + ``extra``. After each
    solve, free features outside W whose score exceeds the k-th largest inside W enter (at
    most ``extra`` per round); the loop stops when none does (then alpha is optimal for the
    whole node up to the solver's tolerance: no support outside W does better at alpha), when
    the bound exceeds ``task.cutoff`` (the node is pruned) or after ``task.rounds``. ``rows =
    (R, violated)``: a sample working set and ``violated(alpha, W, v, R)``, the samples to add
    (row generation). ``expired()`` true: the time limit is reached; no further round starts,
    and when none has completed the bound is the weak-duality value at the start multipliers
    (still certified, ``solves = 0``). Needs 0 < k < |free|.
    """
    free, k, extra = task.free, task.k, task.extra
    if not 0 < k < free.size:
        raise ValueError(f"a node bound needs 0 < k={k} < |free|={free.size}")
    n = problem.n
    in_free = np.zeros(n, bool)
    in_free[free] = True
    W0 = task.W0
    W = np.zeros(0, int) if W0 is None else np.asarray(W0, int)[in_free[np.asarray(W0, int)]]
    target = min(free.size, k + extra)
    start = task.alpha0
    a0 = feasible_alpha(problem, np.full(problem.m, problem.C / 2) if start is None else start)
    if W.size < target:
        W = _pad(task, W, certify(a0)[2], target)
    R, violated = (None, None) if rows is None else rows
    best: NodeSolution | None = None
    status = "no solution"
    for rnd in range(1, max(task.rounds, 1) + 1):
        if expired is not None and expired():
            status = "time limit"
            break
        alpha, v, status = restricted(W, start, R)
        if alpha is None or v is None:
            break
        val, a, score = certify(alpha)
        start = a
        sW = score[W]
        kk = min(k, W.size)
        thr = float(np.partition(sW, W.size - kk)[W.size - kk])
        if best is None or val > best.bound:
            best = NodeSolution(val, a, score, v, W.copy(), rnd, status)
        best.solves = rnd
        if val > task.cutoff:
            break
        inW = np.zeros(n, bool)
        inW[W] = True
        out = free[~inW[free]]
        viol = out[score[out] > thr * (1 + 1e-9) + 1e-300]
        new_rows = np.zeros(0, int) if R is None else violated(a, W, v, R)
        if new_rows.size:
            R = np.union1d(R, new_rows)
        if viol.size == 0 and new_rows.size == 0:
            break
        W = np.concatenate([W, viol[np.argsort(-score[viol], kind="stable")][:extra]])
    if best is None and status == "time limit":    # weak duality at the start: still a bound
        val, a, score = certify(a0)
        best = NodeSolution(val, a, score, np.zeros(W.size), W.copy(), 0, status)
    if best is None:
        raise RuntimeError(f"the node relaxation failed ({status}) with solver "
                           f"{label or 'default'}; try another --relax-solver")
    # the children start from the features the relaxation uses plus the k + extra best scores
    keep = best.W[best.v > 1e-6]
    top = free[np.argsort(-best.score[free], kind="stable")[:min(free.size, k + extra)]]
    best.status, best.W_next = status, np.union1d(keep, top)
    return best
