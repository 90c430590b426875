"""Canonical masked kernels: every kernel of Paper A's searches has one reproducible recipe.

Paper A, Section 2.2: ``K_beta = f(S_beta)`` with the aggregate ``S_beta = sum_{j in beta}
g_j`` of per-feature terms. Floating-point sums depend on their order, so an incrementally
updated aggregate (:class:`sparsekm.kernels.MaskedKernel`) gives a kernel whose last bits
depend on the masks visited before. The local searches instead build every kernel from a
*recipe* ``(base mask, added features, removed features)``: the base aggregate is summed
from scratch in feature order (:func:`aggregate`), the changes are applied entry by entry
(:func:`sparsekm.engines.smo.masked_rows.masked_matrix`). A recipe therefore fixes the kernel
bit for bit, whatever happened before -- which is what lets the fast searches re-create, much
later, exactly the kernel (and libsvm's exact answer) that the plain search used at a mask's
first visit. A 1-swap neighbour costs one O(m^2) pass, like ``MaskedKernel.with_swap``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sparsekm.engines.smo import (
    MASKED_POLY,
    MASKED_RBF,
    masked_matrix,
    stack_columns,
)
from sparsekm.models.fs_kernel import FSKernelProblem

__all__ = ["Recipe", "RecipeKernels", "aggregate", "changes", "changes_many", "mask_key",
           "unpack"]

Recipe = tuple[bytes, tuple[int, ...], tuple[int, ...]]  # (packed base mask, added, removed)


@njit(cache=True, nogil=True)
def aggregate(XT, idx, poly, S):
    """``S = sum_{j in idx} g_j`` in the order of ``idx`` (``g_j = x_j x_j'`` or squared
    differences), one fixed rounding order."""
    m = S.shape[0]
    for i in range(m):
        for h in range(m):
            S[i, h] = 0.0
    for t in range(idx.shape[0]):
        x = XT[idx[t]]
        for i in range(m):
            a = x[i]
            if poly:
                for h in range(m):
                    S[i, h] += a * x[h]
            else:
                for h in range(m):
                    d = a - x[h]
                    S[i, h] += d * d


class RecipeKernels:
    """Kernels of ``problem`` from recipes; ``kpar(n_add, n_rem)`` for the SMO row kinds."""

    def __init__(self, problem: FSKernelProblem) -> None:
        p = problem
        self.m, self.n = p.m, p.n
        self.XT = np.ascontiguousarray(p.X.T, dtype=np.float64)
        self.poly = p.kernel == "poly"
        self.kind = MASKED_POLY if self.poly else MASKED_RBF
        self.scale = p.gamma if self.poly else -p.gamma
        self.shift = p.coef0 if self.poly else 0.0
        self.degree = p.degree if self.poly else 1
        self._S: dict[bytes, np.ndarray] = {}  # small LRU of base aggregates

    def kpar(self, n_add: int, n_rem: int) -> np.ndarray:
        return np.array([self.kind, self.scale, self.degree, self.shift, n_add, n_rem],
                        dtype=np.float64)

    def base(self, key: bytes, mask: np.ndarray | None = None) -> np.ndarray:
        """The canonical aggregate of a base mask (kept for the last few bases)."""
        S = self._S.pop(key, None)
        if S is None:
            if mask is None:
                mask = unpack(key, self.n)
            S = np.empty((self.m, self.m))
            aggregate(self.XT, np.flatnonzero(mask).astype(np.int64), self.poly, S)
            if len(self._S) >= 4:
                self._S.pop(next(iter(self._S)))
        self._S[key] = S
        return S

    def matrix(self, recipe: Recipe) -> np.ndarray:
        """``K`` of a recipe (a new array)."""
        key, add, rem = recipe
        S = self.base(key)
        cols, na, nr = stack_columns(self.XT, np.asarray(add), np.asarray(rem))
        K = np.empty((self.m, self.m))
        masked_matrix(S, cols, self.kpar(na, nr), K)
        if not self.poly:
            np.exp(K, out=K)
        return K


def mask_key(beta: np.ndarray) -> bytes:
    """Hashable key of a mask (the inverse of :func:`unpack`)."""
    return np.packbits(beta).tobytes()


def unpack(key: bytes, n: int) -> np.ndarray:
    """The boolean mask of a packed key."""
    return np.unpackbits(np.frombuffer(key, dtype=np.uint8))[:n].astype(bool)


def changes(mask: np.ndarray, base: np.ndarray) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(added, removed) feature indices turning ``base`` into ``mask`` (ascending)."""
    return (tuple(np.flatnonzero(mask & ~base).tolist()),
            tuple(np.flatnonzero(base & ~mask).tolist()))




def changes_many(masks: np.ndarray, base: np.ndarray
                 ) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """:func:`changes` of every row of ``masks`` (one pass over the whole batch)."""
    out = []
    parts = []
    for diff in (masks & ~base, base & ~masks):
        r, c = np.nonzero(diff)
        cuts = np.searchsorted(r, np.arange(masks.shape[0] + 1)).tolist()
        parts.append((c.tolist(), cuts))
    (ca, ka), (cr, kr) = parts
    for i in range(masks.shape[0]):
        out.append((tuple(ca[ka[i]:ka[i + 1]]), tuple(cr[kr[i]:kr[i + 1]])))
    return out
