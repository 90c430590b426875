"""Kernel functions and masked kernels with O(m^2) feature updates (Paper A, Section 2).

Public API
----------
KernelSpec, kernel_matrix, KERNELS
    Named kernels: linear, poly, rbf, laplacian, sigmoid, anisotropic_rbf.
linear_kernel, polynomial_kernel, rbf_kernel, laplacian_kernel, sigmoid_kernel,
anisotropic_rbf_kernel
    The kernel functions themselves (scikit-learn conventions, ``coef0`` defaults to 0).
MaskedKernel
    ``K_beta`` of Paper A, eq. (4), maintained under add / remove / swap of features.
symmetrize, add_jitter
    Small matrix utilities.
"""

from .anisotropic import anisotropic_rbf_derivative, anisotropic_rbf_weight_gradient  # noqa: F401
from .blocks import gram_by_blocks, kernel_decision  # noqa: F401
from .functions import (
    KERNELS,
    KernelSpec,
    add_jitter,
    anisotropic_rbf_kernel,
    canonical_kernel_name,
    kernel_matrix,
    laplacian_kernel,
    linear_kernel,
    polynomial_kernel,
    rbf_kernel,
    sigmoid_kernel,
    symmetrize,
)
from .masked import MASKED_KERNELS, MaskedKernel
from .psd import indefinite_reason, psd_by_construction  # noqa: F401
from .terms import feature_terms, mask_from_indices

__all__ = [
    "KERNELS",
    "MASKED_KERNELS",
    "KernelSpec",
    "MaskedKernel",
    "add_jitter",
    "anisotropic_rbf_kernel",
    "canonical_kernel_name",
    "feature_terms",
    "kernel_matrix",
    "laplacian_kernel",
    "linear_kernel",
    "mask_from_indices",
    "polynomial_kernel",
    "rbf_kernel",
    "sigmoid_kernel",
    "symmetrize",
]
from .dictionary import KernelDictionary, parse_kernels  # noqa: E402,F401 - paper B
