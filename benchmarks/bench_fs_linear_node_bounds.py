"""Where is ``bnb``'s gap on paper D's wide sets, and the figure of the node-bound study.

``gap``   for colorectal, dlbcl, lymphoma at B = 20, 30, C = 1, 10 (12 instances):
          * the bound's share: the root bound of each node bound (perspective (13), DSCoMP
            (14) and BoxMP (8), the last two with the big-M intervals of the best incumbent);
          * the incumbent's share: a long primal run (``fast`` with 200 perturbed restarts)
            and 6 relaxation-guided dives (fix in the largest relaxed z, re-solve,
            then 1-swaps), against the incumbent of the trees (``trees``);
          * branching: on a sample of nodes (the root and the nodes of a dive), the gains of
            the two children of the fractional rule's feature against the best of strong
            branching over up to 24 fractional candidates.
          Writes ``results/paperD-node-bounds-gap.{md,csv}``.
``trees`` ``bnb`` on 2 workers on the same 12 instances with the branching rules given
          (``--branching fractional,reliability``), ``--tl`` seconds each: certified gap,
          nodes, CPU and the bound trace; ``results/paperD-node-bounds-trees.{md,csv}``.
``costs`` node CPU, driver CPU per node and node message size per node bound and branching
          rule (the engine's scaling model): ``results/paperD-node-bounds-costs.{md,csv}``.
``plot``  the certified gap over time per node bound, from the runs the bench config
          ``configs/paperD_node_bounds*.toml`` stored (their records log):
          ``results/figures/paperD-node-bounds_gap_time.png``.

Every timing is given as wall and CPU seconds with the load average at the end of the run:
the machine has 2 cores shared with other jobs. Usage (from the repository):

    PYTHONPATH=src python benchmarks/bench_fs_linear_node_bounds.py gap
    PYTHONPATH=src python benchmarks/bench_fs_linear_node_bounds.py trees --tl 600
    PYTHONPATH=src python benchmarks/bench_fs_linear_node_bounds.py plot
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402
import csv  # noqa: E402
import gzip  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from sparsekm import registry  # noqa: E402
from sparsekm.data import Scaler, load_dataset  # noqa: E402
from sparsekm.models.fs_linear import FSLinearProblem  # noqa: E402
from sparsekm.solvers import SolverPlan  # noqa: E402

HERE = Path(__file__).resolve().parent
OUT = HERE / "results"
WIDE = [(d, B, C) for d in ("colorectal", "dlbcl", "lymphoma") for B in (20, 30)
        for C in (1.0, 10.0)]


def problem(name: str, B: int, C: float) -> FSLinearProblem:
    """The data as ``sparsekm solve fs-linear --data NAME`` prepares it (standard scaling)."""
    ds = load_dataset(name, missing="drop")
    return FSLinearProblem(Scaler("standard").fit(ds.X).transform(ds.X), ds.y.astype(float),
                           B=B, C=C)


def _clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _since(t: tuple[float, float]) -> tuple[float, float]:
    return round(time.perf_counter() - t[0], 2), round(time.process_time() - t[1], 2)


def write(stem: str, header: str, rows: list[dict], columns: list[str]) -> None:
    """``results/<stem>.csv`` (every field) and ``results/<stem>.md`` (``columns``)."""
    OUT.mkdir(exist_ok=True)
    keys = sorted({k for r in rows for k in r})
    with open(OUT / f"{stem}.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, keys)
        w.writeheader()
        w.writerows(rows)

    def cell(v: object) -> str:
        if isinstance(v, float):
            return f"{v:.4g}" if math.isfinite(v) else str(v)
        return "" if v is None else str(v)

    lines = [header, "", "| " + " | ".join(columns) + " |",
             "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(r.get(c)) for c in columns) + " |" for r in rows]
    (OUT / f"{stem}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


# --- gap -----------------------------------------------------------------------------------

def _root_bounds(p: FSLinearProblem, ub: float) -> dict[str, float]:
    from sparsekm.relaxations.fs_linear.node_form import NodeTask

    out = {}
    for name in ("perspective", "dscomp", "box"):
        form = registry.get("fs-linear", "relaxation", name).node
        ctx = form.prepare(p, SolverPlan(), math.inf)
        t = _clock()
        sol = form.solve(p, SolverPlan(), NodeTask.root(p, ub=ub, context=ctx,
                                                        alpha0=ctx.get("alpha_root")))
        out[f"root_{name}"] = sol.bound
        out[f"root_{name}_s"], out[f"root_{name}_cpu"] = _since(t)
    return out


def _primal(p: FSLinearProblem) -> dict[str, float]:
    fast = registry.get("fs-linear", "method", "fast")
    out: dict[str, float] = {}
    t = _clock()
    vals = [fast(p, SolverPlan(time_limit=600).start(), restarts=200, seed=0).objective]
    out["fast200"] = min(vals)
    out["fast200_s"], out["fast200_cpu"] = _since(t)
    t = _clock()
    out["dive"] = _dives(p, 6)
    out["dive_s"], out["dive_cpu"] = _since(t)
    return out


def _dives(p: FSLinearProblem, count: int) -> float:
    """Relaxation-guided dives: fix in the free feature of largest relaxed z (the first dive)
    or one of the three largest at random (seeded), re-solve, until B are in; 1-swaps after."""
    from sparsekm.algorithms.fs_linear.bnb_heuristics import Incumbent
    from sparsekm.relaxations.fs_linear.node import solve_node

    plan, rng, seen = SolverPlan(), np.random.default_rng(0), {}
    root = solve_node(p, plan, np.zeros(0, int), np.arange(p.n), p.B)
    cand = np.argsort(-root.s2, kind="stable")[:p.B + 40]
    best = math.inf
    for d in range(count):
        F1, free, k, nb = [], np.arange(p.n), p.B, root
        while k > 0 and free.size > k:
            v = np.zeros(p.n)
            v[nb.W] = nb.v
            order = free[np.argsort(-(v[free] + 1e-9 * nb.s2[free]), kind="stable")]
            j = int(order[0] if d == 0 else rng.choice(order[:3]))
            F1.append(j)
            free, k = free[free != j], k - 1
            if k > 0 and free.size > k:
                nb = solve_node(p, plan, np.array(F1), free, k, warm=(nb.W_next, nb.alpha))
        inc = Incumbent(p, plan, math.inf, seen, cand, None, 10)
        inc.offer(F1 + ([int(x) for x in free] if k > 0 else []))
        best = min(best, inc.ub)
    return best


def _branching(p: FSLinearProblem, nodes: int = 6, cands: int = 24) -> dict[str, float]:
    """Children gains of the fractional rule's feature vs the best strong-branching feature,
    at the root and along a dive (geometric means over the sampled nodes)."""
    from sparsekm.relaxations.fs_linear.node import solve_node

    plan = SolverPlan()
    F1, free, k = [], np.arange(p.n), p.B
    nb = solve_node(p, plan, np.zeros(0, int), free, k)
    ratios_min, ratios_prod, frac_min, sb_min = [], [], [], []
    t = _clock()
    for _ in range(nodes):
        v = np.zeros(p.n)
        v[nb.W] = nb.v
        fr = np.minimum(v, 1 - v)
        pool = [int(j) for j in free[np.argsort(-fr[free], kind="stable")[:cands]]
                if fr[j] > 1e-6]
        if len(pool) < 2 or k < 2:
            break
        gains = {}
        for j in pool:
            rest = free[free != j]
            o = solve_node(p, plan, np.array(F1, int), rest, k, warm=(nb.W_next, nb.alpha))
            i = solve_node(p, plan, np.array(F1 + [j], int), rest, k - 1,
                           warm=(nb.W_next, nb.alpha))
            gains[j] = (max(o.bound - nb.bound, 0.0), max(i.bound - nb.bound, 0.0))
        eps = 1e-6 * abs(nb.bound)
        jf = pool[0]                                     # the fractional rule's choice
        js = max(pool, key=lambda j: max(gains[j][0], eps) * max(gains[j][1], eps))
        frac_min.append(max(min(gains[jf]), eps))
        sb_min.append(max(min(gains[js]), eps))
        ratios_min.append(sb_min[-1] / frac_min[-1])
        ratios_prod.append(max(gains[js][0], eps) * max(gains[js][1], eps)
                           / (max(gains[jf][0], eps) * max(gains[jf][1], eps)))
        j = int(np.argmax(np.where(np.isin(np.arange(p.n), free), v, -1)))   # dive: z largest
        F1.append(j)
        free, k = free[free != j], k - 1
        nb = solve_node(p, plan, np.array(F1, int), free, k, warm=(nb.W_next, nb.alpha))
    wall, cpu = _since(t)

    def g(x: list[float]) -> float | None:          # geometric mean
        return float(np.exp(np.mean(np.log(x)))) if x else None

    return {"sampled_nodes": len(ratios_min), "frac_min_gain": g(frac_min),
            "strong_min_gain": g(sb_min), "min_gain_ratio": g(ratios_min),
            "product_ratio": g(ratios_prod), "branching_s": wall, "branching_cpu": cpu}


def _tree_incumbents() -> dict[tuple[str, int, float], float]:
    best: dict[tuple[str, int, float], float] = {}
    path = OUT / "paperD-node-bounds-trees.csv"
    if path.exists():
        with open(path) as fh:
            for r in csv.DictReader(fh):
                if r.get("objective"):
                    key = (r["data"], int(r["B"]), float(r["C"]))
                    best[key] = min(best.get(key, math.inf), float(r["objective"]))
    return best


def gap(args: argparse.Namespace) -> None:
    trees = _tree_incumbents()
    rows = []
    for name, B, C in WIDE:
        p = problem(name, B, C)
        row: dict = {"data": name, "B": B, "C": C}
        row.update(_primal(p))
        ub = min(trees.get((name, B, C), math.inf), row["fast200"], row["dive"])
        row["best_ub"] = ub
        row["tree_ub"] = trees.get((name, B, C))
        row.update(_root_bounds(p, ub))
        for nb in ("perspective", "dscomp", "box"):
            row[f"root_gap_{nb}"] = (ub - row[f"root_{nb}"]) / ub
        row.update(_branching(p))
        row["load"] = round(os.getloadavg()[0], 1)
        rows.append(row)
        print(json.dumps(row), flush=True)
    write("paperD-node-bounds-gap",
          "<!-- bench_fs_linear_node_bounds.py gap: incumbent, bound and branching shares of "
          "bnb's gap on paper D's wide sets. Gaps relative to best_ub; times wall / CPU s on "
          "the shared 2-core machine, load at the end of the row. -->", rows,
          ["data", "B", "C", "best_ub", "tree_ub", "fast200", "dive", "root_perspective",
           "root_dscomp", "root_box", "root_gap_perspective", "root_gap_dscomp",
           "root_gap_box", "min_gain_ratio", "product_ratio", "load"])


# --- trees ---------------------------------------------------------------------------------

def _done_rows(stem: str) -> list[dict]:
    """The rows ``results/<stem>.csv`` already holds (numbers parsed back)."""
    path = OUT / f"{stem}.csv"
    if not path.exists():
        return []

    def value(v: str) -> object:
        for kind in (int, float):
            try:
                return kind(v)
            except ValueError:
                pass
        return v

    with open(path) as fh:
        return [{k: (value(v) if k != "trace" else v) for k, v in r.items() if v != ""}
                for r in csv.DictReader(fh)]


def trees(args: argparse.Namespace) -> None:
    from sparsekm.algorithms.fs_linear import solve_fs_linear

    rows = _done_rows(args.stem)     # a rerun resumes: the runs already written are kept
    done = {(r["data"], int(r["B"]), float(r["C"]), r["branching"], r["node_bound"],
             float(r["tl"])) for r in rows}
    cases = WIDE if not args.only else [c for c in WIDE if f"{c[0]}:{c[1]}:{c[2]:g}"
                                        in args.only.split(",")]
    for name, B, C in cases:
        for br in args.branching.split(","):
            if (name, B, C, br, args.node_bound, float(args.tl)) in done:
                continue
            p = problem(name, B, C)
            t = _clock()
            res = solve_fs_linear(p, "bnb", SolverPlan(time_limit=args.tl), workers=2,
                                  branching=br, node_bound=args.node_bound)
            wall, cpu = _since(t)
            ex, tr = res.extra, res.raw
            node_cpu = float(sum(sum(c) for _, c in tr.schedule)) if tr is not None else None
            rows.append({"data": name, "B": B, "C": C, "branching": br,
                         "node_bound": args.node_bound, "tl": args.tl,
                         "objective": res.objective, "lower_bound": res.bound,
                         "gap": res.gap, "nodes": ex["nodes"], "open_nodes": ex["open_nodes"],
                         "root_node_bound": ex.get("root_node_bound"),
                         "root_gap": ex.get("root_gap"), "wall_s": wall,
                         "driver_cpu_s": cpu, "node_cpu_s": node_cpu,
                         "strong_solves": ex.get("strong_solves"),
                         "socp_solves": ex.get("socp_solves"),
                         "trace": json.dumps(ex.get("bound_trace")),
                         "load": round(os.getloadavg()[0], 1)})
            print(json.dumps({k: v for k, v in rows[-1].items() if k != "trace"}), flush=True)
            write(args.stem, "<!-- bench_fs_linear_node_bounds.py trees: bnb on 2 workers; "
                  "wall / CPU s on the shared 2-core machine (load at the end of the run). -->",
                  rows, ["data", "B", "C", "branching", "tl", "objective", "lower_bound",
                         "gap", "nodes", "root_gap", "wall_s", "driver_cpu_s", "node_cpu_s",
                         "load"])


# --- costs ---------------------------------------------------------------------------------

def costs(args: argparse.Namespace) -> None:
    """Node costs for the engine's scaling model (docs/topics/tree_search.md): CPU per node
    task, driver CPU per node with 2 worker processes, the size of a node message, for each
    node bound and branching rule, ``--nodes`` nodes each (the same nodes on any machine)."""
    import pickle

    from sparsekm.algorithms.fs_linear import solve_fs_linear

    rows = []
    for spec in args.cases.split(","):
        name, B, C = spec.split(":")
        p = problem(name, int(B), float(C))
        for nb in ("perspective", "dscomp", "box"):
            for br in args.branching.split(","):
                t = _clock()
                res = solve_fs_linear(p, "bnb", SolverPlan(time_limit=args.tl), workers=2,
                                      node_limit=args.nodes, node_bound=nb, branching=br)
                wall, cpu = _since(t)
                tr, ex = res.raw, res.extra
                node_cpu = [c for _, cs in tr.schedule for c in cs]
                n = max(ex["nodes"], 1)
                rows.append({"data": name, "B": int(B), "C": float(C), "node_bound": nb,
                             "branching": br, "nodes": ex["nodes"],
                             "node_cpu_ms": 1e3 * float(np.mean(node_cpu)) if node_cpu else None,
                             "node_cpu_p90_ms": 1e3 * float(np.quantile(node_cpu, 0.9))
                             if node_cpu else None,
                             "driver_cpu_ms_per_node": 1e3 * tr.timing.get("driver_cpu", 0) / n,
                             "root_s": ex.get("root_s"), "solves_per_node":
                             ((ex.get("socp_solves") or 0) + (ex.get("strong_solves") or 0)) / n,
                             "node_bytes": len(pickle.dumps(_a_node(p, nb))),
                             "gap": res.gap, "wall_s": wall, "driver_cpu_s": cpu,
                             "load": round(os.getloadavg()[0], 1)})
                print(json.dumps(rows[-1]), flush=True)
    write("paperD-node-bounds-costs", "<!-- bench_fs_linear_node_bounds.py costs: node CPU "
          "per task, driver CPU per node (2 worker processes), node message bytes. -->", rows,
          ["data", "B", "C", "node_bound", "branching", "nodes", "node_cpu_ms",
           "node_cpu_p90_ms", "driver_cpu_ms_per_node", "solves_per_node", "node_bytes",
           "load"])


def _a_node(p: FSLinearProblem, nb: str) -> dict:
    """A child of the root as the tree ships it (its message to a worker)."""
    from sparsekm.algorithms.fs_linear.bnb import LinearTree, _node
    from sparsekm.relaxations.fs_linear.node_form import NodeTask

    tree = LinearTree(p, SolverPlan(), node_bound=nb)
    sol = tree.form.solve(p, SolverPlan(), NodeTask.root(p))
    return _node((), np.arange(1, p.n), p.n, p.B, sol.W_next, sol.alpha, 1)


# --- plot ----------------------------------------------------------------------------------

def _records(store: Path) -> list[dict]:
    log = store.parent / (store.stem + ".records.jsonl.gz")
    if not log.exists():
        return []
    with gzip.open(log, "rt") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _payload(rec: dict) -> dict:
    """The run's JSON result: the run log keeps it as a JSON string under ``payload``."""
    for key in ("payload", "result", "json", "out"):
        val = rec.get(key)
        if isinstance(val, str) and val.startswith("{"):
            val = json.loads(val)
        if isinstance(val, dict):
            return val
    return rec


