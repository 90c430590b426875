"""Paper A's Ipopt baseline (Section 5.2): the relaxation of (4) with beta in [0, 1] from a
start mask, rounded to the B largest beta_j. Paper sense only (see :mod:`.minlp`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from sparsekm.declare import Annotated
from sparsekm.models.fs_kernel import FSKernelProblem
from sparsekm.models.fs_kernel.specs import BETA_IN
from sparsekm.registry import Part, register, uses_solvers
from sparsekm.relaxations.fs_kernel.continuous import NLP_FORM, continuous
from sparsekm.solvers import Result, SolveFailedError, SolverPlan
from sparsekm.specs import SEED

from .evaluator import Evaluator, mask_result
from .local_search import start_mask
from .minlp import paper_sense_only, round_top_B
from .specs import SVM_DUALS

DEFAULT_TIME_LIMIT = 1800.0


@register("fs-kernel", "method", "relax-round", paper="A", ref="Section 5.2 (Ipopt baseline)")
@uses_solvers(relaxation=Part("relaxation of (4) with beta in [0, 1]", ("solver",),
                              classes=("NLP",)),
              svm=SVM_DUALS)
def relax_round(problem: FSKernelProblem, plan: SolverPlan, *,
                beta_in: Annotated[Any, BETA_IN] = None, seed: Annotated[int, SEED] = 0,
                form: Annotated[str, NLP_FORM] = "auto") -> Result:
    """Relaxation of (4) with beta in [0, 1] (local NLP solve), then the B largest beta_j.

    ``beta_in`` (default: the seeded random mask) is the NLP's start; ``form`` picks the
    callback or the Pyomo form of the relaxation (see
    :func:`sparsekm.relaxations.fs_kernel.continuous.continuous`). ``extra`` holds the relaxed
    beta and whether it was already binary (Paper A observes it usually is).
    """
    paper_sense_only(problem, "relax-round")
    plan = plan.start()
    if not plan.time_limit:
        plan = plan.with_(time_limit=DEFAULT_TIME_LIMIT, deadline=None).start()
    p = problem
    rel = continuous(p, plan, beta_in=start_mask(p, beta_in, seed), form=form)
    if rel.values.get("beta") is None:
        raise SolveFailedError(f"the NLP solver returned no point ({rel.status.value}: "
                               f"{rel.message}); try form='callbacks' or another solver")
    vals = np.clip(np.asarray(rel.values["beta"], dtype=float), 0.0, 1.0)
    beta = round_top_B(vals, p.B)
    alpha, b, obj = Evaluator(p).solve_mask(beta)
    out = mask_result(p, beta, obj, alpha, b, "relax-round", plan.clock)
    out.solver, out.time_s = rel.solver, plan.clock.elapsed()
    out.extra = {"relaxation_objective": rel.objective, "relaxation_status": rel.status.value,
                 "form": rel.extra["form"], "beta_relaxed": vals, "n_evals": 1,
                 "integral": bool(np.all(np.minimum(vals, 1 - vals) < 1e-4))}
    return out
