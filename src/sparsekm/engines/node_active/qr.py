"""The QR factorisation E' = Q [R; 0] of the active constraints, kept up to date (numba).

The node engine's constraints on z = (alpha_M, r) are y'alpha = 0 and one tie per tied
feature (:mod:`.pivot`); the columns of Q past the constraints span their null space, where
the method moves. A pivot adds or removes one constraint or one variable, and each change is
an O(nz^2) update by Givens rotations (Gill, Golub, Murray & Saunders, "Methods for modifying
matrix factorizations", Math. Comp. 28 (1974); Golub & Van Loan, Matrix Computations, 4th
ed., Section 6.5) instead of an O(nz^3) factorisation:

* :func:`add_constraint` appends a column to E' (a new tie);
* :func:`drop_constraint` deletes one (a tie leaves);
* :func:`add_variable` appends a row (a sample leaves its bound);
* :func:`drop_variable` deletes one (a sample reaches a bound).

``Q`` holds Q transposed, (cap, cap) with the leading (nz, nz) block in use: row i is Q's
column i, so a rotation of two columns of Q runs along two contiguous rows. ``R`` is (cap,
cap) with the leading (nc, nc) block; :func:`householder` refactors from scratch (LAPACK,
through the bindings numba's ``np.linalg.qr`` uses).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

_KIND = ord("d")                        # LAPACK's double precision routines
_geqrf = types.ExternalFunction("numba_ez_geqrf", types.intc(
    types.char, types.intp, types.intp, types.CPointer(types.float64), types.intp,
    types.CPointer(types.float64)))     # (kind, m, n, a, lda, tau): dgeqrf, its workspace
_orgqr = types.ExternalFunction("numba_ez_xxgqr", types.intc(
    types.char, types.intp, types.intp, types.intp, types.CPointer(types.float64),
    types.intp, types.CPointer(types.float64)))   # (kind, m, n, k, a, lda, tau): dorgqr

__all__ = ["add_constraint", "add_variable", "drop_constraint", "drop_variable",
           "householder"]


@njit(cache=True, error_model="numpy")
def _givens(a, b):
    """(c, s) with [c s; -s c] (a, b)' = (hypot(a, b), 0)'."""
    if b == 0.0:
        return 1.0, 0.0
    big = max(abs(a), abs(b))                   # no overflow nor underflow: skip hypot's care
    h = np.sqrt(a * a + b * b) if 1e-150 < big < 1e150 else np.hypot(a, b)
    return a / h, b / h


@njit(cache=True, error_model="numpy")
def _rotate_rows(M, i, j, c, s, lo, hi):
    """Rows i, j of M (columns lo..hi-1) <- [c s; -s c] [row i; row j]."""
    for t in range(lo, hi):
        u, v = M[i, t], M[j, t]
        M[i, t] = c * u + s * v
        M[j, t] = -s * u + c * v




@njit(cache=True, error_model="numpy")
def householder(E, Q, R):
    """E' = Q [R; 0] from scratch into ``Q``, ``R`` (leading blocks), for E (nc, nz) given by
    rows, nc <= nz: LAPACK's Householder QR of E' (dgeqrf: nc reflectors), then the full nz x
    nz Q from those reflectors (dorgqr with k = nc); numba's own LAPACK bindings, as in its
    ``np.linalg.qr``, which forms only the reduced Q.
    Returns the number of leading rows of E found independent (nc when of full rank; j < nc:
    row j depends on the ones before it)."""
    nc, nz = E.shape
    scale = 1e-300
    At = np.empty((nz, nz))             # column-major nz x nz: row j of At is column j
    for j in range(nc):
        for i in range(nz):
            At[j, i] = E[j, i]
            scale = max(scale, abs(E[j, i]))
    tau = np.empty(nc)
    if _geqrf(_KIND, nz, nc, At.ctypes, nz, tau.ctypes) != 0:
        return 0
    for j in range(nc):
        if abs(At[j, j]) <= 1e-11 * scale:
            return j
    for i in range(nc):
        for j in range(nc):
            R[i, j] = At[j, i] if j >= i else 0.0
    if _orgqr(_KIND, nz, nz, nc, At.ctypes, nz, tau.ctypes) != 0:
        return 0
    for j in range(nz):                 # Q stored transposed: row j is Q's column j
        for i in range(nz):
            Q[j, i] = At[j, i]
    return nc


@njit(cache=True, error_model="numpy")
def add_constraint(Q, R, nz, nc, col):
    """Append ``col`` (nz) as column nc of E'; returns |R[nc, nc]| (0: dependent)."""
    w = np.zeros(nz)
    for i in range(nz):                        # w = Q'col: rows of the stored Q'
        acc = 0.0
        for t in range(nz):
            acc += Q[i, t] * col[t]
        w[i] = acc
    for j in range(nz - 1, nc, -1):            # zero w[nc+1:] bottom up
        c, s = _givens(w[j - 1], w[j])
        w[j - 1], w[j] = c * w[j - 1] + s * w[j], 0.0
        _rotate_rows(Q, j - 1, j, c, s, 0, nz)
    for i in range(nc + 1):
        R[i, nc] = w[i]
        R[nc, i] = 0.0 if i < nc else w[nc]
    return abs(w[nc])