COLORS = {"perspective": "tab:blue", "dscomp": "tab:orange", "box": "tab:green"}


def plot(args: argparse.Namespace) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    store = HERE / "results" / "stores" / f"{args.config}.duckdb"
    latest = {r.get("key"): r for r in _records(store)}        # a rerun replaces its run
    runs = [_payload(r) for r in latest.values()]
    runs = [r for r in runs if r.get("bound_trace") and r.get("data") in args.data.split(",")]
    cases = sorted({(r["data"], r["params"]["B"], r["params"]["C"]) for r in runs})
    if not cases:
        raise SystemExit(f"no stored runs with a bound trace in {store}")
    cols = min(len(cases), 4)                                 # panels wrap after four
    rows = -(-len(cases) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.4 * rows), squeeze=False)
    for ax in axes.flat[len(cases):]:
        ax.set_visible(False)
    for ax, case in zip(axes.flat, cases):
        for r in sorted(runs, key=lambda r: str(r["params"].get("node_bound"))):
            if (r["data"], r["params"]["B"], r["params"]["C"]) != case:
                continue
            tr = np.asarray(r["bound_trace"], float)
            ub = float(r["objective"])
            gap = np.maximum((ub - tr[:, 1]) / abs(ub), 1e-6)   # against the final incumbent
            nb = str(r["params"].get("node_bound", "?"))
            ax.semilogy(tr[:, 0], 100 * gap, label=nb, color=COLORS.get(nb))
        ax.set_title(f"{case[0]} B={case[1]} C={case[2]:g}")
        ax.set_xlabel("seconds (2 workers)")
        ax.set_ylabel("certified gap to the final incumbent, %")
        ax.legend()
    fig.tight_layout()
    out = HERE / "results" / "figures" / f"{args.config}_gap_time.png"
    out.parent.mkdir(exist_ok=True)
    fig.savefig(out, dpi=110)
    print(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("gap")
    t = sub.add_parser("trees")
    t.add_argument("--tl", type=float, default=600.0)
    t.add_argument("--branching", default="fractional,reliability")
    t.add_argument("--node-bound", default="perspective")
    t.add_argument("--only", default="", help="data:B:C,... (default: the 12 instances)")
    t.add_argument("--stem", default="paperD-node-bounds-trees")
    c = sub.add_parser("costs")
    c.add_argument("--cases", default="colorectal:20:1,ionosphere:5:10")
    c.add_argument("--branching", default="fractional,reliability")
    c.add_argument("--nodes", type=int, default=300)
    c.add_argument("--tl", type=float, default=900.0)
    pl = sub.add_parser("plot")
    pl.add_argument("--config", default="paperD-node-bounds")
    pl.add_argument("--data", default="colorectal,dlbcl,lymphoma,ionosphere,german")
    args = ap.parse_args()
    {"gap": gap, "trees": trees, "costs": costs, "plot": plot}[args.cmd](args)


if __name__ == "__main__":
    main()
