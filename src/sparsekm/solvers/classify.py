"""Determine the problem class of a Pyomo model or a CVXPY problem.

A model may declare its class explicitly (``declare_class(model, ProblemClass.MISOCP)``), which
is how a formulation states a fact the syntax cannot show (e.g. that its quadratic constraints
are second-order cones). Otherwise the class is read off the model.
"""

from __future__ import annotations

from typing import Any

from .errors import ModelClassError
from .types import ProblemClass

_ATTR = "sparsekm_class"

# CVXPY atoms whose canonicalisation needs the PSD cone or the exponential cone.
_SDP_ATOMS = {"lambda_max", "lambda_min", "lambda_sum_largest", "lambda_sum_smallest", "log_det",
              "normNuc", "sigma_max", "matrix_frac", "tr_inv", "von_neumann_entr",
              "quantum_rel_entr", "quantum_cond_entr"}
_EXP_ATOMS = {"exp", "log", "entr", "kl_div", "rel_entr", "logistic", "log_sum_exp", "xexp",
              "log1p", "loggamma", "log_normcdf", "geo_mean"}


def framework_of(model: Any) -> str:
    """'pyomo', 'cvxpy', 'callbacks' (a CallbackNLP) or 'matrix' (a ConicQP)."""
    from .nlp import CallbackNLP
    from .qp import ConicQP

    if isinstance(model, CallbackNLP):
        return "callbacks"
    if isinstance(model, ConicQP):
        return "matrix"
    mod = type(model).__module__
    if mod.startswith("pyomo"):
        return "pyomo"
    if mod.startswith("cvxpy"):
        return "cvxpy"
    raise TypeError(
        f"cannot solve an object of type {type(model).__name__}: pass a Pyomo ConcreteModel, "
        "a cvxpy.Problem, a sparsekm.solvers.CallbackNLP or a sparsekm.solvers.ConicQP")


def declare_class(model: Any, problem_class: ProblemClass | str) -> Any:
    """Attach a declared problem class to ``model`` (returns the model)."""
    pc = ProblemClass(str(problem_class).upper())
    if framework_of(model) == "pyomo":
        object.__setattr__(model, _ATTR, pc)
    else:
        setattr(model, _ATTR, pc)
    return model


def classify(model: Any) -> ProblemClass:
    """The declared class of ``model``, or the class read off its structure."""
    declared = getattr(model, _ATTR, None)
    if declared is not None:
        return ProblemClass(declared)
    framework = framework_of(model)
    if framework in ("callbacks", "matrix"):
        return model.problem_class
    if framework == "pyomo":
        return _classify_pyomo(model)
    return _classify_cvxpy(model)


def _classify_pyomo(model: Any) -> ProblemClass:
    import pyomo.environ as pyo

    integer = any(
        (v.is_integer() or v.is_binary()) and not v.fixed
        for v in model.component_data_objects(pyo.Var, active=True, descend_into=True))
    objectives = list(model.component_data_objects(pyo.Objective, active=True, descend_into=True))
    if len(objectives) != 1:
        raise ModelClassError(
            f"the Pyomo model has {len(objectives)} active objectives; exactly one is needed "
            "(deactivate the others with obj.deactivate())")
    obj_deg = objectives[0].expr.polynomial_degree()
    con_deg = 0
    for c in model.component_data_objects(pyo.Constraint, active=True, descend_into=True):
        d = c.body.polynomial_degree()
        if d is None:
            con_deg = None
            break
        con_deg = max(con_deg, d)
    if obj_deg is None or con_deg is None or obj_deg > 2 or con_deg > 2:
        return ProblemClass.MINLP if integer else ProblemClass.NLP
    if con_deg == 2:
        # Quadratic constraints: their convexity is not visible from the syntax. Declare
        # SOCP/MISOCP on models whose quadratic constraints are cones; otherwise (MI)NLP.
        return ProblemClass.MINLP if integer else ProblemClass.NLP
    if obj_deg == 2:
        return ProblemClass.MIQP if integer else ProblemClass.QP
    return ProblemClass.MILP if integer else ProblemClass.LP


def _classify_cvxpy(problem: Any) -> ProblemClass:
    from cvxpy.constraints import PSD, ExpCone

    integer = problem.is_mixed_integer()
    names = {a.__name__ for a in problem.atoms()}
    psd = any(isinstance(c, PSD) for c in problem.constraints) or any(
        v.attributes.get("PSD") or v.attributes.get("NSD") for v in problem.variables())
    if psd or names & _SDP_ATOMS:
        if integer:
            raise ModelClassError("mixed-integer SDPs are not supported by any backend here; "
                                  "relax the integers or use an SDP relaxation")
        return ProblemClass.SDP
    if any(isinstance(c, ExpCone) for c in problem.constraints) or names & _EXP_ATOMS:
        if integer:
            return ProblemClass.MINLP
        return ProblemClass.EXP
    if problem.is_lp():
        return ProblemClass.MILP if integer else ProblemClass.LP
    if problem.is_qp():
        return ProblemClass.MIQP if integer else ProblemClass.QP
    return ProblemClass.MISOCP if integer else ProblemClass.SOCP
