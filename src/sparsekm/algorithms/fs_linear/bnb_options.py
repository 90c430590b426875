"""``bnb``'s option groups (:class:`RootSearch`, :class:`NodeRules`) and the tree's summary
(:func:`tree_report`), as L0BnB and Bertsimas, Pauphilet & Van Parys report theirs."""

from __future__ import annotations

from dataclasses import dataclass

from sparsekm import declare
from sparsekm.solvers import Result, relative_gap

from .bnb_heuristics import ROOT_SEARCHES
from .bnb_rules import BRANCHING, NODE_BOUND

__all__ = ["NodeRules", "RootSearch", "tree_report"]


@dataclass(frozen=True)
class RootSearch:
    """The root incumbent of ``bnb``: which heuristic, and its share of the time limit."""

    root_search: str = declare.field(
        "fast", "Root incumbent: fast (the native swap search), local-bnb (Algorithm 1's "
        "restricted problem by this branch and bound), local-search / kernel-search (paper D's "
        "Algorithm 1 / 2 ranked by the root relaxation), or none.", choices=ROOT_SEARCHES)
    heuristic_share: float = declare.field(0.25, "Share of the time limit the root heuristic "
                                           "may use.", gt=0, le=1)
    polish_candidates: int = declare.field(200, "Each new incumbent is polished by fast's "
                                           "swap search with this many outside features "
                                           "(ranked by dual correlation) per step; 0: off.",
                                           ge=0, le=100_000)

    def __post_init__(self) -> None:
        declare.check_fields(self)


@dataclass(frozen=True)
class NodeRules:
    """How ``bnb`` bounds and branches a node."""

    node_bound: str = declare.field("perspective-active", NODE_BOUND)
    extra: int = declare.field(30, "Features beyond the budget in a node relaxation's first "
                               "working set; at most this many enter per round (column "
                               "generation on the node bound's dual).", ge=0, le=100_000)
    branching: str = declare.field("auto", "Branching feature: the relaxed z_j closest "
                                   "to 1/2 (fractional), the largest or the smallest, or "
                                   "strong branching (strong: both children of the "
                                   "strong_candidates most fractional features bounded, the "
                                   "best product of gains; reliability: strong every few "
                                   "levels, the gains inherited between); auto: strong with "
                                   "the active-set node bound (its children are bounded from "
                                   "the node's own state in a few pivots), else fractional.",
                                   choices=BRANCHING)
    strong_candidates: int = declare.field(8, "Features whose two children strong branching "
                                           "bounds at a node.", ge=1, le=10_000)
    defer: float = declare.field(1e-4, "Deferred branching (strong and reliability "
                                 "branching): a node whose own bound rises more than defer x "
                                 "|bound| above the bound it was queued with goes back to the "
                                 "queue once, unbranched (its children are bounded only if "
                                 "the search reaches it again); 0: off.", ge=0, le=1)

    def __post_init__(self) -> None:
        declare.check_fields(self)


def tree_report(res: Result) -> Result:
    """The tree's summary as L0BnB and Bertsimas, Pauphilet & Van Parys report theirs, in
    ``extra``: the root node's bound (with the first incumbent) and its gap to the final
    incumbent (``root_gap``), the share of bounded nodes closed without children (pruned by
    their bound, fixed away, or leaves: ``pruned_fraction``) and nodes per second of the tree
    phase (``nodes_per_s``)."""
    ex = res.extra
    nodes = int(ex.get("nodes", 0))
    root = ex.get("root_node_bound", ex.get("root_bound"))
    if root is not None and res.objective is not None:
        ex["root_node_bound"] = float(root)
        ex["root_gap"] = relative_gap(res.objective, float(root))
    ex["pruned_fraction"] = ex.get("closed_nodes", 0) / nodes if nodes else None
    tree_s = (res.time_s or 0.0) - float(ex.get("root_s") or 0.0)
    ex["nodes_per_s"] = nodes / tree_s if nodes and tree_s > 0 else None
    return res
