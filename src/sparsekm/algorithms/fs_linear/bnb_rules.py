"""How ``bnb`` uses a node bound: the node form chosen by name, fixing, branching, rounding.

The node bound is a plug-in (:mod:`sparsekm.relaxations.fs_linear.node_form`): any relaxation
registered with a node form (:func:`sparsekm.registry.with_node_form`) is a choice of
``bnb``'s option
``node_bound``; this module turns a node's :class:`NodeSolution` into the search's moves with
rules that hold for every form: fixing from the form's own child bounds (none when it declares
no fixing rule), branching on its relaxed selection z, rounding by its scores.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sparsekm import registry
from sparsekm.algorithms.tree import Outcome
from sparsekm.declare import ParamError, Spec
from sparsekm.relaxations.fs_linear.node_form import NodeForm, NodeSolution, NodeTask, member

__all__ = ["BRANCHING", "NODE_BOUND", "branch_feature", "branching_rule", "defers", "member",
           "node_form", "rounded", "screen"]

BRANCHING = ("auto", "fractional", "largest", "smallest", "strong", "reliability")
PROBLEM = "fs-linear"


def _node_bound_names() -> tuple[str, ...]:
    return registry.node_bound_names(PROBLEM)


def _node_bound_help() -> str:
    return registry.node_bound_help(PROBLEM)


def defers(rule: str, defer: float, b: float, queued: float) -> bool:
    """Deferred branching (the strong and reliability rules, whose children cost more than
    the node's own solve): a node whose own bound ``b`` rose more than ``defer`` x |b| above
    the bound it was queued with (its parent's probe of it) goes back to the queue once,
    unbranched; its strong branching runs only if the search reaches it again (the "lazy"
    node evaluation of branch and bound)."""
    return (defer > 0 and rule in ("strong", "reliability")
            and b - queued > defer * max(abs(b), 1e-12))


def branching_rule(rule: str, fast: bool) -> str:
    """``"auto"``: strong branching when the node form is ``fast`` (its children bounded
    from the node's own state in a few pivots: the active-set engine), else the fractional
    rule; any other rule as given."""
    if rule != "auto":
        return rule
    return "strong" if fast else "fractional"


def node_form_params() -> dict[str, Any]:
    """The options of every node form of (2): ``bnb`` takes them (``--option NAME=VALUE``)."""
    return registry.node_form_params(PROBLEM)


NODE_BOUND = Spec(_node_bound_help, choices=_node_bound_names)


def node_form(name: str, options: dict[str, Any] | None = None) -> tuple[str, NodeForm, str]:
    """(canonical name, node form with ``options`` set, citation) of the relaxation ``name``
    (or alias); an option the chosen form does not declare is a ParamError naming the node
    bounds that do."""
    entry = registry.get(PROBLEM, "relaxation", name)
    if entry.node is None:
        raise ValueError(f"relaxation {entry.name!r} has no node form; choose one of "
                         f"{', '.join(_node_bound_names())}")
    try:
        form = entry.node.configured(**(options or {}))
    except ValueError as exc:
        opt = str(exc)
        takers = [e.name for e in registry.node_bounds(PROBLEM) if opt in e.node.options()]
        raise ParamError(opt, (options or {}).get(opt),
                         f"node bound {entry.name} takes no option {opt!r}; node bounds "
                         f"that do: {', '.join(takers) or 'none'} (choose one as the node "
                         "bound with it)") from None
    return entry.name, form, entry.citation


def screen(form: NodeForm, sol: NodeSolution, task: NodeTask, cutoff: float, out: Outcome
           ) -> tuple[list[int], np.ndarray, int] | None:
    """Fix the free features whose one-feature child is pruned by the form's fixing rule.

    j is fixed in when the child "j out" has a bound >= ``cutoff``, out when "j in" has; the
    pruned children go to ``out.pruned``. Returns (F1, free, k) after fixing, or None when the
    whole node is pruned (some j with both children pruned, or more features fixed in than the
    budget left). A form without a rule fixes nothing."""
    F1, free, k = [int(j) for j in task.F1], task.free, task.k
    bounds = form.child_bounds(sol, task)
    if bounds is None:
        return F1, free, k
    out_child, in_child = bounds
    fix_in, fix_out = out_child >= cutoff, in_child >= cutoff
    both = fix_in & fix_out
    if both.any() or fix_in.sum() > k:
        pool = np.concatenate([np.minimum(out_child, in_child)[both], out_child[fix_in]])
        out.pruned = min(out.pruned, float(pool.min()))
        return None
    if fix_in.any():
        out.pruned = min(out.pruned, float(out_child[fix_in].min()))
    if fix_out.any():
        out.pruned = min(out.pruned, float(in_child[fix_out].min()))
    out.stats["fixed_in"] = out.stats.get("fixed_in", 0) + int(fix_in.sum())
    out.stats["fixed_out"] = out.stats.get("fixed_out", 0) + int(fix_out.sum())
    F1 = F1 + [int(j) for j in free[fix_in]]
    return F1, free[~(fix_in | fix_out)], k - int(fix_in.sum())


def branch_feature(sol: NodeSolution, free: np.ndarray, rule: str) -> int | None:
    """A free feature of the working set with fractional relaxed z_j: the one closest to 1/2
    (``"fractional"``), the largest or the smallest z_j; None if the relaxation is integral."""
    isfree = member(sol.W, free, sol.score.size)
    if not isfree.any():
        return None
    Wf, vf = sol.W[isfree], sol.v[isfree]
    frac = np.minimum(vf, 1.0 - vf)
    if frac.max() <= 1e-6:
        return None
    score = frac if rule == "fractional" else np.where(frac > 1e-6, vf if rule == "largest"
                                                       else 1.0 - vf, -1.0)
    return int(Wf[int(np.argmax(score))])


def integral_branch(sol: NodeSolution, free: np.ndarray) -> int:
    """Branching feature of an integral relaxation (its support was evaluated): the selected
    free feature of least score, else the first free one."""
    inside = set(free.tolist())
    fin = [int(i) for i in sol.W[sol.v > 0.5] if i in inside]
    return min(fin, key=lambda i: sol.score[i]) if fin else int(free[0])


def rounded(sol: NodeSolution, free: np.ndarray, k: int) -> list[int]:
    """The rounding heuristic's k free features: the relaxed selection (z_j > 1/2) by z, then
    the free features of largest score."""
    sel = sol.W[sol.v > 0.5]
    rank = sel[np.argsort(-(sol.v[sol.v > 0.5] + 1e-9 * sol.score[sel]), kind="stable")]
    sf = sol.score[free]
    if free.size > 2 * k:            # only the 2k largest scores can be needed, in order
        top = np.argpartition(-sf, 2 * k)[:2 * k]
        top = top[np.lexsort((top, -sf[top]))]             # by score, ties by position
        if sf[top[-1]] <= -np.partition(-sf, 2 * k)[2 * k]:  # a tie at the cut: full sort
            top = np.argsort(-sf, kind="stable")[:2 * k]
    else:
        top = np.argsort(-sf, kind="stable")
    pad = free[top]
    return list(dict.fromkeys([int(j) for j in rank] + [int(j) for j in pad]))[:k]


def as_data(sol: NodeSolution, n: int) -> dict[str, Any]:
    """A root solution as plain data (v and score on all features) for a checkpoint stage."""
    v = np.zeros(n)
    v[sol.W] = sol.v
    return {"bound": np.float64(sol.bound), "alpha": sol.alpha, "score": sol.score, "v": v,
            "W_next": sol.W_next, "solves": np.int64(sol.solves)}
