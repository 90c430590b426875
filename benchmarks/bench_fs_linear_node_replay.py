"""Replay a fixed set of colorectal B = 20 tree nodes with each node solver: CPU per node, the
bound, the decision (pruned or branched).

Node rate is what certifies wide data (the long-trees benchmark: the bound rises by about
0.004 per doubling of the nodes on colorectal B = 20), so each node form is measured on the
same nodes, in one process:

    python benchmarks/bench_fs_linear_node_replay.py record   # grow a tree, keep 2,100 nodes
    python benchmarks/bench_fs_linear_node_replay.py replay   # solve them with each form
    python benchmarks/bench_fs_linear_node_replay.py report   # the table from the JSON
    python benchmarks/bench_fs_linear_node_replay.py compare --against REV   # node by node

``record`` runs ``bnb`` (default options, one process, ``--seconds`` of tree) on colorectal
(the CLI's standard scaling), B = 20, C = 1, and keeps 700 nodes from the root side (the
first bounded), 700 from the middle and 700 from the end of the run, each as it reached the
node solver: F1, the free set, the budget left, the parent's multipliers, the cutoff (the
incumbent's, less the tolerance) and the inherited bound. They are stored in
``results/fs_linear_node_replay_nodes.npz`` (committed). The parent's working set is not
kept (the active-set form does not use one): every form starts from the features within
0.8 of the k-th |s_j| at the parent's multipliers plus the k + 30 largest.

``replay`` solves every node with each form (``perspective``: the interior point with column
generation; ``perspective-active``: the active-set engine; ``first-order``: the FISTA trial
of ``node_first_order.py`` at two iteration budgets), interleaved node by node, each solve
timed by ``time.process_time`` (the best of ``--repeat`` runs). Each bound is checked
against the node relaxation's primal value at the active-set solution
(:func:`~sparsekm.relaxations.fs_linear.node_active.relaxation_primal`): an upper bound on
the node's true value, so a bound above it would be wrong. The decision of a form is
"pruned" when its bound reaches the node's cutoff. Results go to
``results/fs_linear_node_replay.json`` (per node, resumable) and ``.md``.

``compare`` sets the replay beside the one committed at git revision ``--against`` (an
engine change that should keep the arithmetic): for the active-set form, the nodes with the
same pivots and status and the largest bound difference; for both forms, the CPU ratio.
Results go to ``results/fs_linear_node_replay_compare.md`` and ``.json``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time

import numpy as np
from node_first_order import first_order_node
from results_io import OUT, write_results

NODES = OUT / "fs_linear_node_replay_nodes.npz"
RESULT = OUT / "fs_linear_node_replay.json"
PER_PHASE = 700
FORMS = ("perspective", "perspective-active", "first-order-100", "first-order-400")


def problem():
    from sparsekm.data import Scaler, load_dataset
    from sparsekm.models.fs_linear import FSLinearProblem

    ds = load_dataset("colorectal")
    X = Scaler("standard").fit(ds.X).transform(ds.X)
    return FSLinearProblem(X, ds.y.astype(float), B=20, C=1.0)


def record(seconds: float) -> None:
    """Grow the default tree for ``seconds`` (one process) and keep 3 x PER_PHASE nodes."""
    from sparsekm.algorithms.fs_linear import solve_fs_linear
    from sparsekm.algorithms.fs_linear.bnb import LinearTree
    from sparsekm.solvers import SolverPlan

    p = problem()
    seen: list[tuple] = []
    process = LinearTree.process

    def spy(self, work, node, bound, ub, deadline):
        free = np.flatnonzero(np.unpackbits(node["free"], count=p.n).astype(bool))
        if 0 < int(node["k"]) < free.size and node.get("alpha") is not None:
            seen.append((node["F1"].astype(np.int32), node["free"], int(node["k"]),
                         np.asarray(node["alpha"], float), float(self.cutoff(ub)),
                         float(bound), int(node.get("depth", 0))))
        return process(self, work, node, bound, ub, deadline)

    LinearTree.process = spy
    try:
        res = solve_fs_linear(p, "bnb", SolverPlan(time_limit=seconds))
    finally:
        LinearTree.process = process
    n = len(seen)
    mid = n // 2
    keep = list(range(PER_PHASE)) + list(range(mid - PER_PHASE // 2, mid + PER_PHASE // 2)) \
        + list(range(n - PER_PHASE, n))
    phase = ["root"] * PER_PHASE + ["middle"] * PER_PHASE + ["end"] * PER_PHASE
    rows = [seen[i] for i in keep]
    F1 = [r[0] for r in rows]
    np.savez_compressed(
        NODES, F1_len=np.array([f.size for f in F1]), F1=np.concatenate(F1),
        free=np.stack([r[1] for r in rows]), k=np.array([r[2] for r in rows]),
        alpha=np.stack([r[3] for r in rows]), cutoff=np.array([r[4] for r in rows]),
        inherited=np.array([r[5] for r in rows]), depth=np.array([r[6] for r in rows]),
        order=np.array(keep), phase=np.array(phase), tree_nodes=np.array(n),
        tree_bound=np.array(res.lower_bound), tree_objective=np.array(res.objective))
    print(f"kept {len(rows)} of {n} nodes; tree bound {res.lower_bound:.5f}")


def load_nodes(n: int) -> list[dict]:
    z = np.load(NODES)
    starts = np.concatenate([[0], np.cumsum(z["F1_len"])])
    out = []
    for i in range(z["k"].size):
        out.append({"F1": z["F1"][starts[i]:starts[i + 1]].astype(int),
                    "free": np.flatnonzero(np.unpackbits(z["free"][i], count=n)),
                    "k": int(z["k"][i]), "alpha": z["alpha"][i], "cutoff": float(z["cutoff"][i]),
                    "phase": str(z["phase"][i]), "depth": int(z["depth"][i])})
    return out


def _start_set(Qt: np.ndarray, node: dict) -> np.ndarray:
    s = np.abs(Qt[node["free"]] @ node["alpha"])
    k = node["k"]
    thr = np.partition(s, s.size - k)[s.size - k]
    cut = min(0.8 * thr, np.partition(s, s.size - k - 30)[s.size - k - 30])
    return node["free"][s >= cut]


def _timed(fn, repeat: int):
    best, out = np.inf, None
    for _ in range(repeat):
        c0 = time.process_time()
        out = fn()
        best = min(best, time.process_time() - c0)
    return best, out


def replay(repeat: int, limit: int | None) -> None:
    """Solve every node with each form (resumable: nodes already in the JSON are skipped)."""
    from sparsekm.engines.node_active import repair
    from sparsekm.registry import get
    from sparsekm.relaxations.fs_linear.node_active import relaxation_primal, scaled_rows
    from sparsekm.relaxations.fs_linear.node_form import NodeTask
    from sparsekm.solvers import SolverPlan

    p = problem()
    Qt = scaled_rows(p)
    nodes = load_nodes(p.n)
    done = json.loads(RESULT.read_text()) if RESULT.exists() else []
    forms = {name: get("fs-linear", "relaxation", name).node for name in FORMS[:2]}
    plan = SolverPlan()
    for form in forms.values():                 # load the compiled code before timing
        nd = nodes[0]
        form.solve(p, plan, NodeTask(nd["F1"], nd["free"], nd["k"], alpha0=nd["alpha"]))
    first_order_node(Qt, p.y, p.C, (nodes[0]["F1"], nodes[0]["free"], nodes[0]["k"]),
                     nodes[0]["alpha"], 5)
    todo = range(len(done), len(nodes) if limit is None else min(len(nodes), limit))
    for i in todo:
        nd = nodes[i]
        W0 = _start_set(Qt, nd)
        task = NodeTask(nd["F1"], nd["free"], nd["k"], cutoff=nd["cutoff"], W0=W0,
                        alpha0=nd["alpha"])
        row = {"i": i, "phase": nd["phase"], "depth": nd["depth"], "cutoff": nd["cutoff"]}
        sols = {}
        for name, form in forms.items():
            cpu, sol = _timed(lambda f=form, t=task: f.solve(p, plan, t), repeat)
            sols[name] = sol
            row[name] = {"cpu": cpu, "bound": sol.bound, "status": sol.status,
                         "pivots": sol.info.get("pivots")}
        for iters in (100, 400):
            cpu, (bound, _) = _timed(lambda it=iters, d=nd: first_order_node(
                Qt, p.y, p.C, (d["F1"], d["free"], d["k"]),
                repair(d["alpha"], p.y, p.C), it), repeat)
            row[f"first-order-{iters}"] = {"cpu": cpu, "bound": bound}
        row["primal"] = relaxation_primal(p, task, sols["perspective-active"])
        done.append(row)
        if (i + 1) % 50 == 0 or i == todo[-1]:
            RESULT.write_text(json.dumps(done))
            print(f"{i + 1} nodes replayed", flush=True)
    RESULT.write_text(json.dumps(done))


def summary(rows: list[dict]) -> list[dict]:
    """Per form and phase: CPU per node (mean, median, p90), bound agreement with the
    interior point, decisions as the interior point's, bounds above the primal value."""
    out = []
    for phase in ("root", "middle", "end", "all"):
        sel = [r for r in rows if phase == "all" or r["phase"] == phase]
        if not sel:
            continue
        ref = np.array([r["perspective"]["bound"] for r in sel])
        cut = np.array([r["cutoff"] for r in sel])
        primal = np.array([r["primal"] for r in sel])
        ipm_cpu = np.array([r["perspective"]["cpu"] for r in sel])
        for name in FORMS:
            cpu = np.array([r[name]["cpu"] for r in sel])
            b = np.array([r[name]["bound"] for r in sel])
            scale = np.maximum(np.abs(ref), 1e-12)
            out.append({
                "phase": phase, "form": name, "nodes": len(sel),
                "cpu_mean_ms": 1e3 * cpu.mean(), "cpu_median_ms": 1e3 * np.median(cpu),
                "cpu_p90_ms": 1e3 * np.quantile(cpu, 0.9),
                "cpu_ratio_to_ipm": ipm_cpu.sum() / cpu.sum(),
                "bound_vs_ipm_median": float(np.median((b - ref) / scale)),
                "bound_vs_ipm_min": float(np.min((b - ref) / scale)),
                "within_1e-6": float(np.mean(np.abs(b - ref) <= 1e-6 * scale)),
                "same_decision": float(np.mean((b >= cut) == (ref >= cut))),
                "pruned": float(np.mean(b >= cut)),
                "above_primal": int(np.sum(b > primal + 1e-9 * np.abs(primal))),
                "max_above_primal": float(np.max(b - primal)),
            })
    return out


