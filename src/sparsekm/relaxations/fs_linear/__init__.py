"""Paper D's conic relaxations of FS-SVM (2), each registered with its equation number.

BoxMP (8) ``box``; Shor: SMP (10) ``shor-bigm``, SCoP (11) ``shor-cop``, SCoMP (12)
``shor-cop-bigm``; decomposed: DSCoP (13) ``dscop``, DSCoMP (14) ``dscomp``, DSMP (15)
``dsmp`` (PSD blocks or the SOC form of Lemma 4.3); the m-variable dual of (13)
``perspective-dual``; the big-M tightening (19). :func:`solve_relaxation` runs any of them by
name through the registry.
"""

from __future__ import annotations

from typing import Any

from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.solvers import Result, SolverPlan

from .perspective import feasible_alpha, perspective_bound
from .tightening import bigm_tightening

__all__ = ["bigm_tightening", "feasible_alpha", "perspective_bound", "solve_relaxation"]


def solve_relaxation(problem: FSLinearProblem, name: str = "dscop",
                     plan: SolverPlan | None = None, **options: Any) -> Result:
    """Solve the registered relaxation ``name`` (or alias) of ``problem``; options as its
    declared keyword options (``M``, ``conic``), checked (:func:`~..api.relax`)."""
    from ..api import relax

    return relax(problem, name, plan, **options)
