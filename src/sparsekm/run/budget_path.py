"""``sparsekm path fs-linear``: paper D's FS-SVM (2) for a range of budgets B (and penalties C).

One path (:func:`sparsekm.algorithms.fs_linear.budget_path.fs_linear_path`): ``fast`` at every
(B, C), then every support found re-solved wherever it fits, so each entry is at or below ``fast``
at its (B, C), the objective never increases with B and never decreases with C. JSON: one object
whose ``entries`` hold, per (C, B), the support, the objective, the
certified lower bound, train accuracy, test accuracy (with ``--test-size``) and, with
``--bound``, the perspective bound (relaxation ``perspective-dual``) and its gap.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from sparsekm import declare, registry
from sparsekm.declare import ParamError

from .command import Command, register_command
from .data import accuracy, prepare, ready
from .errors import UserError
from .payload import result_payload
from .resolve import Call

PROBLEM = "fs-linear"


@dataclass(frozen=True)
class PathRun:
    """The budgets and penalties of the path, and how it searches."""

    B: str = declare.field("1:10", "Budgets: LO:HI[:STEP] (inclusive) or a list 5,10,20.")
    C: str = declare.field("1", "Penalty C > 0, or a list 0.1,1,10.")
    bound: bool = declare.field(False, "Also the perspective bound per B (relaxation "
                                "perspective-dual).")
    cold: bool = declare.field(True, "Run fast at every (B, C); --warm-only: one swap search "
                               "per B from the previous support instead (faster, not "
                               "checked against fast).", flag="--cold/--warm-only")
    candidates: int = declare.field(40, "Outside features tried per swap step.", ge=1,
                                    le=100_000)


def parse_budgets(text: str, n: int) -> list[int]:
    """``"1:30"`` (inclusive), ``"1:30:2"`` (step), ``"5,10,20"`` or ``"10"`` -> budgets."""
    try:
        if ":" in text:
            parts = [int(t) for t in text.split(":")]
            if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] < 1):
                raise ValueError
            out = list(range(parts[0], parts[1] + 1, parts[2] if len(parts) == 3 else 1))
        else:
            out = [int(t) for t in text.split(",")]
    except ValueError:
        raise ParamError("B", text, "use a range LO:HI[:STEP] (e.g. 1:30) or a list (e.g. "
                                    "5,10,20)") from None
    if not out or min(out) < 1 or max(out) > n:
        raise ParamError("B", text, f"budgets must lie between 1 and the number of features "
                                    f"n = {n}")
    return sorted(set(out))


def parse_penalties(text: str) -> list[float]:
    """``"1"`` or ``"0.1,1,10"`` -> penalties C, each checked like the problem's C."""
    from sparsekm.models.fs_linear import FSLinearProblem
    from sparsekm.models.problem import declared

    C = declared(FSLinearProblem)["C"]
    try:
        return [C.check(t) for t in text.split(",")]
    except ParamError as exc:
        raise ParamError("C", text, exc.allowed) from None


SVM_ENGINE = "sparsekm linear-svm ipm"    # fast's SVM solves (the JSON of solve ... fast)


def run_path(call: Call) -> dict[str, Any]:
    """The path of FS-SVM (2): the JSON payload of ``sparsekm path fs-linear``."""
    from sparsekm.algorithms.fs_linear.budget_path import fs_linear_path
    from sparsekm.algorithms.fs_linear.swap import SwapOptions

    own = call.own
    split = prepare(call.opts)
    tr = split.train
    Bs, Cs = parse_budgets(own["B"], tr.n), parse_penalties(own["C"])
    if call.opts.solver and not own["bound"]:
        raise UserError(f"--solver {call.opts.solver}: path fs-linear runs fast at every "
                        f"point on its own engine ({SVM_ENGINE}); --solver solves only the "
                        "perspective bounds of --bound")
    ready()
    plan = call.solver_plan(relax_solver=call.opts.solver)
    load_s = registry.load_compiled(registry.get(PROBLEM, "method", "fast"))
    t0 = time.perf_counter()
    fast = {} if own["candidates"] == SwapOptions().candidates else \
        {"candidates": own["candidates"]}
    rows = fs_linear_path(tr.X, tr.y.astype(float), Bs, Cs, plan=plan, cold=own["cold"],
                          bound=own["bound"], fast=fast)
    entries = []
    for row in rows:
        w, b = row.pop("w"), row.pop("b")
        row["selected_names"] = [tr.feature_names[j] for j in row["selected"]]
        row["w_selected"] = [float(w[j]) for j in row["selected"]]
        row["b"] = b
        row["train_accuracy"] = accuracy(tr.X @ w + b, tr.y)
        if split.test is not None:
            row["test_accuracy"] = accuracy(split.test.X @ w + b, split.test.y)
        entries.append(row)
    missing = len(Bs) * len(Cs) - len(entries)
    payload = result_payload(
        problem=PROBLEM, method="fast-path", ds=split.ds,
        params={**call.params(), "B": Bs, "C": Cs}, status="feasible" if entries else "error",
        termination="time_limit" if missing else "converged", time_s=time.perf_counter() - t0,
        load_s=load_s, entries=entries, equation="paper D, FS-SVM (2); fast per (B, C), "
        "supports pooled over the path")
    for key in ("objective", "lower_bound", "gap", "gap_tol", "selected", "selected_names"):
        payload.pop(key, None)   # per entry, not one value
    payload["solvers"] = {"svm": SVM_ENGINE}
    bound_solvers = sorted({str(e.pop("bound_solver")) for e in entries if "bound_solver" in e})
    if bound_solvers:
        payload["solvers"]["bound"] = ", ".join(bound_solvers)
    if missing:
        payload["message"] = (f"the time limit stopped the path after {len(entries)} of "
                              f"{len(Bs) * len(Cs)} entries; raise --time-limit")
    return payload


PATH = register_command(Command(
    "path", PROBLEM, run_path, "Linear SVM with at most B features (paper D) for every B (and C): "
    "fast at each point, supports pooled, monotone.", kind=None, own=PathRun, problem_params=False))
