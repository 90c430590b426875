"""``sparsekm path fs-linear``: paper D's FS-SVM (2) for a range of budgets B (and penalties C).

One warm-started path (:func:`sparsekm.algorithms.fs_linear.path.fs_linear_path`): budget B + 1
starts from the support of B plus its best-ranked feature, so the objective never increases
with B. JSON: one object whose ``entries`` hold, per (C, B), the support, the objective, the
certified lower bound, train accuracy, test accuracy (with ``--test-size``) and, with
``--bound``, the perspective bound (relaxation ``perspective-dual``) and its gap.
"""

from __future__ import annotations

import time
from typing import Annotated, Any

import numpy as np
import typer

from sparsekm import registry

from . import common as c

PROBLEM = "fs-linear"
COMMAND_GROUP = typer.Typer(name="path", no_args_is_help=True,
                            help="A warm-started path of a problem over its budget.")


def parse_budgets(text: str, n: int) -> list[int]:
    """``"1:30"`` (inclusive), ``"1:30:2"`` (step), ``"5,10,20"`` or ``"10"`` -> budgets."""
    try:
        if ":" in text:
            parts = [int(t) for t in text.split(":")]
            if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] < 1):
                raise ValueError
            lo, hi = parts[0], parts[1]
            out = list(range(lo, hi + 1, parts[2] if len(parts) == 3 else 1))
        else:
            out = [int(t) for t in text.split(",")]
    except ValueError:
        raise c.CLIError(f"--B {text!r}: use a range LO:HI[:STEP] (e.g. 1:30) or a list "
                         "(e.g. 5,10,20)") from None
    if not out or min(out) < 1 or max(out) > n:
        raise c.CLIError(f"--B {text}: budgets must lie between 1 and the number of features "
                         f"n = {n}")
    return sorted(set(out))


def parse_penalties(text: str) -> list[float]:
    """``"1"`` or ``"0.1,1,10"`` -> penalties C > 0."""
    try:
        out = [float(t) for t in text.split(",")]
    except ValueError:
        raise c.CLIError(f"--C {text!r}: use a number or a list such as 0.1,1,10") from None
    if not out or not all(np.isfinite(C) and C > 0 for C in out):
        raise c.CLIError(f"--C {text}: every penalty must be a finite number > 0")
    return out


@c.runner("path", PROBLEM)
def run(opts: c.RunOptions, **params: Any) -> dict[str, Any]:
    """The path of FS-SVM (2): the JSON payload of ``sparsekm path fs-linear``."""
    from sparsekm.algorithms.fs_linear.path import fs_linear_path
    from sparsekm.algorithms.fs_linear.swap import SwapOptions
    from sparsekm.solvers import SolverPlan

    split = c.prepare(opts)
    tr = split.train
    Bs = parse_budgets(str(params["B"]), tr.n)
    Cs = parse_penalties(str(params["C"]))
    plan = SolverPlan(time_limit=opts.time_limit, relax_solver=opts.solver)
    load_s = registry.load_compiled(registry.get(PROBLEM, "method", "fast"))
    t0 = time.perf_counter()
    rows = fs_linear_path(tr.X, tr.y.astype(float), Bs, Cs, plan=plan,
                          options=SwapOptions(candidates=params.get("candidates", 40)),
                          cold=params.get("cold", True), bound=params.get("bound", False))
    entries = []
    for row in rows:
        w, b = row.pop("w"), row.pop("b")
        row["selected_names"] = [tr.feature_names[j] for j in row["selected"]]
        row["w_selected"] = [float(w[j]) for j in row["selected"]]
        row["b"] = b
        row["train_accuracy"] = c.accuracy(tr.X @ w + b, tr.y)
        if split.test is not None:
            row["test_accuracy"] = c.accuracy(split.test.X @ w + b, split.test.y)
        entries.append(row)
    missing = len(Bs) * len(Cs) - len(entries)
    status = "time_limit" if missing else "feasible"
    payload = c.result_payload(
        problem=PROBLEM, method="fast-path", ds=split.ds,
        params={"B": Bs, "C": Cs, **{k: v for k, v in params.items() if k not in ("B", "C")},
                **opts.params()},
        status=status, time_s=time.perf_counter() - t0, load_s=load_s, entries=entries,
        equation="paper D, FS-SVM (2); warm-started swap search per B")
    for key in ("objective", "lower_bound", "gap", "selected", "selected_names"):
        payload.pop(key, None)   # per entry, not one value
    if missing:
        payload["message"] = (f"the time limit stopped the path after {len(entries)} of "
                              f"{len(Bs) * len(Cs)} entries; raise --time-limit")
    return payload


@COMMAND_GROUP.command("fs-linear")
def path_fs_linear_cmd(
    data: c.DataOpt = c.DEFAULT_DATA, label: c.LabelOpt = "label", scale: c.ScaleOpt = "standard",
    rows: c.RowsOpt = None, seed: c.SeedOpt = 0,
    solver: Annotated[str | None, typer.Option(
        "--solver", help="Solver of the perspective relaxation (--bound).")] = None,
    time_limit: c.TimeLimitOpt = None, test_size: c.TestSizeOpt = 0.0,
    json_out: c.JsonOpt = False,
    B: Annotated[str, typer.Option(
        "--B", help="Budgets: LO:HI[:STEP] (inclusive) or a list 5,10,20.")] = "1:10",
    C: Annotated[str, typer.Option("--C", help="Penalty C > 0, or a list 0.1,1,10.")] = "1",
    bound: Annotated[bool, typer.Option(
        "--bound", help="Also the perspective bound per B (relaxation perspective-dual).")
    ] = False,
    cold: Annotated[bool, typer.Option(
        "--cold/--warm-only", help="Also search from the top B of the full SVM per B.")] = True,
    candidates: Annotated[int, typer.Option(
        "--candidates", help="Outside features tried per swap step.")] = 40,
) -> None:
    """Linear SVM with at most B features (paper D) for every B: one warm-started path."""
    opts = c.RunOptions(data, label, scale, rows, seed, solver, time_limit, test_size)
    if candidates < 1:
        raise typer.BadParameter("--candidates must be >= 1")
    c.run_command(run, opts, json_out, B=B, C=C, bound=bound, cold=cold,
                  candidates=candidates)
