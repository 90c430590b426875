"""The Python front door of the formulations: solve a model the toolkit built (and that you
may have changed), and read back what its solution means for the problem.

``solve_formulation(problem, model, plan)`` solves the Pyomo ``model`` (a formulation of
``problem`` from :mod:`sparsekm.models`: BigMP (6), CoP (7), CoP(K) (16), SR-DLMP (21) of
paper D) with the plan's solver and returns the one :class:`~sparsekm.solvers.Result`: a point
of the problem (its exact objective), and the solver's bound when the model certifies one for
the problem. The model's :class:`~sparsekm.models.record.ModelRecord` says what that is:

* an unmodified exact model, or one with the toolkit's registered valid cuts (the objective
  cut (17)): the bound is a bound on the problem (``extra["certifies"] = "problem"``);
* a restriction (CoP(K) (16), the new-feature cut (18)): the bound is the restricted
  subproblem's; the result carries none (``"restricted subproblem"``);
* a model changed after it was built (a constraint added or rewritten, a variable fixed, a
  bound or the objective changed): the bound is the changed model's only
  (``"user-modified model"``, the changes listed in ``extra["changes"]``); the result
  carries none, and the point is checked on the problem (``extra["on_problem"]``: feasible or
  not, the largest violation, the exact value of its support).

>>> import pyomo.environ as pyo                                            # doctest: +SKIP
>>> m = cop_model(p, form="perspective")
>>> m.mine = pyo.Constraint(expr=m.u[0] + m.u[1] <= 1)
>>> res = solve_formulation(p, m, SolverPlan(solver="scip"))
>>> res.lower_bound, res.extra["certifies"], res.extra["model_bound"]
(None, 'user-modified model', 31.63...)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sparsekm import registry
from sparsekm.solvers import Result, SolverPlan

__all__ = ["read_back", "solve_formulation"]

_READ_BACKS: dict[str, Callable[..., Result]] = {}


def read_back(problem: str) -> Callable[[Callable[..., Result]], Callable[..., Result]]:
    """Decorator: ``func(problem, model, plan, time_limit, polish)`` solves and reads back the
    formulations of ``problem`` (each problem's ``algorithms/<problem>/formulation.py``)."""

    def deco(func: Callable[..., Result]) -> Callable[..., Result]:
        _READ_BACKS[problem] = func
        return func

    return deco


def solve_formulation(problem: Any, model: Any, plan: SolverPlan | None = None,
                      time_limit: float | None = None, polish: bool = True) -> Result:
    """Solve ``model`` (a formulation of ``problem`` built by :mod:`sparsekm.models`) with
    ``plan``'s solver within ``time_limit`` (default: the plan's) and read back a point of
    ``problem`` with what the model certifies (see the module docstring); ``polish``: re-solve
    the SVM on the support read (the point's exact value)."""
    registry.discover()
    name = problem.problem_name
    door = _READ_BACKS.get(name)
    if door is None:
        known = ", ".join(sorted(_READ_BACKS)) or "none"
        raise ValueError(f"the formulations of {name} have no read-back (problems with one: "
                         f"{known}); solve the model with sparsekm.solvers.solve")
    plan = (plan or SolverPlan()).start()
    return door(problem, model, plan, plan.clock.cap(time_limit), polish)
