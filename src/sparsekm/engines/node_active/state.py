"""The state of the node active-set engine: a point, its partition and the QR factors of the
partition's constraints (numba).

:class:`State` holds, for a node with ``nf`` free features and m samples,

* ``a`` (m) the multipliers and ``ast`` (m) the sample partition (0 M, 1 L, 2 U);
* the working set: features ``Wf`` (positions w < nW), their partition ``st`` (0 N, 1 T,
  2 A), signs ``sg``, correlations ``sv`` = s_j, relaxed selection ``zW``, ``frozen`` (ties
  found dependent on the others: they never block a step), ``inW`` (n, membership);
* the factors E' = Q [R; 0] of the constraints on z = (alpha_M, r) (``Q`` stored transposed,
  :mod:`.qr`): variables ``vid``
  (sample i, or m for r), constraints ``cid`` (-1 for y'alpha = 0, else the tie's position);
* ``ints`` = (nW, nz, nc, kappa, updates since the last factorisation, rebuild flag) and
  ``r`` = (threshold,).

A state is plain arrays: :func:`copy_state` forks one (strong branching's child probes start
from the parent's final state instead of factorising again). It crosses into Python packed in
one array (:func:`pack`, :func:`unpack`): boxing fifteen arrays, or a typed list holding
them, cost more per call than packing (the cost benchmark's "call itself" row).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from .partition import identify, samples
from .pivot import constraint_column, correlations
from .qr import add_constraint, householder

__all__ = ["NW", "NZ", "NC", "KAPPA", "UPDATES", "BUILD", "State", "build", "copy_state",
           "new_state", "pack", "read_partition", "remove_at", "residual", "tie", "unpack"]

State = namedtuple("State", ["a", "ast", "Wf", "st", "sg", "sv", "zW", "frozen", "inW", "Q",
                             "R", "vid", "cid", "ints", "r"])
NW, NZ, NC, KAPPA, UPDATES, BUILD = 0, 1, 2, 3, 4, 5


@njit(cache=True, error_model="numpy")
def new_state(n, nf, a):
    """An empty state for n features (nf free) at the multipliers ``a``."""
    m = a.size
    return State(a.copy(), np.zeros(m, np.int8), np.empty(nf, np.int64),
                 np.zeros(nf, np.int8), np.ones(nf), np.zeros(nf), np.zeros(nf),
                 np.zeros(nf, np.bool_), np.zeros(n, np.bool_), _block(m + 1),
                 _block(m + 1), np.zeros(m + 1, np.int64),
                 np.zeros(m + 2, np.int64), np.zeros(6, np.int64), np.zeros(1))


@njit(cache=True, error_model="numpy")
def _block(size):
    """A (size, size) array for Q or R, not cleared: the engine writes every entry of the
    leading blocks before it reads them (a row or column joins by :mod:`.qr`'s updates,
    which set it). np.zeros cleared all (m + 1)^2 entries, 32 MB at m = 2,000, in every
    state and fork: 0.6 s of a strong branching's 32 forks on mfeat."""
    return np.empty((size, size))


@njit(cache=True, error_model="numpy")
def _leading(M, size):
    """A copy of M with its leading (size, size) block: the whole array (one memcpy) unless
    that block is under a quarter of it (tall data), then the block alone in an uncleared
    array of M's shape."""
    if 4 * size * size >= M.size:
        return M.copy()
    out = _block(M.shape[0])
    out[:size, :size] = M[:size, :size]
    return out


@njit(cache=True, error_model="numpy")
def copy_state(S):
    """A deep copy of ``S`` (every array; of Q and R their leading blocks)."""
    return State(S.a.copy(), S.ast.copy(), S.Wf.copy(), S.st.copy(), S.sg.copy(),
                 S.sv.copy(), S.zW.copy(), S.frozen.copy(), S.inW.copy(),
                 _leading(S.Q, S.ints[NZ]), _leading(S.R, S.ints[NC]), S.vid.copy(),
                 S.cid.copy(), S.ints.copy(), S.r.copy())


HEAD = 10             # pack's header: m, nf, n, the six ints, r


@njit(cache=True, error_model="numpy")
def pack(S):
    """``S`` in one float64 array (its leading blocks only; :func:`unpack` restores it)."""
    m, nf, n = S.a.size, S.Wf.size, S.inW.size
    nW, nz, nc = S.ints[NW], S.ints[NZ], S.ints[NC]
    P = np.empty(HEAD + 2 * m + 6 * nW + nz + nc + nz * nz + nc * nc)
    P[0], P[1], P[2], P[HEAD - 1] = m, nf, n, S.r[0]
    P[3:HEAD - 1] = S.ints
    p = _put(P, HEAD, S.a)
    p = _put(P, p, S.ast)
    p = _put(P, p, S.Wf[:nW])
    p = _put(P, p, S.st[:nW])
    p = _put(P, p, S.sg[:nW])
    p = _put(P, p, S.sv[:nW])
    p = _put(P, p, S.zW[:nW])
    p = _put(P, p, S.frozen[:nW])
    p = _put(P, p, S.vid[:nz])
    p = _put(P, p, S.cid[:nc])
    for i in range(nz):
        p = _put(P, p, S.Q[i, :nz])
    for i in range(nc):
        p = _put(P, p, S.R[i, :nc])
    return P


