"""The Python front door: one call runs any registered method of any problem.

``solve(problem, method, plan, **options)`` looks the method up in the registry (the problem's
default when None), checks ``options`` against the method's declarations (names, types,
ranges: :mod:`sparsekm.declare`), starts the plan's clock, runs the problem's own front door
(``solve_fs_linear``, ``solve_fs_kernel``, ``solve_smkl``, ``solve_sklr``,
``solve_minmax_fs``: each also callable directly) and stamps the result with the method, the
problem and the method's declared tolerance (``gap_tol``), from which :class:`Result` derives
its status. A problem whose data let no bound be certified (an indefinite kernel) has every
bound withheld here, whatever the method.

>>> from sparsekm.algorithms import solve                       # doctest: +SKIP
>>> res = solve(FSLinearProblem(X, y, B=5), "bnb", SolverPlan(time_limit=60), gap_tol=1e-3)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sparsekm import registry
from sparsekm.declare import params_of
from sparsekm.solvers import Result, SolverPlan

__all__ = ["front_door", "method_entry", "solve", "stamped", "uncertified"]

_DOORS: dict[str, tuple[Callable[..., Result], type | None]] = {}


def front_door(problem: str, own: type | None = None
               ) -> Callable[[Callable[..., Result]], Callable[..., Result]]:
    """Decorator: ``func(problem, entry, plan, options, **own)`` runs ``problem``'s methods;
    ``own`` is a dataclass declaring the door's own parameters (paper A's ``starts``)."""

    def deco(func: Callable[..., Result]) -> Callable[..., Result]:
        _DOORS[problem] = (func, own)
        return func

    return deco


def method_entry(problem: Any, method: str | None) -> registry.Entry:
    """The registered method ``method`` of ``problem`` (its problem's default when None)."""
    name = problem.problem_name
    return registry.get(name, "method", method or registry.problem(name).method)


def stamped(res: Result, entry: registry.Entry, options: dict[str, Any]) -> Result:
    """``res`` with its method, problem and the method's declared tolerance."""
    res.method = res.method or entry.name
    res.problem = entry.problem
    if "gap_tol" in entry.params:
        res.gap_tol = float(options.get("gap_tol", entry.params["gap_tol"].default))
    else:
        res.gap_tol = entry.gap_tol
    return res


def solve(problem: Any, method: str | None = None, plan: SolverPlan | None = None,
          **options: Any) -> Result:
    """Run the registered ``method`` on ``problem`` (see the module docstring)."""
    entry = method_entry(problem, method)
    registry.discover()                     # each problem's subpackage adds its front door
    door, own_cls = _DOORS.get(entry.problem, (None, None))
    declared = params_of(own_cls) if own_cls is not None else {}
    own = {k: declared[k].check(options.pop(k)) for k in list(options) if k in declared}
    options = entry.check(options)
    plan = (plan or SolverPlan()).start()
    res = door(problem, entry, plan, options, **own) if door is not None else \
        entry.run(problem, plan, **options)
    return uncertified(problem, stamped(res, entry, options))


def uncertified(problem: Any, res: Result) -> Result:
    """``res`` without a bound when the problem's data let no bound be certified (its
    :meth:`~sparsekm.models.problem.Problem.certificate_defect`, e.g. an indefinite kernel)."""
    if res.bound is None or not hasattr(problem, "certificate_defect"):
        return res                 # nothing to withhold: no check (it may cost O(m^3))
    defect = problem.certificate_defect(res)
    return res.withhold(defect) if defect else res
