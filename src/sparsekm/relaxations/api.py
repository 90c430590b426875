"""The Python front door of the relaxations: one call solves any registered relaxation.

``relax(problem, name, plan, **options)`` looks ``name`` up in the registry (the problem's
default relaxation when None), checks ``options`` against its declarations and solves it;
``objective`` is the relaxation's value and ``bound`` its certified value.
"""

from __future__ import annotations

from typing import Any

from sparsekm import registry
from sparsekm.solvers import Result, SolverPlan

__all__ = ["relax"]


def relax(problem: Any, name: str | None = None, plan: SolverPlan | None = None,
          **options: Any) -> Result:
    """Solve the registered relaxation ``name`` of ``problem`` (see the module docstring)."""
    pname = problem.problem_name
    entry = registry.get(pname, "relaxation", name or registry.problem(pname).relaxation)
    options = entry.check(options)
    res = entry.run(problem, (plan or SolverPlan()).start(), **options)
    res.method, res.problem = res.method or entry.name, pname
    return res
