"""Size limits of the commercial solvers' free licences, and the size of a model.

When a size-limited solver fails, :func:`explain_failure` says which limit the model exceeds
and which installed solvers can take it (limits measured on this project's machine with the
pip packages' free licences; the README's solver table lists them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SizeLimit:
    """A free licence's limits (None = no such limit)."""

    variables: int | None = None
    constraints: int | None = None
    rows_plus_cols: int | None = None
    quadratic_variables: int | None = None

    def describe(self) -> str:
        parts = []
        if self.variables:
            parts.append(f"<= {self.variables} variables")
        if self.constraints:
            parts.append(f"<= {self.constraints} constraints")
        if self.rows_plus_cols:
            parts.append(f"rows + columns <= {self.rows_plus_cols}")
        if self.quadratic_variables:
            parts.append(f"<= {self.quadratic_variables} variables in all once any quadratic "
                         "term is present")
        return ", ".join(parts)

    def exceeded(self, n_vars: int, n_cons: int) -> bool:
        """True when a model of this size is over a limit (quadratic terms: any variable
        might carry one, so the quadratic limit counts when the model has more variables)."""
        return any(lim is not None and val > lim for lim, val in (
            (self.variables, n_vars), (self.constraints, n_cons),
            (self.rows_plus_cols, n_vars + n_cons), (self.quadratic_variables, n_vars)))


LIMITS = {
    "gurobi": SizeLimit(variables=2000, constraints=2000, quadratic_variables=200),
    "cplex": SizeLimit(variables=1000, constraints=1000),
    "xpress": SizeLimit(rows_plus_cols=5000, quadratic_variables=200),
}


def model_size(model: Any, framework: str) -> tuple[int, int]:
    """(variables, constraints) of a model, as its framework counts them."""
    if framework == "pyomo":
        return int(model.nvariables()), int(model.nconstraints())
    if framework == "cvxpy":
        sm = model.size_metrics
        return (int(sm.num_scalar_variables),
                int(sm.num_scalar_eq_constr + sm.num_scalar_leq_constr))
    if framework == "matrix":
        return int(model.q.size), int(model.A.shape[0])
    return int(model.n), 0 if model.cl is None else len(model.cl)


def _limited(note: str) -> bool:
    return any(word in note for word in ("limited", "Community", "community"))


def too_large(solver: str, note: str, n_vars: int, n_cons: int) -> bool:
    """True when ``solver`` runs under a size-limited licence that this size exceeds."""
    limit = LIMITS.get(solver)
    return limit is not None and _limited(note) and limit.exceeded(n_vars, n_cons)


def explain_failure(solver: str, notes: dict[str, str], model: Any, framework: str,
                    capable: list[str]) -> str | None:
    """A message naming the licence limit a failed model exceeds, or None.

    ``notes`` maps each solver to its availability note (which says when a licence is
    size-limited); the solvers suggested instead are the capable ones the model fits.
    """
    n_vars, n_cons = model_size(model, framework)
    if not too_large(solver, notes.get(solver, ""), n_vars, n_cons):
        return None
    limit = LIMITS[solver]
    others = ", ".join(s for s in capable if s != solver
                       and not too_large(s, notes.get(s, ""), n_vars, n_cons)) \
        or "none installed"
    return (f"{solver} failed, most likely on its licence's size limit ({limit.describe()}): "
            f"this model has {n_vars} variables and {n_cons} constraints. Installed solvers "
            f"that can take it: {others}; or install a full {solver} licence.")