def report() -> None:
    rows = json.loads(RESULT.read_text())
    z = np.load(NODES)
    table = summary(rows)
    lines = ["# Node solvers on a fixed set of colorectal B = 20 nodes", "",
             "Produced by `benchmarks/bench_fs_linear_node_replay.py` (record, replay, report). "
             f"{len(rows)} nodes of a `bnb` tree on colorectal (62 x 2000), B = 20, C = 1 "
             f"({int(z['tree_nodes']):,} nodes bounded when it was recorded; 700 from the root "
             "side, 700 from the middle, 700 from the end), each solved by every form in one "
             "process, from the parent's multipliers, timed by `time.process_time`. "
             "`within 1e-6`: bound within 1e-6 (relative) of the interior point's; `same "
             "decision`: pruned (bound >= the node's cutoff) or branched as with the interior "
             "point; `above primal`: bounds above the relaxation's primal value at the "
             "active-set solution (an upper bound on the node's true value; 0 is required); "
             "`max above primal`: the largest bound minus that value.", "",
             "| phase | form | nodes | CPU ms mean | median | p90 | IPM CPU / form CPU | "
             "bound vs IPM (median rel.) | worst | within 1e-6 | same decision | pruned | "
             "above primal | max above primal |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in table:
        lines.append(
            f"| {r['phase']} | {r['form']} | {r['nodes']} | {r['cpu_mean_ms']:.3f} | "
            f"{r['cpu_median_ms']:.3f} | {r['cpu_p90_ms']:.3f} | {r['cpu_ratio_to_ipm']:.1f} | "
            f"{r['bound_vs_ipm_median']:.1e} | {r['bound_vs_ipm_min']:.1e} | "
            f"{100 * r['within_1e-6']:.1f} % | {100 * r['same_decision']:.2f} % | "
            f"{100 * r['pruned']:.1f} % | {r['above_primal']} | {r['max_above_primal']:.1e} |")
    write_results("fs_linear_node_replay_summary", lines, table)


def compare(rev: str) -> None:
    """The replay node by node beside the one at git revision ``rev`` (module docstring)."""
    path = RESULT.relative_to(OUT.parent.parent).as_posix()
    old = json.loads(subprocess.run(["git", "show", f"{rev}:{path}"], capture_output=True,
                                    check=True, text=True, cwd=OUT).stdout)
    new = json.loads(RESULT.read_text())
    if len(old) != len(new):
        raise SystemExit(f"{len(new)} nodes here, {len(old)} at {rev}: replay all nodes first")
    act = [(o["perspective-active"], n["perspective-active"]) for o, n in zip(old, new)]
    cpu = {f: (sum(o[f]["cpu"] for o in old), sum(n[f]["cpu"] for n in new)) for f in FORMS[:2]}
    out = {"against": rev, "nodes": len(new),
           "same_pivots": sum(o["pivots"] == n["pivots"] for o, n in act),
           "same_status": sum(o["status"] == n["status"] for o, n in act),
           "bounds_differ": sum(o["bound"] != n["bound"] for o, n in act),
           "max_bound_diff": max(abs(o["bound"] - n["bound"]) for o, n in act),
           **{f"cpu_ms_{f}": [1e3 * c / len(new) for c in cpu[f]] for f in cpu}}
    lines = ["# The node replay beside an earlier one", "",
             "Produced by `benchmarks/bench_fs_linear_node_replay.py compare --against "
             f"{rev}`: this replay's {out['nodes']:,} nodes beside those committed at "
             f"`{rev}`.", "", "| figure | value |", "|---|---|",
             f"| active-set form: same pivots | {out['same_pivots']:,} of {out['nodes']:,} |",
             f"| active-set form: same status | {out['same_status']:,} of {out['nodes']:,} |",
             f"| active-set form: bounds that differ | {out['bounds_differ']:,} |",
             f"| active-set form: largest bound difference | {out['max_bound_diff']:.1e} |"]
    lines += [f"| {f}: CPU ms per node, then / now | {a:.3f} / {b:.3f} |"
              for f, (a, b) in ((f, out[f"cpu_ms_{f}"]) for f in cpu)]
    write_results("fs_linear_node_replay_compare", lines, out)
    print("\n".join(lines))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("step", choices=("record", "replay", "report", "compare"))
    ap.add_argument("--against", default="HEAD", help="compare: the git revision")
    ap.add_argument("--seconds", type=float, default=300.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--limit", type=int, default=None)
    args = ap.parse_args()
    if args.step == "record":
        record(args.seconds)
    elif args.step == "replay":
        replay(args.repeat, args.limit)
    elif args.step == "compare":
        compare(args.against)
    else:
        report()


if __name__ == "__main__":
    main()
