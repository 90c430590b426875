"""Kernel access for the SMO engine: a precomputed matrix, or rows on demand in an LRU cache.

:meth:`KernelSource.from_matrix` wraps an (m, m) kernel matrix. :meth:`KernelSource.from_data`
takes the training rows and a :class:`~sparsekm.kernels.KernelSpec`; it precomputes the matrix
when it fits in ``cache_mb`` and otherwise computes rows when the solver asks for them,
keeping at most ``cache_mb`` megabytes of them (least recently used evicted first). With
magic (m = 19,020) the full matrix would take 2.9 GB; the row cache stays within its budget.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .rows import LAPLACIAN, LINEAR, POLY, RBF, SIGMOID

__all__ = ["KernelSource"]

_KINDS = {"linear": LINEAR, "poly": POLY, "rbf": RBF, "laplacian": LAPLACIAN,
          "sigmoid": SIGMOID, "anisotropic_rbf": RBF}
_EMPTY2 = np.empty((0, 0))


class KernelSource:
    """Rows of a training kernel matrix for the SMO engine.

    Build it with :meth:`from_matrix` or :meth:`from_data`. Attributes: ``m`` (rows),
    ``diag`` (K_ii), ``precomputed`` (True when the whole matrix is held), ``K`` (that
    matrix or None), ``spec`` and ``X`` (row mode), ``cache_rows`` (slots of the row cache).
    :attr:`stats` counts rows computed and requested (row mode).
    """

    def __init__(self, K: np.ndarray | None, X: np.ndarray | None, spec: Any,
                 cache_rows: int) -> None:
        self.K = K
        self.X = X
        self.spec = spec
        self.precomputed = K is not None
        if K is not None:
            self.m = int(K.shape[0])
            self.diag = np.ascontiguousarray(np.diagonal(K), dtype=np.float64)
            self.cache_rows = 0
            self._tuple = (K, _EMPTY2, np.empty(0), np.zeros(4), _EMPTY2,
                           np.empty(0, np.int64), np.empty(0, np.int64),
                           np.empty(0, np.int64), np.zeros(3, np.int64))
            return
        assert X is not None and spec is not None
        self.m = int(X.shape[0])
        Xs, kpar = _row_inputs(X, spec)
        sq = np.einsum("ij,ij->i", Xs, Xs)
        self.diag = _diagonal(X, spec)
        self.cache_rows = int(min(max(cache_rows, 2), self.m))
        self._tuple = (_EMPTY2, Xs, sq, kpar, np.zeros((self.cache_rows, self.m)),
                       np.full(self.m, -1, np.int64), np.full(self.cache_rows, -1, np.int64),
                       np.zeros(self.cache_rows, np.int64), np.zeros(3, np.int64))

    @classmethod
    def from_matrix(cls, K: Any) -> KernelSource:
        """A precomputed (m, m) kernel matrix (float64, C order; not copied when already so)."""
        Ka = np.ascontiguousarray(K, dtype=np.float64)
        if Ka.ndim != 2 or Ka.shape[0] != Ka.shape[1] or Ka.shape[0] < 2:
            raise ValueError(f"K must be a square (m, m) kernel matrix with m >= 2, got shape "
                             f"{Ka.shape}; build it with sparsekm.kernels.kernel_matrix(X)")
        return cls(Ka, None, None, 0)

    @classmethod
    def from_data(cls, X: Any, spec: Any = None, cache_mb: float = 1024.0,
                  precompute: str | bool = "auto") -> KernelSource:
        """Rows of ``spec(X)`` (a :class:`~sparsekm.kernels.KernelSpec`, default rbf).

        ``precompute``: True (build the matrix), False (rows on demand, at most ``cache_mb``
        MB of them) or ``"auto"`` (the matrix when its m^2 * 8 bytes fit in ``cache_mb``).
        """
        from sparsekm.kernels import KernelSpec

        spec = spec if spec is not None else KernelSpec("rbf")
        if isinstance(spec, str):
            spec = KernelSpec(spec)
        Xa = np.ascontiguousarray(X, dtype=np.float64)
        if Xa.ndim != 2 or Xa.shape[0] < 2 or not np.all(np.isfinite(Xa)):
            raise ValueError(f"X must be a finite 2-D array with at least 2 rows, got shape "
                             f"{Xa.shape}")
        if not (isinstance(cache_mb, int | float) and cache_mb > 0):
            raise ValueError(f"cache_mb must be a positive number of megabytes, got {cache_mb!r}")
        m = Xa.shape[0]
        if precompute not in (True, False, "auto"):
            raise ValueError(f"precompute must be True, False or 'auto', got {precompute!r}")
        if precompute is True or (precompute == "auto" and m * m * 8 <= cache_mb * 2**20):
            from sparsekm.kernels import gram_by_blocks

            return cls.from_matrix(gram_by_blocks(spec, Xa))
        rows = int(cache_mb * 2**20 // (8 * m))
        return cls(None, Xa, spec, rows)

    def numba_args(self) -> tuple:
        """The tuple ``ks`` of :mod:`.engine`."""
        return self._tuple

    @property
    def stats(self) -> dict[str, int]:
        """Rows computed and requested so far (row mode; zeros for a precomputed matrix)."""
        cnt = self._tuple[-1]
        return {"rows_computed": int(cnt[1]), "rows_requested": int(cnt[2])}

    @property
    def nbytes(self) -> int:
        """Bytes held for kernel values (the matrix, or the row cache)."""
        return int(self.K.nbytes if self.K is not None else self._tuple[4].nbytes)

    def matvec(self, v: np.ndarray, block_mb: float = 64.0) -> np.ndarray:
        """``K @ v`` (row mode: by blocks of rows of at most ``block_mb`` MB)."""
        v = np.asarray(v, dtype=np.float64)
        if self.K is not None:
            return self.K @ v
        assert self.X is not None
        out = np.empty(self.m)
        step = max(1, int(block_mb * 2**20 // (8 * self.m)))
        for s in range(0, self.m, step):
            out[s:s + step] = self.spec(self.X[s:s + step], self.X) @ v
        return out

    def rows(self, idx: Any) -> np.ndarray:
        """The rows ``K[idx, :]`` (computed in row mode, not cached)."""
        idx = np.atleast_1d(np.asarray(idx, dtype=np.intp))
        if self.K is not None:
            return self.K[idx]
        assert self.X is not None
        return self.spec(self.X[idx], self.X)


def _row_inputs(X: np.ndarray, spec: Any) -> tuple[np.ndarray, np.ndarray]:
    """(X as the row kernel sees it, kpar): anisotropic rbf becomes rbf on sqrt(w)-scaled X."""
    name = spec.name
    if name not in _KINDS:
        raise ValueError(f"kernel {name!r} has no row mode; pass its matrix (from_matrix)")
    n = X.shape[1]
    if name == "anisotropic_rbf":
        w = np.asarray(spec.weights, dtype=np.float64)
        if w.shape[0] != n:
            raise ValueError(f"the anisotropic kernel has {w.shape[0]} weights for {n} features")
        return np.ascontiguousarray(X * np.sqrt(w)), np.array([RBF, 1.0, 1.0, 0.0])
    gamma = spec.gamma_for(n) if name != "linear" else 1.0
    return X, np.array([_KINDS[name], gamma, float(spec.degree), spec.coef0])


def _diagonal(X: np.ndarray, spec: Any) -> np.ndarray:
    """K_ii for every row, without forming K."""
    if spec.name in ("rbf", "laplacian", "anisotropic_rbf"):
        return np.ones(X.shape[0])
    xx = np.einsum("ij,ij->i", X, X)
    if spec.name == "linear":
        return xx
    g = spec.gamma_for(X.shape[1])
    if spec.name == "poly":
        return (g * xx + spec.coef0) ** spec.degree
    return np.tanh(g * xx + spec.coef0)
