"""``sparsekm solve minmax-fs``: paper E, min-max feature weighting for the Gaussian-kernel SVM.

Without ``--gamma0``, Algorithm 1's 5-fold CV over the paper's (C, gamma) grid chooses C and
the start gamma_j = gamma (a given ``--C`` fixes C in that CV); with ``--gamma0 G`` the start is
gamma_j = G for every j and C is ``--C`` (default 1). JSON: ``objective`` = value of (14) at
the returned gamma, ``gamma`` (one weight per feature), ``selected`` = features with
gamma_j > 1e-4 max(gamma), train/test accuracies of the SVM at gamma and of the NO-FS start,
``kkt_residual`` of (20) at the returned point (its parts in ``kkt``), ``lower_bound`` only
from ``--method scip`` (a certified bound on (14)).

``--outer-folds K`` runs paper E's protocol (Section 4.2) instead, as one run: K stratified
outer folds of the whole data (seeded), on each the scaling and Algorithm 1 on the other
K - 1 folds and predictions on the held-out one; ``test_accuracy`` and ``nofs_test_accuracy``
are pooled over the folds (Table 2), ``objective`` is the mean (14), ``selected`` the
features selected in every fold, ``folds`` the per-fold details.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from sparsekm import declare
from sparsekm.declare import ParamError
from sparsekm.specs import PENALTY

from .command import Command, register_command
from .data import accuracy, load_data, prepare, ready
from .payload import payload_from, result_payload
from .resolve import Call

PROBLEM = "minmax-fs"


def _ties() -> tuple[str, ...]:
    from sparsekm.algorithms.minmax_fs.cv import TIES

    return TIES


@dataclass(frozen=True)
class MinMaxRun:
    """Algorithm 1's start and paper E's protocol."""

    C: float | None = declare.field(None, PENALTY, help="SVM penalty C (default: chosen by "
                                    "Algorithm 1's CV; 1 with --gamma0).")
    cv_folds: int = declare.field(5, "Folds of Algorithm 1's CV (paper: 5).", ge=2, le=100)
    cv_tie: str = declare.field("largest-C", "The CV's rule among equal accuracies: "
                                "largest-C (default), smallest-C (scikit-learn's), "
                                "smallest-gamma.", choices=_ties)
    starts: int = declare.field(1, "Route starts: gamma_ini, then x0.1, x10, x0.01, ...; the "
                                "lowest (14) wins (paper: 1).", ge=1, le=100)
    outer_folds: int = declare.field(0, "Run paper E's Section 4.2 protocol with this many "
                                     "outer folds (paper: 10), accuracies pooled over the "
                                     "held-out folds; 0: one fit.", ge=0, le=100)


def _nofs_scores(train: Any, nofs: tuple, gamma: float, *others: Any) -> list[float]:
    """Accuracy of the NO-FS SVM ``nofs = (alpha, b)`` (gamma_j = gamma) on train and each of
    ``others``."""
    from sparsekm.algorithms.minmax_fs.cv import decision_values

    g = np.full(train.n, float(gamma))
    alpha, b = nofs
    return [accuracy(decision_values(train.X, train.y, alpha, b, g, d.X), d.y)
            for d in (train, *others)]


def _start(call: Call, options: dict[str, Any]) -> Any:
    from sparsekm.algorithms.minmax_fs.algorithm1 import Start

    own = call.own
    return Start(C=own["C"], gamma0=options.pop("gamma0", None), folds=own["cv_folds"],
                 seed=call.opts.seed, tie=own["cv_tie"], starts=own["starts"])


def _protocol(call: Call, start: Any, options: dict[str, Any]) -> dict[str, Any]:
    """Paper E's Section 4.2 protocol on the whole data set, as one payload (see above)."""
    from sparsekm.algorithms.minmax_fs.cv import C_GRID, GAMMA_GRID
    from sparsekm.algorithms.minmax_fs.outer_folds import pooled, run_protocol
    from sparsekm.models.minmax_fs import MinMaxFSProblem

    opts, outer, method = call.opts, call.own["outer_folds"], call.choice
    if opts.test_size > 0:
        raise ParamError("outer_folds", outer, "the outer folds hold out each fold in turn: "
                         "drop --test-size")
    ds = load_data(opts)
    call.build(MinMaxFSProblem, ds.X, ds.y, C=1.0 if start.C is None else start.C)
    ready()          # a grid's dry run stops here, before the nested CV
    t0 = time.perf_counter()
    grids = ((C_GRID if start.C is None else (float(start.C),)),
             (GAMMA_GRID if start.gamma0 is None else (float(start.gamma0),)))
    C2, p = call.problem["C2"], call.problem["p"]
    folds = run_protocol(ds.X, ds.y, C2_grid=(C2,), p=p, methods=(method,),
                         options={"outer": outer, "inner": start.folds, "seed": opts.seed,
                                  "time_limit": opts.time_limit, "solver": opts.solver,
                                  "curves": False, "grids": grids, "scale": opts.scale,
                                  "tie": start.tie, "starts": start.starts,
                                  "method_options": {method: options}})
    out = pooled(folds, method, C2)
    statuses = out.pop("statuses")
    status = statuses[0] if len(set(statuses)) == 1 else "feasible"
    return result_payload(problem=PROBLEM, method=method, solver=None, ds=ds,
                          params=call.params(), status=status, termination="converged",
                          objective=out.pop("objective"), selected=out.pop("selected"),
                          time_s=time.perf_counter() - t0, outer_folds=outer,
                          selected_rule="gamma_j > 1e-4 max(gamma) in every outer fold", **out)


