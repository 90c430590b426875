"""Strong branching for ``bnb`` (rule ``"strong"``), valid for any node form.

The fractional rule (the relaxed z_j closest to 1/2) is cheap but, as in MIP (Achterberg, Koch
& Martin 2005, "Branching rules revisited"), a poor predictor of how much a branching raises
the bound (the ``gap`` section of ``benchmarks/bench_fs_linear_node_bounds.py`` measures
its children's gains against the best candidate's on a sample of nodes). Strong branching
bounds both children of ``candidates`` features (the most fractional ones, ranked by z closeness to
1/2 then by score) with the node form itself, warm-started from the node, and branches on the
largest product score max(out - b, eps) * max(in - b, eps) (SCIP's product rule). Every child
bound it computes is a certified bound of that child, so the children inherit it (instead of
the node's), and a child at or past the cutoff is pruned on the spot: its feature is fixed
the other way (a strong-branching fixing, into the pruned floor).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sparsekm.algorithms.tree import Outcome
from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.relaxations.fs_linear.node_form import NodeForm, NodeSolution, NodeTask
from sparsekm.solvers import SolverPlan

from .bnb_rules import member

__all__ = ["Strong", "inherited_choice", "strong_branch", "table_data"]

EPS = 1e-6      # the product score's floor on a child gain, relative to |b|


@dataclass
class Strong:
    """The outcome of strong branching at a node: the branching feature (None: every
    candidate was fixed or none is fractional), the children's certified bounds, the features
    fixed in / out by a pruned child, and whether the whole node is pruned."""

    j: int | None = None
    out_bound: float = -np.inf
    in_bound: float = -np.inf
    fix_in: list[int] = field(default_factory=list)
    fix_out: list[int] = field(default_factory=list)
    pruned: bool = False
    table: dict[int, tuple[float, float]] = field(default_factory=dict)


def _candidates(sol: NodeSolution, free: np.ndarray, count: int) -> np.ndarray:
    """Up to ``count`` free features of the working set with fractional z, the most
    fractional first (ties: larger score)."""
    isfree = member(sol.W, free, sol.score.size)
    Wf, vf = sol.W[isfree], sol.v[isfree]
    frac = np.minimum(vf, 1.0 - vf)
    keep = frac > 1e-6
    Wf, frac = Wf[keep], frac[keep]
    order = np.lexsort((-sol.score[Wf], -frac))
    return Wf[order[:count]]


def strong_branch(form: NodeForm, problem: FSLinearProblem, plan: SolverPlan,
                  sol: NodeSolution, task: NodeTask, effort: tuple[int, int], out: Outcome
                  ) -> Strong:
    """Strong branching on ``effort = (count, rounds)``: ``count`` candidates of the node
    ``task`` (already fixed) whose solution is ``sol``, each child bounded with at most
    ``rounds`` working-set rounds (its certificate holds whatever the rounds); b =
    ``sol.bound``, the cutoff ``task.cutoff``. Children are solved with the node's multipliers
    and working set as warm start; pruned children go to ``out.pruned`` and fix their feature;
    solves are counted in ``out.stats``."""
    count, rounds = effort
    res = Strong()
    b, cutoff = sol.bound, task.cutoff
    eps = EPS * max(abs(b), 1e-12)
    best = -np.inf
    cands = _candidates(sol, task.free, count)
    outs, ins, solves = form.probe(problem, plan, sol, task, cands, rounds)
    for j, lo_out, lo_in in zip(cands.tolist(), outs.tolist(), ins.tolist()):
        lo_out, lo_in = max(b, lo_out), max(b, lo_in)
        if lo_out >= cutoff and lo_in >= cutoff:
            out.pruned = min(out.pruned, lo_out, lo_in)
            res.pruned = True
            break
        if lo_out >= cutoff:
            out.pruned = min(out.pruned, lo_out)
            res.fix_in.append(j)
            continue
        if lo_in >= cutoff:
            out.pruned = min(out.pruned, lo_in)
            res.fix_out.append(j)
            continue
        res.table[j] = (lo_out - b, lo_in - b)
        score = max(lo_out - b, eps) * max(lo_in - b, eps)
        if score > best:
            best, res.j, res.out_bound, res.in_bound = score, j, lo_out, lo_in
    out.stats["strong_solves"] = out.stats.get("strong_solves", 0) + solves
    out.stats["strong_fixed"] = out.stats.get("strong_fixed", 0) + len(res.fix_in) + \
        len(res.fix_out)
    return res


def table_data(table: dict[int, tuple[float, float]], drop: int, age: int) -> dict[str, Any]:
    """Strong branching's gains as node data for the children (``drop`` the feature they
    branched on): the pseudo-costs a child reuses instead of branching strongly again."""
    keys = [j for j in table if j != drop]
    return {"pc_j": np.asarray(keys, np.int32),
            "pc_g": np.asarray([table[j] for j in keys], np.float32).reshape(-1, 2),
            "pc_age": np.int32(age)}


def inherited_choice(node: dict[str, Any], sol: NodeSolution, free: np.ndarray,
                     max_age: int) -> tuple[int, dict[str, Any]] | None:
    """Reliability from the ancestors: when the nearest strong branching above this node is
    at most ``max_age`` levels up and one of its features is still fractional and free here,
    branch on the one of largest product of its recorded gains (no solve); None otherwise.
    Returns (j, the table for the children)."""
    keys, gains = node.get("pc_j"), node.get("pc_g")
    age = int(node.get("pc_age", max_age))
    if keys is None or gains is None or keys.size == 0 or age >= max_age:
        return None
    isfree = member(sol.W, free, sol.score.size)
    frac = np.minimum(sol.v, 1.0 - sol.v)
    fractional = set(sol.W[isfree & (frac > 1e-6)].tolist())
    table = {int(j): (float(g[0]), float(g[1])) for j, g in zip(keys, gains)}
    live = [j for j in table if j in fractional]
    if not live:
        return None
    score = {j: max(table[j][0], 1e-12) * max(table[j][1], 1e-12) for j in live}
    j = max(live, key=lambda i: (score[i], -i))
    return j, table_data(table, j, age + 1)