@njit(cache=True, error_model="numpy")
def drop_constraint(Q, R, nz, nc, p):
    """Delete column p of E' (nc columns before)."""
    for j in range(p, nc - 1):                 # shift columns left
        for i in range(nc):
            R[i, j] = R[i, j + 1]
    for i in range(nc):
        R[i, nc - 1] = 0.0
    for j in range(p, nc - 1):                 # Hessenberg -> triangular
        c, s = _givens(R[j, j], R[j + 1, j])
        _rotate_rows(R, j, j + 1, c, s, j, nc - 1)
        R[j + 1, j] = 0.0
        _rotate_rows(Q, j, j + 1, c, s, 0, nz)


@njit(cache=True, error_model="numpy")
def add_variable(Q, R, nz, nc, row):
    """Append ``row`` (nc) as row nz of E' (a new variable); Q grows to nz + 1."""
    for t in range(nz):
        Q[t, nz] = 0.0
        Q[nz, t] = 0.0
    Q[nz, nz] = 1.0
    last = row.copy()
    for i in range(nc):                        # zero the new row against R's diagonal
        c, s = _givens(R[i, i], last[i])
        for t in range(i, nc):
            u, v = R[i, t], last[t]
            R[i, t] = c * u + s * v
            last[t] = -s * u + c * v
        _rotate_rows(Q, i, nz, c, s, 0, nz + 1)


@njit(cache=True, error_model="numpy")
def drop_variable(Q, R, nz, nc, p):
    """Delete row p of E' (a variable fixed at a bound); Q shrinks to nz - 1. Needs the other
    rows to keep rank nc."""
    for j in range(nz - 1, 0, -1):             # zero Q[p, 1:] bottom up
        c, s = _givens(Q[j - 1, p], Q[j, p])
        _rotate_rows(Q, j - 1, j, c, s, 0, nz)
        if j < nc:
            _rotate_rows(R, j - 1, j, c, s, 0, nc)
        elif j == nc:
            _rot_last(R, j - 1, c, s, nc)
    # now Q[:, 0] = +-e_p: remove row p and column 0 (of the stored Q': column p, row 0)
    for i in range(nz - 1):
        for j in range(p):
            Q[i, j] = Q[i + 1, j]
        for j in range(p, nz - 1):
            Q[i, j] = Q[i + 1, j + 1]
    for i in range(nc):
        for j in range(nc):
            R[i, j] = R[i + 1, j]
    for j in range(nc):
        R[nc, j] = 0.0
    _fix_diagonal(R, nc)


@njit(cache=True, error_model="numpy")
def _rot_last(R, i, c, s, nc):
    """Rotation of rows (i, nc) when row nc of [R; 0] is zero: row i scales by c, and the
    zero row becomes -s row i (kept as R's row nc for the shift that follows)."""
    for t in range(nc):
        u = R[i, t]
        R[i, t] = c * u
        R[nc, t] = -s * u


@njit(cache=True, error_model="numpy")
def _fix_diagonal(R, nc):
    """After a row deletion R's rows hold the upper Hessenberg H[1:]: triangular already."""
    for i in range(nc):
        for j in range(i):
            R[i, j] = 0.0