def run_solve(call: Call) -> dict[str, Any]:
    """Algorithm 1 (or a given start) and the chosen route; the JSON payload."""
    from sparsekm.algorithms.minmax_fs.algorithm1 import algorithm1, predict_scores
    from sparsekm.algorithms.minmax_fs.common import SELECT_REL
    from sparsekm.models.minmax_fs import MinMaxFSProblem

    options = dict(call.options)
    start = _start(call, options)
    if call.own["outer_folds"]:
        return _protocol(call, start, options)
    if start.gamma0 is not None and start.C is None:
        start = dataclasses.replace(start, C=1.0)
    split = prepare(call.opts)
    tr, te = split.train, split.test
    call.build(MinMaxFSProblem, tr.X, tr.y, C=start.C or 1.0)    # validates C2, p
    plan = call.solver_plan()
    ready()
    res = algorithm1(tr.X, tr.y, C2=call.problem["C2"], p=call.problem["p"],
                     method=call.choice, plan=plan, start=start, method_options=options)
    C_used, g_start = res.extra["C"], res.extra["cv"]["gamma"]
    acc = {"train_accuracy": accuracy(predict_scores(tr.X, tr.y, res, tr.X), tr.y)}
    if te is not None:
        acc["test_accuracy"] = accuracy(predict_scores(tr.X, tr.y, res, te.X), te.y)
    nofs = _nofs_scores(tr, res.extra.pop("nofs_svm"), g_start,
                        *([te] if te is not None else []))
    acc["nofs_train_accuracy"] = nofs[0]
    if te is not None:
        acc["nofs_test_accuracy"] = nofs[1]
    kkt = res.extra["kkt"]
    return payload_from(
        res, problem=PROBLEM, method=call.choice, ds=split.ds, params=call.params(),
        gamma=np.asarray(res.gamma), selected_threshold=f"gamma_j > {SELECT_REL:g} max(gamma)",
        C_used=C_used, gamma_start=g_start, cv_accuracy=res.extra["cv"]["cv_accuracy"],
        start_objective=res.extra["start_objective"], kkt_residual=kkt["kkt_residual"],
        kkt=kkt, returned_start=res.extra["returned_start"], **acc)


SOLVE = register_command(Command(
    "solve", PROBLEM, run_solve, "Min-max feature weighting (paper E, problem (14)): gamma, "
    "selected features, accuracy.", own=MinMaxRun, exclude=("C",),
    run_defaults=(("scale", "minmax11"),)))
