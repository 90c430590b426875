"""Paper A benchmarks (not CI): reduced Tables 2-6, incremental-kernel speed-up, Figures 1-2.

Parts (select with --parts speed,tables,full; default all):

* ``speed``  -- LS (Algorithm 1) with the O(m^2) masked-kernel path versus rebuilding every
  kernel (same masks, same objective), and the kernel-only cost of one N^1 neighbourhood.
* ``tables`` -- reduced instances as in Tables 2-6: cleveland, breast_cancer_diagnostic,
  ionosphere, sonar; m rows drawn by a seeded stratified sample (the paper's row choice is not
  given); poly d in {2,3,5} and Gaussian; DecSubLight* (poly only, as in the paper), LS*, SCIP
  on the MINLP (4) (time limit, warm start = the common random start mask) and Ipopt
  relax-and-round. SCIP and relax-round only for the smallest m (see --solver-m).
* ``full``   -- full data, several seeded starts: box plots of objective and time (Figure 1,
  cubic kernel) and performance profiles of the best-of-starts objective (Figure 2).

Usage: PYTHONPATH=src python benchmarks/bench_fs_kernel.py [--parts ...] [--quick]
Writes benchmarks/results/fs_kernel*.md / .png / .json. Paper sense throughout (to compare
with the paper's objective values); all features standard-scaled.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from pathlib import Path

import numpy as np
from sparsekm.algorithms.fs_kernel_core import Evaluator, FSKernelProblem, random_masks
from sparsekm.algorithms.fs_kernel_decsub import decsub_light
from sparsekm.algorithms.fs_kernel_ls import local_search, ls_star
from sparsekm.algorithms.fs_kernel_relax import relax_round, solve_minlp
from sparsekm.algorithms.fs_kernel_rfe import rfe

from sparsekm.data import Scaler, load_dataset, train_test_split
from sparsekm.kernels import kernel_matrix

RES = Path(__file__).parent / "results"
logging.getLogger("pyomo").setLevel(logging.ERROR)


def _data(name: str, m: int | None, seed: int = 0):
    ds = load_dataset(name)
    X = Scaler("standard").fit(ds.X).transform(ds.X)
    y = ds.y
    if m is not None and m < ds.m:
        from dataclasses import replace

        _, sub = train_test_split(replace(ds, X=X), test_size=m, seed=seed)
        X, y = sub.X, sub.y
    return X, y


# ------------------------------------------------------------------------------------ speed
def part_speed(quick: bool) -> list[str]:
    from threadpoolctl import threadpool_limits

    lines = ["## Incremental masked kernel vs rebuild", "",
             "LS (Algorithm 1) from the same random start, poly d = 3, full data, paper sense. "
             "`kernel only`: building all B(n-B) kernels of one N^1 neighbourhood.", "",
             "| data | m | n | B | LS evals | LS time incremental s | LS time rebuild s | "
             "speed-up LS | N^1 kernels incremental s | N^1 kernels rebuild s | "
             "speed-up kernels |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    names = ["cleveland", "ionosphere", "sonar", "breast_cancer_diagnostic"]
    for name in names[:3] if quick else names:
        X, y = _data(name, None)
        p = FSKernelProblem(X, y, "poly", None, 10.0, 0.1, 3, 1.0)
        b0 = random_masks(p.n, p.B, 1, 0)[0]
        p.masked_kernel(b0).with_swap(int(np.flatnonzero(b0)[0]), int(np.flatnonzero(~b0)[0]))
        times, objs, evals = [], [], []  # (numba loops compiled above, outside the timing)
        for inc in (True, False):
            with threadpool_limits(1, "blas"):
                ev = Evaluator(p, incremental=inc)
                t0 = time.perf_counter()
                r = local_search(p, b0, evaluator=ev)
                times.append(time.perf_counter() - t0)
            objs.append(r.objective)
            evals.append(r.n_evals)
        assert abs(objs[0] - objs[1]) <= 1e-6 * abs(objs[0]), objs
        with threadpool_limits(1, "blas"):
            mk = p.masked_kernel(b0)
            sel, uns = np.flatnonzero(b0), np.flatnonzero(~b0)
            t0 = time.perf_counter()
            for jo in sel:
                for ji in uns:
                    mk.with_swap(int(jo), int(ji))
            t_inc = time.perf_counter() - t0
            t0 = time.perf_counter()
            for jo in sel:
                for ji in uns:
                    nb = b0.copy()
                    nb[jo], nb[ji] = False, True
                    kernel_matrix(X[:, nb], **p.kernel_params())
            t_reb = time.perf_counter() - t0
        lines.append(f"| {name} | {p.m} | {p.n} | {p.B} | {evals[0]} | {times[0]:.2f} | "
                     f"{times[1]:.2f} | {times[1] / times[0]:.2f}x | {t_inc:.3f} | {t_reb:.3f} | "
                     f"{t_reb / t_inc:.1f}x |")
        print(lines[-1], flush=True)
    return lines


# ------------------------------------------------------------------------------------ tables
def part_tables(quick: bool, ms: list[int], solver_m: list[int], scip_tl: float,
                resume: bool = False) -> list[str]:
    datasets = ["cleveland", "breast_cancer_diagnostic", "ionosphere", "sonar"]
    kernels = [("poly", 2), ("poly", 3), ("poly", 5), ("rbf", 1)]
    if quick:
        datasets, kernels = datasets[:2], kernels[:2]
    rows: list = []
    prev = RES / "fs_kernel_tables.json"
    done = {}
    if resume and prev.exists():
        for r in json.loads(prev.read_text()):
            ok_relax = r.get("relax") is None or r["relax"][0] is not None
            if r["m"] not in solver_m or (r.get("scip_formulation") == "aux" and ok_relax):
                done[(r["data"], r["kernel"], r["m"])] = r
    for name in datasets:
        for kernel, d in kernels:
            for m in ms:
                tag = f"d={d}" if kernel == "poly" else "gauss"
                if (name, tag, m) in done:
                    rows.append(done[(name, tag, m)])
                    continue
                X, y = _data(name, m)
                p = FSKernelProblem(X, y, kernel, None, 10.0, 0.1, d, 1.0)
                b0 = random_masks(p.n, p.B, 1, 0)[0]
                row = {"data": name, "kernel": f"d={d}" if kernel == "poly" else "gauss",
                       "m": m}
                if kernel == "poly":
                    r = decsub_light(p, b0)
                    row["decsub"] = (r.objective, r.time_s)
                r = ls_star(p, b0, seed=0)
                row["lsstar"] = (r.objective, r.time_s)
                if m in solver_m:
                    try:
                        r = solve_minlp(p, time_limit=scip_tl, beta_start=b0)
                        row["scip"] = (r.objective, r.time_s, r.lower_bound, r.status,
                                       r.extra.get("solver_incumbent"))
                        row["scip_formulation"] = "aux"
                    except Exception as exc:  # noqa: BLE001 - report and continue
                        row["scip"] = (None, None, None, f"error: {exc}"[:60], None)
                    try:
                        r = relax_round(p, b0, time_limit=120)
                        row["relax"] = (r.objective, r.time_s, r.extra["integral"])
                    except Exception as exc:  # noqa: BLE001
                        row["relax"] = (None, None, f"error: {exc}"[:60])
                rows.append(row)
                print(row, flush=True)
                (RES / "fs_kernel_tables.json").write_text(json.dumps(rows, default=str))
                (RES / "fs_kernel_tables.md").write_text(
                    "# Paper A benchmark: tables (partial, written after every row)\n\n"
                    + "\n".join(_tables_md(rows, scip_tl)) + "\n")
    return _tables_md(rows, scip_tl)


def _fmt(v, f="{:.2f}"):
    return "-" if v is None else f.format(v)


def _tables_md(rows, scip_tl) -> list[str]:
    lines = ["## Reduced instances (Tables 2-6 analogue)", "",
             f"Paper sense. Objective = min_alpha of (3) at the returned mask (lower is better). "
             f"SCIP: MINLP (4), time limit {scip_tl:g} s, warm-started from the same random mask "
             "as the heuristics (the analogue of Baron/Baron-H); `bound` = SCIP's dual bound. "
             "relax-round: Ipopt on the relaxation from that mask, B largest kept.", "",
             "| data | kernel | m | DecSubLight* obj | time s | LS* obj | time s | SCIP obj | "
             "SCIP bound | SCIP status | time s | relax-round obj | time s |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ds_ = r.get("decsub", (None, None))
        ls_ = r["lsstar"]
        sc = r.get("scip", (None, None, None, "-", None))
        rr = r.get("relax", (None, None, None))
        lines.append(
            f"| {r['data']} | {r['kernel']} | {r['m']} | {_fmt(ds_[0])} | {_fmt(ds_[1], '{:.1f}')}"
            f" | {_fmt(ls_[0])} | {_fmt(ls_[1], '{:.1f}')} | {_fmt(sc[0])} | {_fmt(sc[2])} | "
            f"{sc[3]}{'' if sc[4] is None or sc[4] else ' (no incumbent: start)'} | "
            f"{_fmt(sc[1], '{:.1f}')} | {_fmt(rr[0])} | {_fmt(rr[1], '{:.1f}')} |")
    # summary: how often each method has the best objective
    wins = {"decsub": 0, "lsstar": 0, "scip": 0, "relax": 0}
    for r in rows:
        vals = {k: r[k][0] for k in wins if k in r and r[k][0] is not None}
        best = min(vals.values())
        for k, v in vals.items():
            if v <= best + 1e-6 * abs(best):
                wins[k] += 1
    lines += ["", "Instances where the method attains the best objective of the row: "
              + ", ".join(f"{k} {v}" for k, v in wins.items()) + f" (of {len(rows)} rows; "
              "SCIP/relax-round only run on the smallest m)."]
    return lines


# ------------------------------------------------------------------------------------ full
def part_full(quick: bool, starts: int, datasets: list[str], resume: bool = False,
              start_tl: float = 60.0, kernel_tags: list[str] | None = None,
              with_relax: bool = False) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    all_kernels = [("poly", 2), ("poly", 3), ("poly", 5), ("rbf", 1)]
    kernels = [k for k in all_kernels
               if kernel_tags is None or f"{k[0]}{k[1] if k[0] == 'poly' else ''}" in kernel_tags]
    methods = ["DecSubLight*", "LS*", "RFE1", "RFE2", "relax-round"]
    data: dict = {}
    prev = RES / "fs_kernel_full.json"
    if resume and prev.exists():
        data = json.loads(prev.read_text())
    for name in datasets:
        X, y = _data(name, None)
        for kernel, d in kernels:
            key = f"{name}|{kernel}{d if kernel == 'poly' else ''}"
            if key in data:
                continue
            p = FSKernelProblem(X, y, kernel, None, 10.0, 0.1, d, 1.0)
            inits = random_masks(p.n, p.B, starts, 0)
            out = {}
            if kernel == "poly":
                rs = [decsub_light(p, b, time_limit=start_tl) for b in inits]
                out["DecSubLight*"] = [(r.objective, r.time_s) for r in rs]
            rs = [ls_star(p, b, seed=k, time_limit=start_tl) for k, b in enumerate(inits)]
            out["LS*"] = [(r.objective, r.time_s) for r in rs]
            for v in (1, 2):
                r = rfe(p, v)
                out[f"RFE{v}"] = [(r.objective, r.time_s)]
            if with_relax:
                rs = [relax_round(p, b, time_limit=start_tl, backend="numpy") for b in inits]
                out["relax-round"] = [(r.objective, r.time_s) for r in rs]
            data[key] = out
            print(key, {k: min(o for o, _ in v) for k, v in out.items()}, flush=True)
            (RES / "fs_kernel_full.json").write_text(json.dumps(data))
    # Figure 1: box plots, cubic kernel
    cubic = [k for k in data if k.endswith("poly3")]
    if cubic:
        fig, axes = plt.subplots(2, len(cubic), figsize=(3.2 * len(cubic), 6), squeeze=False)
        for c, key in enumerate(cubic):
            for row, idx in ((0, 0), (1, 1)):
                vals = [[t[idx] for t in data[key][mth]] for mth in methods if mth in data[key]]
                labels = [mth for mth in methods if mth in data[key]]
                axes[row][c].boxplot(vals, tick_labels=labels)
                axes[row][c].tick_params(axis="x", rotation=45, labelsize=7)
                axes[row][c].set_title(key.split("|")[0] + (" obj" if row == 0 else " time s"),
                                       fontsize=8)
        fig.tight_layout()
        fig.savefig(RES / "fs_kernel_fig1_boxplots.png", dpi=110)
        plt.close(fig)
    # Figure 2: performance profiles per kernel, eta = perf / min perf (objectives negative)
    fig, axes = plt.subplots(1, 4, figsize=(14, 3.4))
    taus = np.linspace(0, 1, 201)
    colors = dict(zip(methods, ["C0", "C1", "C2", "C3", "C4"], strict=True))
    for ax, (kernel, d) in zip(axes, all_kernels, strict=True):
        tag = f"{kernel}{d if kernel == 'poly' else ''}"
        keys = [k for k in data if k.endswith("|" + tag)]
        for mth in methods:
            etas = []
            for k in keys:
                if mth not in data[k]:
                    continue
                best = min(min(o for o, _ in v) for v in data[k].values())
                mine = min(o for o, _ in data[k][mth])
                etas.append(mine / best)
            if etas:
                prof = [np.mean(np.array(etas) >= t) for t in taus]
                ax.plot(taus, prof, label=mth, color=colors[mth],
                        linestyle="--" if mth == "LS*" else "-")
        ax.set_title(f"{kernel} d={d}" if kernel == "poly" else "gaussian", fontsize=9)
        ax.set_xlabel("tau")
        ax.invert_xaxis()
    axes[0].set_ylabel("fraction of problems with eta >= tau")
    handles = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(lab, h)
    axes[0].legend(handles.values(), handles.keys(), fontsize=7)
    fig.tight_layout()
    fig.savefig(RES / "fs_kernel_fig2_profiles.png", dpi=110)
    plt.close(fig)
    lines = ["## Full data, multistart (Figures 1-2 analogue)", "",
             f"{starts} seeded starts per start-dependent method (time limit {start_tl:g} s "
             "per start), paper sense; RFE is start-independent. Best / median objective over "
             "starts and "
             "mean time per start. Plots: `fs_kernel_fig1_boxplots.png` (cubic kernel), "
             "`fs_kernel_fig2_profiles.png`.", "",
             "| data | kernel | method | best obj | median obj | mean time s |",
             "|---|---|---|---|---|---|"]
    for key, out in data.items():
        name, tag = key.split("|")
        for mth, v in out.items():
            o = [a for a, _ in v]
            lines.append(f"| {name} | {tag} | {mth} | {min(o):.3f} | {np.median(o):.3f} | "
                         f"{np.mean([t for _, t in v]):.2f} |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--parts", default="speed,tables,full")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--ms", default="10,50,100,200")
    ap.add_argument("--solver-m", default="10")
    ap.add_argument("--scip-time-limit", type=float, default=20.0)
    ap.add_argument("--starts", type=int, default=10)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--kernels", default=None, help="e.g. poly3,rbf (full part)")
    ap.add_argument("--with-relax", action="store_true", help="relax-round in the full part")
    ap.add_argument("--start-time-limit", type=float, default=60.0)
    ap.add_argument("--full-data", default="cleveland,wholesale,breast_cancer_wisconsin,"
                    "parkinsons,diabetes")
    a = ap.parse_args()
    RES.mkdir(parents=True, exist_ok=True)
    parts = a.parts.split(",")
    t0 = time.perf_counter()
    for part in parts:
        if part == "speed":
            lines = part_speed(a.quick)
        elif part == "tables":
            lines = part_tables(a.quick, [int(v) for v in a.ms.split(",")],
                                [int(v) for v in a.solver_m.split(",")], a.scip_time_limit,
                                a.resume)
        elif part == "full":
            lines = part_full(a.quick, a.starts, a.full_data.split(","), a.resume,
                              a.start_time_limit,
                              None if a.kernels is None else a.kernels.split(","),
                              a.with_relax)
        else:
            raise SystemExit(f"unknown part {part!r}")
        (RES / f"fs_kernel_{part}.md").write_text(
            "# Paper A benchmark: " + part + "\n\nGenerated by `benchmarks/bench_fs_kernel.py "
            f"--parts {part}` ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}).\n\n"
            + "\n".join(lines) + "\n")
        print("\n".join(lines), flush=True)
    print(f"total {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
