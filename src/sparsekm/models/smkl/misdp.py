"""MISDP (13) of paper B as a declarative CVXPY model, and the conic blocks of its relaxations.

(13): min C 1'sigma + theta/2 + lam 1'omega
      s.t. 1 - sigma_i <= y_i (eta + gamma_i)            (margin; multipliers alpha_i)
           [[theta, gamma'], [gamma, sum_i beta_i K_i]] PSD
           sum beta = 1, sum z <= k0, beta_i^2 <= z_i omega_i, z binary, sigma, beta, omega >= 0.

``cone`` replaces the PSD block by the blocks of a relaxation: ``"psd"`` (13)/(14), ``"diag"``
(15, simultaneously diagonalizable kernels), ``"soc-basis"`` (16: theta sum beta_i K_i[j,j] >=
gamma_j^2), ``"soc-random"`` (17: (16) plus theta x'K(beta)x >= (x'gamma)^2 for seeded random
unit vectors x), ``"3x3"`` (18: every principal 3x3 minor through row 0). ``integer=False`` is
the relaxation z in [0, 1]^q.

No installed solver takes a mixed-integer SDP (CVXPY's MISDP route needs MOSEK's licence; SCIP
has no SDP interface here), so the integer model is for printing and extending; the exact
method (``sparsekm.algorithms.smkl.exact``) solves (4) by branch-and-bound on z instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sparsekm.registry import CONIC_PSD, Export, exportable, register

from .problem import SMKLProblem

__all__ = ["conic_export", "conic_model", "misdp_model", "simultaneous_diagonalization"]

CONES = ("psd", "diag", "soc-basis", "soc-random", "3x3")


def simultaneous_diagonalization(K: np.ndarray, tol: float = 1e-8) -> tuple[np.ndarray, ...]:
    """(U, D) with K_i = U diag(D[i]) U' for every kernel, or ValueError if they do not commute.

    U diagonalizes a generic combination sum_i c_i K_i (random c), which separates the common
    eigenspaces; the check is max_i ||U'K_iU - diag|| <= tol * max ||K_i||.
    """
    q = K.shape[0]
    c = np.random.default_rng(12345).uniform(1.0, 2.0, size=q)
    _, U = np.linalg.eigh(np.tensordot(c, K, axes=1))
    R = np.einsum("ji,qjk,kl->qil", U, K, U)
    D = np.einsum("qii->qi", R)
    off = max(float(np.abs(R[i] - np.diag(D[i])).max()) for i in range(q))
    scale = max(1.0, float(np.abs(K).max()))
    if off > tol * scale:
        raise ValueError(f"the kernels are not simultaneously diagonalizable (off-diagonal "
                         f"residual {off:.3g}); relaxation (15) needs commuting kernels, use "
                         "sdp-full or a SOC relaxation")
    return U, D


def conic_model(problem: SMKLProblem, *, integer: bool = False, cone: str = "psd",
                n_vectors: int = 100, seed: int = 0) -> tuple[Any, dict[str, Any]]:
    """The CVXPY problem and its handles (variables, the margin constraint ``margin``)."""
    import cvxpy as cp

    if cone not in CONES:
        raise ValueError(f"cone={cone!r}: use one of {CONES}")
    m, q, K, y = problem.m, problem.q, problem.K, problem.y
    eta = cp.Variable(name="eta")
    theta = cp.Variable(name="theta")
    sigma = cp.Variable(m, nonneg=True, name="sigma")
    gamma = cp.Variable(m, name="gamma")
    beta = cp.Variable(q, nonneg=True, name="beta")
    omega = cp.Variable(q, nonneg=True, name="omega")
    z = cp.Variable(q, boolean=True, name="z") if integer else cp.Variable(q, name="z")
    margin = cp.multiply(y, eta + gamma) >= 1 - sigma
    cons = [margin, cp.sum(beta) == 1, cp.sum(z) <= problem.k0,
            cp.SOC(z + omega, cp.vstack([2 * beta, z - omega]), axis=0)]
    if not integer:
        cons += [z >= 0, z <= 1]

    def rot(a: Any, b: Any, c: Any) -> Any:  # a * b >= c^2, a, b >= 0 (vectorized)
        return cp.SOC(a + b, cp.vstack([2 * c, a - b]), axis=0)

    if cone == "psd":
        KB = sum(beta[i] * K[i] for i in range(q))
        M = cp.bmat([[cp.reshape(theta, (1, 1), order="F"), cp.reshape(gamma, (1, m), order="F")],
                     [cp.reshape(gamma, (m, 1), order="F"), KB]])
        cons.append(M >> 0)
    elif cone == "diag":
        U, D = simultaneous_diagonalization(K)
        tau = cp.Variable(m, nonneg=True, name="tau")
        cons += [rot(tau, D.T @ beta, U.T @ gamma), theta >= cp.sum(tau)]
    else:
        diag = np.einsum("qjj->jq", K)  # (m, q)
        ones = np.ones(m)
        cons.append(rot(theta * ones, diag @ beta, gamma))
        if cone == "soc-random":
            rng = np.random.default_rng(seed)
            Xv = rng.standard_normal((m, n_vectors))
            Xv /= np.linalg.norm(Xv, axis=0)
            quad = np.stack([np.einsum("jl,jl->l", Xv, K[i] @ Xv) for i in range(q)],
                            axis=1)  # (L, q): x_l' K_i x_l, BLAS products
            cons.append(rot(theta * np.ones(n_vectors), quad @ beta, Xv.T @ gamma))
        elif cone == "3x3":
            for j in range(m - 1):
                for k in range(j + 1, m):
                    kjj, kjk, kkk = K[:, j, j] @ beta, K[:, j, k] @ beta, K[:, k, k] @ beta
                    cons.append(cp.bmat([[theta, gamma[j], gamma[k]],
                                         [gamma[j], kjj, kjk],
                                         [gamma[k], kjk, kkk]]) >> 0)
    obj = cp.Minimize(problem.C * cp.sum(sigma) + 0.5 * theta + problem.lam * cp.sum(omega))
    handles = {"margin": margin, "beta": beta, "z": z, "theta": theta, "gamma": gamma}
    return cp.Problem(obj, cons), handles


def conic_export(cone: str) -> Any:
    """The builder ``sparsekm export`` calls for (13) or a relaxation: :func:`conic_model` with
    z in [0, 1] (MISDP (13) marks z integer in the file) and the export's ``n_vectors`` and
    ``seed`` (the random vectors of (17))."""

    def build(problem: SMKLProblem, options: dict[str, Any]) -> Any:
        return conic_model(problem, integer=False, cone=cone,
                           n_vectors=options.get("n_vectors", 100),
                           seed=options.get("seed", 0))[0]

    return build


@register("smkl", "formulation", "misdp", paper="B", ref="eq. (13)", problem_class="MISDP")
@exportable(Export("misdp", conic_export("psd"), CONIC_PSD, integer=("z",),
                   note="z integer in [0, 1]: the binaries of (13)"))
def misdp_model(problem: SMKLProblem) -> Any:
    """MISDP (13): exact reformulation of (4) with binaries z and the (m+1)x(m+1) PSD block.

    For inspection and extension (``print(misdp_model(p))``); no installed solver takes it.
    """
    return conic_model(problem, integer=True, cone="psd")[0]
