"""Is a Gram matrix positive semidefinite? What every duality certificate of a kernel needs.

The SVM's weak-duality bound (a feasible alpha bounds the optimum), paper B's Lagrangian and
conic bounds and paper C's linearised gap all assume a concave inner maximisation, i.e. a PSD
kernel matrix. Linear, Gaussian, Laplacian and anisotropic Gaussian kernels are PSD by
construction, and so is the polynomial ``(gamma x'z + c)^d`` with ``c >= 0`` (a sum of Schur
products of PSD matrices). The sigmoid ``tanh(gamma x'z + c)`` is not in general (Lin and
Lin, 2003), nor a polynomial with ``c < 0``: their Gram matrices are checked on the data.

The check: a Cholesky factorisation of ``K + eps I``, ``eps = PSD_RTOL * m * max_i K_ii``
(round-off in a PSD Gram matrix moves its eigenvalues by about ``m * 1e-16 * ||K||``); when
it fails, the smallest eigenvalue is computed for the message (up to ``EIG_MAX`` rows). On
wine (178 rows, standardised) ``sigmoid:0.5:1`` has smallest eigenvalue -20 against a
largest of 115: far outside round-off. Above ``CHECK_MAX`` rows such a kernel is taken as
not PSD (no certificate) without the O(m^3) check.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["PSD_RTOL", "indefinite_reason", "psd_by_construction", "smallest_eigenvalue"]

PSD_RTOL = 1e-9
EIG_MAX = 3000      # rows up to which a failed check computes the smallest eigenvalue
CHECK_MAX = 8000    # rows up to which the check runs (Cholesky: 1.3 s at 4601 rows, O(m^3))
PSD_TYPES = ("linear", "rbf", "laplacian", "anisotropic_rbf")


def psd_by_construction(spec: Any) -> bool:
    """True when the kernel ``spec`` (a :class:`~.functions.KernelSpec`) is PSD on any data."""
    return spec.name in PSD_TYPES or (spec.name == "poly" and spec.coef0 >= 0)


def smallest_eigenvalue(K: np.ndarray) -> float:
    """The smallest eigenvalue of the symmetric matrix ``K`` (LAPACK, that one only)."""
    from scipy.linalg import eigh

    return float(eigh(K, eigvals_only=True, subset_by_index=[0, 0], check_finite=False)[0])


def _psd_within_round_off(K: np.ndarray) -> tuple[bool, float]:
    """(PSD within ``eps``, eps) by a Cholesky factorisation of ``K + eps I``."""
    from scipy.linalg import LinAlgError, cho_factor

    m = K.shape[0]
    eps = PSD_RTOL * m * max(float(np.max(np.abs(np.diagonal(K)))), 1e-300)
    shifted = K + eps * np.eye(m)
    try:
        cho_factor(shifted, lower=True, overwrite_a=True, check_finite=False)
    except LinAlgError:
        return False, eps
    return True, eps


def indefinite_reason(spec: Any, K: np.ndarray | None = None, label: str | None = None
                      ) -> str | None:
    """None when the kernel ``spec``'s Gram matrix ``K`` is PSD (by construction, or on these
    data within round-off); otherwise one line saying why nothing can be certified with it.
    ``K`` is needed only for kernels that are not PSD by construction."""
    if psd_by_construction(spec):
        return None
    name = label or spec.name
    if K is None:
        return f"kernel {name} is not positive semidefinite in general"
    if K.shape[0] > CHECK_MAX:
        return (f"kernel {name} is not positive semidefinite in general (not checked on "
                f"{K.shape[0]} rows: the check costs O(m^3))")
    K = np.asarray(K, dtype=np.float64)
    ok, eps = _psd_within_round_off(K)
    if ok:
        return None
    top = float(np.max(np.abs(np.diagonal(K))))
    if K.shape[0] <= EIG_MAX:
        lam = smallest_eigenvalue(K)
        if lam >= -eps:
            return None
        return (f"kernel {name} is not positive semidefinite on these data (smallest "
                f"eigenvalue {lam:.3g}, largest diagonal entry {top:.3g})")
    return (f"kernel {name} is not positive semidefinite on these data (the Cholesky "
            f"factorisation of K + {eps:.2g} I fails)")