@njit(cache=True, error_model="numpy")
def _put(P, p, part):
    """``part`` into P from position p; the position after it."""
    for t in range(part.size):
        P[p + t] = part[t]
    return p + part.size


@njit(cache=True, error_model="numpy")
def unpack(P):
    """The state :func:`pack` stored in ``P`` (entries past the leading blocks zero)."""
    m, nf, n = int(P[0]), int(P[1]), int(P[2])
    p = HEAD
    S = new_state(n, nf, P[p:p + m])
    S.ints[:] = P[3:HEAD - 1].astype(np.int64)
    S.r[0] = P[HEAD - 1]
    nW, nz, nc = S.ints[NW], S.ints[NZ], S.ints[NC]
    p += m
    S.ast[:] = P[p:p + m].astype(np.int8)
    p += m
    S.Wf[:nW] = P[p:p + nW].astype(np.int64)
    S.st[:nW] = P[p + nW:p + 2 * nW].astype(np.int8)
    S.sg[:nW] = P[p + 2 * nW:p + 3 * nW]
    S.sv[:nW] = P[p + 3 * nW:p + 4 * nW]
    S.zW[:nW] = P[p + 4 * nW:p + 5 * nW]
    S.frozen[:nW] = P[p + 5 * nW:p + 6 * nW] != 0.0
    p += 6 * nW
    for w in range(nW):
        S.inW[S.Wf[w]] = True
    S.vid[:nz] = P[p:p + nz].astype(np.int64)
    S.cid[:nc] = P[p + nz:p + nz + nc].astype(np.int64)
    p += nz + nc
    S.Q[:nz, :nz] = P[p:p + nz * nz].reshape((nz, nz))
    S.R[:nc, :nc] = P[p + nz * nz:].reshape((nc, nc))
    return S


@njit(cache=True, error_model="numpy")
def read_partition(Qt, S, k, C):
    """The partition read off the point (features: :func:`~.partition.identify`; samples at
    their bounds, snapped exactly to them); the factors are to be rebuilt."""
    nW = S.ints[NW]
    correlations(Qt, S.Wf[:nW], S.a, S.sv[:nW])
    r, kappa = identify(S.sv, S.sg, S.st, nW, k)
    S.r[0] = r
    S.ints[KAPPA] = kappa
    ast = samples(S.a, C)
    for i in range(S.a.size):
        S.ast[i] = ast[i]
        if ast[i] == 1:
            S.a[i] = 0.0
        elif ast[i] == 2:
            S.a[i] = C
    for w in range(nW):
        S.zW[w] = 1.0 if S.st[w] == 2 else 0.0
    S.ints[BUILD] = 1


@njit(cache=True, error_model="numpy")
def build(Qt, y, S):
    """The constraints of the partition and their QR from scratch: variables M and r,
    constraints y and the ties. Returns the rank: below nc it names the first tie
    (cid[rank]) that depends on the ones before it."""
    m = y.size
    nz = 0
    for i in range(m):
        if S.ast[i] == 0:
            S.vid[nz] = i
            nz += 1
    S.vid[nz] = m
    nz += 1
    S.cid[0] = -1
    nc = 1
    for w in range(S.ints[NW]):
        if S.st[w] == 1 and nc <= nz:   # more than nz rows are dependent: one names it
            S.cid[nc] = w               # (cid holds m + 2: many equal |s_j| tie at once)
            nc += 1
    use = min(nc, nz)
    E = np.zeros((use, nz))
    for c in range(use):
        w = S.cid[c]
        E[c] = constraint_column(Qt, y, S.vid, nz, -1 if w < 0 else S.Wf[w],
                                 0.0 if w < 0 else S.sg[w])
    rank = householder(E, S.Q, S.R)
    S.ints[NZ], S.ints[NC] = nz, nc
    S.ints[UPDATES], S.ints[BUILD] = 0, 0
    return rank if rank < use else (nz if nc > nz else nc)


@njit(cache=True, error_model="numpy")
def tie(Qt, y, S, w, sign):
    """Working feature w joins T with ``sign`` as constraint nc (its partition entry is the
    caller's); flags a rebuild when it is numerically dependent on the others (the rebuild
    then moves it out of T and freezes it)."""
    nz, nc = S.ints[NZ], S.ints[NC]
    if nc >= nz:        # as many constraints as variables: dependent; the rebuild reads st
        S.ints[BUILD] = 1
        return
    col = constraint_column(Qt, y, S.vid, nz, S.Wf[w], sign)
    S.cid[nc] = w
    if add_constraint(S.Q, S.R, nz, nc, col) <= 1e-8 * np.sqrt(col @ col):
        S.ints[BUILD] = 1
    S.ints[NC] = nc + 1
    S.ints[UPDATES] += 1


@njit(cache=True, error_model="numpy")
def residual(y, S):
    """e - E z at the current point: -y'alpha, and sigma_j r - s_j for each tie."""
    nc = S.ints[NC]
    res = np.empty(nc)
    res[0] = -(y @ S.a)
    for c in range(1, nc):
        w = S.cid[c]
        res[c] = S.sg[w] * S.r[0] - S.sv[w]
    return res


@njit(cache=True, error_model="numpy")
def remove_at(arr, n, p):
    """Delete entry p of the first n of ``arr`` (shift left)."""
    for t in range(p, n - 1):
        arr[t] = arr[t + 1]
