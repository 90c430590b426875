"""Heuristics and exact schemes (local search, decomposition, SVM dual subproblems)."""

# paper A (kernel FS-SVM): F/H set functions, LS, LS*, DecSubLight*, RFE, enumeration, MINLP
from .fs_kernel_core import FSKernelProblem, FSKernelResult  # noqa: E402, F401
from .fs_kernel_solve import solve_fs_kernel  # noqa: E402, F401

# paper D (linear FS-SVM): Algorithms 1-4 and the one-call dispatcher
from .fs_linear_exact import exact as fs_linear_exact  # noqa: E402, F401
from .fs_linear_heuristic import heuristic as fs_linear_heuristic  # noqa: E402, F401
from .fs_linear_kernel_search import kernel_search as fs_linear_kernel_search  # noqa: E402, F401
from .fs_linear_local_search import local_search as fs_linear_local_search  # noqa: E402, F401
from .fs_linear_solve import solve_fs_linear  # noqa: E402, F401
