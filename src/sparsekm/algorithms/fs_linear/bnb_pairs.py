"""Pairwise screening cuts for ``bnb``: the node fixing rule's dual test on pairs of features.

At a node with multipliers alpha, bound g = c - sum_{F1} phi_j - (sum of the k largest phi_j
over the free features), phi_j = s_j(alpha)^2 / 2 (the perspective's node dual; any feasible
alpha), the children that fix two free features j, l have certificates at the same alpha
(the single-feature rule of :func:`~sparsekm.relaxations.fs_linear.node_form.
top_k_child_bounds`, applied twice). With phi_(1) >= phi_(2) >= ... the free values in order
and "top" the k largest:

* j, l both in, neither top: g + phi_(k) + phi_(k-1) - phi_j - phi_l;
* j, l both out, both top: g + phi_j + phi_l - phi_(k+1) - phi_(k+2);
* j out (top), l in (not top): g + phi_j - phi_l.

A pair whose child reaches the cutoff holds no support better than the incumbent: the cut
z_j + z_l <= 1, z_j + z_l >= 1, or z_l <= z_j holds in the whole subtree (the cutoff only
falls). These are the pairwise screening tests of Atamtürk & Gómez ("Safe screening rules
for L0-regression", ICML 2020) and Tan & Wang (2025, screening cut generation) for this
node dual. ``bnb`` keeps them in the node data and applies them when it branches: the child
"j in" fixes out every l with z_j + z_l <= 1 and fixes in every l with z_j <= z_l's
converse, the child "j out" fixes in every l with z_j + z_l >= 1 and out every l with
z_l <= z_j. Pairs are tested among ``limit`` candidates (the most fractional and the
strongest free features), so a node spends O(limit^2).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["PAIR_LIMIT", "apply_cuts", "merge", "pair_cuts", "split"]

PAIR_LIMIT = 40       # candidates tested pairwise at a node (O(PAIR_LIMIT^2))
KEEP = 400            # cuts of each kind a node hands its children at most


def pair_cuts(bound: float, phi: np.ndarray, free: np.ndarray, k: int, cutoff: float,
              candidates: np.ndarray) -> dict[str, np.ndarray]:
    """The pairs among ``candidates`` (free features) proved by the dual test (module
    docstring), as (p, 2) int arrays: ``both_in`` (z_j + z_l <= 1), ``both_out``
    (z_j + z_l >= 1), ``implies`` (row (l, j): z_l <= z_j, "l in" forces "j in")."""
    empty = np.zeros((0, 2), np.int32)
    nf = phi.size
    if k < 2 or k + 2 > nf or not np.isfinite(cutoff):
        return {"both_in": empty, "both_out": empty, "implies": empty}
    part = np.partition(phi, (nf - k - 2, nf - k - 1, nf - k, nf - k + 1))
    pk1, pk, pk_1 = part[nf - k - 1], part[nf - k], part[nf - k + 1]
    pk2 = part[nf - k - 2]
    pos = np.searchsorted(free, candidates)
    ph = phi[pos]
    top = ph >= pk if pk > pk1 else ph > pk
    need = cutoff - bound
    lo = np.sort(ph[~top])[:2]                      # the largest gain any pair can have
    hi = np.sort(ph[top])[-2:]
    best = max(pk + pk_1 - lo.sum() if lo.size == 2 else -np.inf,
               hi.sum() - pk1 - pk2 if hi.size == 2 else -np.inf,
               hi[-1] - lo[0] if lo.size and hi.size else -np.inf)
    if best < need:
        return {"both_in": empty, "both_out": empty, "implies": empty}
    j, l = np.triu_indices(candidates.size, 1)
    cj, cl = candidates[j], candidates[l]
    tj, tl, pj, pl = top[j], top[l], ph[j], ph[l]
    both_in = ~tj & ~tl & (pk + pk_1 - pj - pl >= need)
    both_out = tj & tl & (pj + pl - pk1 - pk2 >= need)
    out_in = tj & ~tl & (pj - pl >= need)          # j out, l in: impossible
    in_out = ~tj & tl & (pl - pj >= need)          # l out, j in: impossible
    return {"both_in": np.stack([cj[both_in], cl[both_in]], 1).astype(np.int32),
            "both_out": np.stack([cj[both_out], cl[both_out]], 1).astype(np.int32),
            "implies": np.concatenate([np.stack([cl[out_in], cj[out_in]], 1),
                                       np.stack([cj[in_out], cl[in_out]], 1)]
                                      ).astype(np.int32)}


def merge(old: dict[str, Any], new: dict[str, np.ndarray], free: np.ndarray
          ) -> dict[str, np.ndarray]:
    """Inherited cuts plus this node's, restricted to pairs of features still free, at most
    KEEP of each kind (the newest first)."""
    if all(v.size == 0 for v in new.values()) and not any(
            np.size(old.get(f"cut_{x}", ())) for x in ("both_in", "both_out", "implies")):
        return {}
    out = {}
    alive = np.zeros(int(free.max()) + 1 if free.size else 1, bool)
    alive[free] = True
    for kind in ("both_in", "both_out", "implies"):
        parts = [new[kind]]
        got = old.get(f"cut_{kind}")
        if got is not None and got.size:
            parts.append(np.asarray(got, np.int32).reshape(-1, 2))
        pairs = np.concatenate(parts) if parts else np.zeros((0, 2), np.int32)
        ok = (pairs < alive.size).all(axis=1)
        pairs = pairs[ok]
        pairs = pairs[alive[pairs[:, 0]] & alive[pairs[:, 1]]]
        out[f"cut_{kind}"] = np.unique(pairs, axis=0)[:KEEP] if pairs.size else \
            np.zeros((0, 2), np.int32)
    return out


def apply_cuts(cuts: dict[str, np.ndarray], j: int, side: str
               ) -> tuple[np.ndarray, np.ndarray]:
    """(fix in, fix out) forced in the child that fixes j ``side`` ("in" or "out")."""
    both_in, both_out, implies = (np.asarray(cuts.get(f"cut_{x}", np.zeros((0, 2))),
                                             np.int64).reshape(-1, 2)
                                  for x in ("both_in", "both_out", "implies"))

    def partners(pairs: np.ndarray) -> np.ndarray:
        return np.concatenate([pairs[pairs[:, 0] == j, 1], pairs[pairs[:, 1] == j, 0]])

    if side == "in":              # z_j = 1: partners of both_in out; implies (j, x): x in
        return implies[implies[:, 0] == j, 1], partners(both_in)
    # z_j = 0: partners of both_out in; implies (x, j): x out
    return partners(both_out), implies[implies[:, 1] == j, 0]


def split(cuts: dict[str, np.ndarray], node: tuple[list[int], np.ndarray, int], j: int
          ) -> tuple[list[tuple[list[int], np.ndarray, int] | None], int]:
    """The two children (j in, j out) of ``node = (F1, free, k)`` (j free) with the fixings
    the cuts force; None for a child the cuts leave empty (a feature forced both ways, or
    more fixed in than its budget). Returns (children, features fixed by the cuts)."""
    F1, free, k = node
    rest = free[free != j]
    kids: list[tuple[list[int], np.ndarray, int] | None] = []
    fixed = 0
    for side, F1c, kc in (("in", F1 + [j], k - 1), ("out", F1, k)):
        fin, fout = apply_cuts(cuts, j, side) if cuts else ((), ())
        if len(fin) == 0 and len(fout) == 0:
            kids.append((F1c, rest, kc))
            continue
        mask = np.zeros(int(max(rest.max(initial=0), *fin, *fout)) + 1, np.int8)
        mask[rest] = 1
        fin = [int(x) for x in fin if mask[x] == 1]
        fout = [int(x) for x in fout if mask[x] == 1]
        if set(fin) & set(fout) or len(fin) > kc:
            kids.append(None)
            continue
        fixed += len(fin) + len(fout)
        mask[fin] = 0
        mask[fout] = 0
        kids.append((F1c + fin, rest[mask[rest] == 1], kc - len(fin)))
    return kids, fixed
